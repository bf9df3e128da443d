/*
 * The UCX transport: one UCP worker per PE, an endpoint to every PE this PE
 * cannot map, and each row of the route table (heap, globals, and memory
 * registered later) registered in place (ucp_mem_map on the existing
 * mappings), so remote keys cover exactly the symmetric memory. Accesses
 * arrive as (pe, row, offset): the remote address is that PE's row base
 * plus the offset. Worker addresses and packed remote keys travel through
 * the bootstrap. Endpoints are created from addresses without waiting for
 * the peer, and wire-up completes under either side's progress, so
 * connection setup cannot deadlock.
 *
 * UCX over TCP carries out RMA and atomics in software at the target: they
 * complete only when the target's worker progresses. A progress thread
 * sleeps in poll() on the worker's event fd (UCP_FEATURE_WAKEUP) and drains
 * the worker whenever something arrives, so a PE that computes or waits on
 * local memory still serves its peers. That thread and the application's
 * threads share the worker, which is in UCX's serialized mode behind
 * Shoal's own lock (ucx_lock): every call on the worker, its endpoints and
 * its requests is made holding it. UCX's multi-thread mode would take its
 * own mutex several times inside every call (measured: ~230 instructions
 * of pthread_mutex_lock/unlock per remote fetch-add, plus its recursion
 * checks); here each Shoal operation takes a lock of one compare-and-swap
 * once to issue and once per progress step while it waits.
 *
 * Blocking calls complete locally before they return (a put's source may be
 * reused, a get's or fetching atomic's result is there); non-blocking puts
 * and gets, non-fetching atomics and signals are only started (no reply is
 * waited for), and quiet completes them: a worker flush for puts, atomics
 * and signals, the gets' own requests for gets (their replies are their
 * completion, so a quiet after gets alone costs no extra round trip). Endpoints use
 * peer error handling: a peer that dies fails what was in flight to it, and
 * the next quiet or fence reports it rather than returning as if complete.
 *
 * The library's own synchronization adds (SHOAL_AMO_SYNC_ADD: barrier
 * counters, which their target polls and quiet never waits for) travel as a
 * UCP active message that the target applies to its own memory, not as a
 * UCP atomic: over TCP UCX emulates an atomic in software, and the PE it
 * lands on answers each one with a completion message. In a barrier the PE
 * that leaves last gets its peer's add for the next barrier while it is
 * already in its next put + quiet, so that answer (a send of its own) sat
 * inside every timed put + quiet across hosts. An active message needs no
 * answer; it costs the receiver one receive.
 *
 * Built as a plugin (libshoal_ucx.so, see ucx.h and load.c), with its own
 * copies of util/log.c and util/status.c.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "transport/ucx/ucx.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/thread.h"

/* How one peer's symmetric memory is reached: per row of the route table,
 * its base there and the remote key. */
typedef struct {
    ucp_ep_h ep;
    ucp_rkey_h rkey[SHOAL_ROUTE_ROWS];
    uint64_t base[SHOAL_ROUTE_ROWS];
    uint64_t size[SHOAL_ROUTE_ROWS];
    struct ucx *u;
    int pe;
    int failed; /* the endpoint's error handler ran */
} ucx_peer_t;

/* What a PE publishes for each registered row; the packed key follows. */
typedef struct {
    uint64_t base;
    uint64_t size;
    uint32_t rkey_len;
    uint32_t row;
} ucx_reg_info_t;

/* A non-blocking get in flight. */
typedef struct {
    ucs_status_ptr_t req;
    int pe;
} ucx_get_req_t;

typedef struct ucx {
    shoal_transport_t tr;
    shoal_bootstrap_t *bs;
    ucp_context_h context;
    ucp_worker_h worker;
    shoal_lock_t lock; /* every UCP call on the worker, its endpoints and requests */
    ucp_mem_h memh[SHOAL_ROUTE_ROWS];
    ucx_peer_t *peers; /* [npes]; ep NULL for mapped PEs and this PE */
    int npes;
    int efd;
    int wake_fd; /* eventfd: cuts the progress thread's stand-back short (stop, hand-over) */
    unsigned generation;    /* of shmem_init, for bootstrap keys */
    unsigned registrations; /* collective mem_register calls so far */
    pthread_t progress_thread;
    int progress_running;
    volatile int stop; /* tells the progress thread to return */
    int failed;        /* some endpoint failed: nothing may complete as if well */
    uint64_t app_ns;   /* when an application thread last progressed the worker */
    int polling;       /* the progress thread sleeps on the worker's events (ucx_app_active) */
    uint64_t issued;   /* operations issued that complete only by a flush */
    uint64_t flushed;  /* the first `flushed` of them are known complete */
    uint64_t discard;  /* where the replies of non-fetching SETs (swaps) go */
    /* Non-blocking gets in flight (ucx_gets_*): their own requests say when
     * their data is here, so quiet waits for them rather than flushing. */
    ucx_get_req_t *gets; /* [ngets] of [gets_cap], under the lock */
    size_t ngets, gets_cap;
    uint64_t gets_started; /* written under the lock, read atomically */
    uint64_t gets_done;    /* atomic: taken out of `gets` and completed (or failed) */
    /* This PE's own copy of each registered host-memory row, where the
     * synchronization adds of other PEs land (ucx_sync_add_recv). */
    uint64_t self_base[SHOAL_ROUTE_ROWS];
    uint64_t self_size[SHOAL_ROUTE_ROWS];
    char error[256]; /* the last failure, for strerror */
} ucx_t;

/* Records a failure (the core reports it, once) and returns the status. */
static shoal_status_t ucx_fail(ucx_t *u, shoal_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static shoal_status_t ucx_fail(ucx_t *u, shoal_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->error, sizeof(u->error), fmt, ap);
    va_end(ap);
    return status;
}

static const char *ucx_strerror(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    return u->error[0] ? u->error : "no error recorded";
}

/* Puts, non-blocking gets and non-fetching atomics complete at the target
 * only by a flush; quiet skips the flush (a round trip per endpoint in use)
 * when every such operation issued before it, by any thread, was covered by
 * a flush that has completed. Counted after the operation is issued. */
static void ucx_issued(ucx_t *u)
{
    __atomic_add_fetch(&u->issued, 1, __ATOMIC_RELEASE);
}

static int ucx_all_flushed(ucx_t *u, uint64_t *snap)
{
    *snap = __atomic_load_n(&u->issued, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&u->flushed, __ATOMIC_ACQUIRE) >= *snap;
}

/* A flush that started after `snap` operations were issued has completed. */
static void ucx_flushed(ucx_t *u, uint64_t snap)
{
    uint64_t cur = __atomic_load_n(&u->flushed, __ATOMIC_RELAXED);
    while (cur < snap && !__atomic_compare_exchange_n(&u->flushed, &cur, snap, 1, __ATOMIC_RELEASE,
                                                      __ATOMIC_RELAXED))
        ;
}

/* The progress thread stands back while application threads progress the
 * worker themselves (in a wait, or waiting for their own request), and
 * for this long after: two threads taking turns on the worker's lock cost
 * each operation tens of microseconds on a busy host (measured: 8-byte get
 * across two namespaces 9 us alone, 10-50 us with the thread competing). */
#define UCX_APP_ACTIVE_NS 500000u

/* Each look that finds the application still progressing doubles the next
 * stand-back, up to this: the thread shares the PE's CPU, so every look
 * preempts the application (measured: ~30 us per wake-up of a PE pinned to
 * one CPU; looking every 0.5 ms made 8-byte fetch-add across two namespaces
 * 9.8 us against 8.3 us looking every 20 ms). The price: a PE that stops
 * calling the library after a long busy spell serves its peers again only
 * after up to this long (then at once, until it is busy again). */
#define UCX_STAND_BACK_MAX_NS 10000000u

static uint64_t ucx_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ucx_wake(ucx_t *u);

/* The worker's lock. Held for each UCP call, and released between the steps
 * of a wait so that other threads (the progress thread, the application's
 * other threads) get their turn on the worker. */
static inline void ucx_lock(ucx_t *u)
{
    shoal_lock_take(&u->lock);
}

static inline void ucx_unlock(ucx_t *u)
{
    shoal_lock_release(&u->lock);
}

/* An application thread uses the worker (issues operations, or progresses
 * it): stamped, so that the progress thread stands back rather than take
 * turns on the worker's lock (and the socket's) with it. No progress call
 * here: each is a system call on TCP (epoll_wait). A progress thread
 * asleep on the worker's events would only look at the stamp when its poll
 * returns, and it need not: when this thread takes each event first, poll
 * wakes at every packet, finds nothing ready and sleeps again, never
 * returning (measured: every 8-byte fetch-add across two namespaces woke
 * the progress thread, which preempted the PE: 25 us per operation instead
 * of 8 for as long as the application kept taking the events, milliseconds,
 * in 9 of 70 rdma_demo runs after the 1 MiB rows; 0 of 70 with the wake).
 * So the first application thread that finds it there wakes it, once, and
 * it stands back. */
static void ucx_app_active(ucx_t *u)
{
    __atomic_store_n(&u->app_ns, ucx_now_ns(), __ATOMIC_RELAXED);
    if (__builtin_expect(__atomic_load_n(&u->polling, __ATOMIC_RELAXED), 0) &&
        __atomic_exchange_n(&u->polling, 0, __ATOMIC_ACQ_REL))
        ucx_wake(u);
}

/* Progresses the worker until it finds nothing more to do, or another
 * thread waits for the lock (it progresses the worker too); under the lock. */
static unsigned ucx_drain(ucx_t *u)
{
    unsigned total = 0, n;
    while ((n = ucp_worker_progress(u->worker)) != 0) {
        total += n;
        if (shoal_lock_waited_for(&u->lock))
            break;
    }
    return total;
}

/* ---- completion ------------------------------------------------------------- */

/* Where a wait for this PE's own operations stands. */
typedef struct {
    unsigned steps; /* progress calls so far */
    unsigned idle;  /* of them, in a row, that found nothing */
} ucx_waiting_t;

/* One step of a wait, from the calling thread, under the lock: progress
 * the worker; when that found nothing, or another thread waits for the
 * lock, let it go for a moment (the progress thread and the application's
 * other threads get their turn: shoal_lock_pass), and
 * after 64 such steps yield the CPU at each, so on a crowded host the
 * target PE gets one. The activity stamp is renewed every 32 steps (each
 * is a system call): often enough for the progress thread's 0.5 ms,
 * without a clock read per step. */
static void ucx_wait_step(ucx_t *u, ucx_waiting_t *w)
{
    if ((w->steps++ & 31) == 0)
        ucx_app_active(u);
    if (ucp_worker_progress(u->worker) != 0) {
        w->idle = 0;
        if (shoal_lock_waited_for(&u->lock))
            shoal_lock_pass(&u->lock, 0);
        return;
    }
    shoal_lock_pass(&u->lock, ++w->idle > 64); /* after 64: the target may need this CPU */
}

/* Waits for `req` (ucx_wait_step), called and returning with the lock
 * held. `pe` < 0: a worker-wide operation. */
static shoal_status_t ucx_wait(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe)
{
    ucs_status_t st;
    if (req == NULL)
        return SHOAL_OK;
    if (UCS_PTR_IS_ERR(req)) {
        st = UCS_PTR_STATUS(req);
    } else {
        ucx_waiting_t w = {0};
        while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
            ucx_wait_step(u, &w);
        ucp_request_free(req);
    }
    if (st == UCS_OK)
        return SHOAL_OK;
    if (pe >= 0)
        return ucx_fail(u, SHOAL_ERR_IO, "UCX %s to PE %d failed: %s", what, pe,
                        ucs_status_string(st));
    return ucx_fail(u, SHOAL_ERR_IO, "UCX %s failed: %s", what, ucs_status_string(st));
}

/* A non-blocking operation was started (under the lock): its request (if
 * any) is released when it completes, and the next flush waits for it. */
static shoal_status_t ucx_started(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe)
{
    ucx_app_active(u);
    if (req == NULL)
        return SHOAL_OK;
    if (UCS_PTR_IS_ERR(req))
        return ucx_wait(u, req, what, pe);
    ucp_request_free(req);
    return SHOAL_OK;
}

/* A non-blocking get was started (under the lock): its request is kept for
 * quiet, which waits for it. A get is complete when its reply has arrived,
 * and the request says so; a flush would cost one more round trip per
 * endpoint. Where the request cannot be kept, the get counts for the next
 * flush. */
static shoal_status_t ucx_gets_add(ucx_t *u, ucs_status_ptr_t req, int pe)
{
    ucx_app_active(u);
    if (req == NULL)
        return SHOAL_OK; /* complete already */
    if (UCS_PTR_IS_ERR(req))
        return ucx_wait(u, req, "get", pe);
    if (u->ngets == u->gets_cap) {
        size_t cap = u->gets_cap ? 2 * u->gets_cap : 64;
        ucx_get_req_t *g = realloc(u->gets, cap * sizeof(*g));
        if (g == NULL) {
            ucx_issued(u);
            ucp_request_free(req);
            return SHOAL_OK;
        }
        u->gets = g;
        u->gets_cap = cap;
    }
    u->gets[u->ngets++] = (ucx_get_req_t){.req = req, .pe = pe};
    __atomic_store_n(&u->gets_started, u->gets_started + 1, __ATOMIC_RELEASE);
    return SHOAL_OK;
}

/* Completes every non-blocking get started before the call, by any thread
 * (under the lock): takes the list and waits for its requests, then
 * (another thread may have taken part of them) until everything started
 * before is done. */
static shoal_status_t ucx_gets_complete(ucx_t *u)
{
    if (__atomic_load_n(&u->gets_started, __ATOMIC_ACQUIRE) ==
        __atomic_load_n(&u->gets_done, __ATOMIC_ACQUIRE))
        return SHOAL_OK; /* none in flight (the usual case) */
    uint64_t snap = u->gets_started;
    ucx_get_req_t *mine = u->gets;
    size_t n = u->ngets;
    u->gets = NULL;
    u->ngets = u->gets_cap = 0;
    shoal_status_t status = SHOAL_OK;
    for (size_t i = 0; i < n; i++) {
        shoal_status_t st = ucx_wait(u, mine[i].req, "get", mine[i].pe);
        if (status == SHOAL_OK)
            status = st;
    }
    free(mine);
    if (n > 0)
        __atomic_add_fetch(&u->gets_done, n, __ATOMIC_RELEASE);
    ucx_waiting_t w = {0};
    while (__atomic_load_n(&u->gets_done, __ATOMIC_ACQUIRE) < snap)
        ucx_wait_step(u, &w);
    return status;
}

/* After a flush: an endpoint that failed meanwhile means some operation did
 * not complete, whatever the flush said. */
static shoal_status_t ucx_check_failed(ucx_t *u, shoal_status_t status)
{
    if (status == SHOAL_OK && __atomic_load_n(&u->failed, __ATOMIC_ACQUIRE))
        return SHOAL_ERR_IO; /* u->error names the peer (ucx_ep_failed) */
    return status;
}

/* The remote address and key of `len` bytes at `r` on `pe`. */
static shoal_status_t ucx_remote(ucx_t *u, int pe, shoal_remote_t r, size_t len, uint64_t *raddr_p,
                                 ucp_rkey_h *rkey_p)
{
    ucx_peer_t *p = &u->peers[pe];
    if (p->ep == NULL)
        return ucx_fail(u, SHOAL_ERR_UNREACHABLE,
                        "PE %d has no UCX endpoint (it is mapped through shared memory)", pe);
    if (r.row >= SHOAL_ROUTE_ROWS || p->rkey[r.row] == NULL || r.off + len > p->size[r.row])
        return ucx_fail(u, SHOAL_ERR_INVALID,
                        "PE %d's memory row %u is not registered with UCX or is smaller than "
                        "here (%llu + %zu bytes)",
                        pe, r.row, (unsigned long long)r.off, len);
    *raddr_p = p->base[r.row] + r.off;
    *rkey_p = p->rkey[r.row];
    return SHOAL_OK;
}

/* ---- the data path -------------------------------------------------------------- */

/* The functions of this part run under the lock; the transport's entry
 * points (ucx_put, ucx_get, ...) take it. */

/* A put (local -> remote) or get (remote -> local): blocking waits for local
 * completion; nbi only starts it. A put, or a get that quiet must complete,
 * counts as issued. */
static shoal_status_t ucx_rma(ucx_t *u, int is_put, int pe, shoal_remote_t remote, void *local,
                              size_t len, int nbi)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status = ucx_remote(u, pe, remote, len, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;
    ucp_request_param_t param = {.op_attr_mask = 0};
    ucs_status_ptr_t req = is_put ? ucp_put_nbx(u->peers[pe].ep, local, len, raddr, rkey, &param)
                                  : ucp_get_nbx(u->peers[pe].ep, local, len, raddr, rkey, &param);
    const char *what = is_put ? "put" : "get";
    if (!is_put && nbi)
        return ucx_gets_add(u, req, pe);
    if (is_put)
        ucx_issued(u);
    return nbi ? ucx_started(u, req, what, pe) : ucx_wait(u, req, what, pe);
}

/* Starts a non-fetching atomic. UCX reads the operand until the operation
 * completes locally, so when it could not be sent at once (a request came
 * back) the call waits for that; the remote completion is quiet's. A SET
 * is a swap whose reply nobody reads. */
static shoal_status_t ucx_amo_post(ucx_t *u, int pe, uint64_t raddr, ucp_rkey_h rkey,
                                   ucp_atomic_op_t opcode, size_t size, uint64_t value)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
        .datatype = ucp_dt_make_contig(size),
    };
    if (opcode == UCP_ATOMIC_OP_SWAP) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = &u->discard;
    }
    ucs_status_ptr_t req =
        ucp_atomic_op_nbx(u->peers[pe].ep, opcode, &value, 1, raddr, rkey, &param);
    if (req == NULL) {
        ucx_app_active(u);
        return SHOAL_OK;
    }
    return ucx_wait(u, req, "atomic", pe);
}

/* A synchronization add: (row, offset, value) in the header of an active
 * message, applied by the target itself (ucx_sync_add_recv). */
#define UCX_AM_SYNC_ADD 0

typedef struct {
    uint64_t off;
    uint64_t value;
    uint32_t row;
    uint32_t size;
} ucx_sync_add_msg_t;

static shoal_status_t ucx_sync_add_send(ucx_t *u, int pe, shoal_remote_t dest, size_t size,
                                        uint64_t value)
{
    const ucx_sync_add_msg_t msg = {
        .off = dest.off, .value = value, .row = dest.row, .size = (uint32_t)size};
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = UCP_AM_SEND_FLAG_EAGER};
    ucs_status_ptr_t req =
        ucp_am_send_nbx(u->peers[pe].ep, UCX_AM_SYNC_ADD, &msg, sizeof(msg), NULL, 0, &param);
    if (req == NULL) {
        ucx_app_active(u);
        return SHOAL_OK;
    }
    /* UCX reads the header (on this stack) until the send completes locally. */
    return ucx_wait(u, req, "synchronization add", pe);
}

/* Runs in whichever thread progresses the worker. A malformed message is
 * a bug in a peer's library, not the user's: it is logged and dropped. */
static ucs_status_t ucx_sync_add_recv(void *arg, const void *header, size_t header_length,
                                      void *data, size_t length, const ucp_am_recv_param_t *param)
{
    ucx_t *u = arg;
    ucx_sync_add_msg_t msg;
    (void)data;
    (void)length;
    (void)param;
    if (header_length != sizeof(msg)) {
        SHOAL_ERROR("dropped a UCX synchronization message of %zu bytes (expected %zu)",
                    header_length, sizeof(msg));
        return UCS_OK;
    }
    memcpy(&msg, header, sizeof(msg));
    if (msg.row >= SHOAL_ROUTE_ROWS || (msg.size != 4 && msg.size != 8) || msg.off % msg.size ||
        msg.off + msg.size > __atomic_load_n(&u->self_size[msg.row], __ATOMIC_ACQUIRE)) {
        SHOAL_ERROR("dropped a UCX synchronization add to row %u offset %llu (%u bytes): not in "
                    "this PE's registered host memory",
                    msg.row, (unsigned long long)msg.off, msg.size);
        return UCS_OK;
    }
    void *word = (char *)(uintptr_t)u->self_base[msg.row] + msg.off;
    if (msg.size == 8)
        __atomic_fetch_add((uint64_t *)word, msg.value, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add((uint32_t *)word, (uint32_t)msg.value, __ATOMIC_SEQ_CST);
    return UCS_OK;
}

/* An atomic's operand or result: 4 or 8 bytes (the spec's AMO types), as
 * the low bytes of a 64-bit integer; fixed-size copies, no memcpy call. */
static inline uint64_t ucx_amo_load(const void *p, size_t size)
{
    if (size == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline void ucx_amo_store(void *p, uint64_t v, size_t size)
{
    if (size == sizeof(uint64_t)) {
        memcpy(p, &v, sizeof(v));
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, sizeof(w));
    }
}

static shoal_status_t ucx_amo_locked(ucx_t *u, int pe, shoal_remote_t dest, shoal_amo_op_t op,
                                     size_t size, const void *operand, const void *compare,
                                     void *fetch_p)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status = ucx_remote(u, pe, dest, size, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;

    /* Operand and reply, as `size`-byte integers at the start of each. */
    uint64_t value = 0, reply = 0;
    ucp_atomic_op_t opcode;
    if (operand != NULL)
        value = ucx_amo_load(operand, size);
    switch (op) {
    case SHOAL_AMO_SET:
        status = ucx_amo_post(u, pe, raddr, rkey, UCP_ATOMIC_OP_SWAP, size, value);
        ucx_issued(u);
        return status;
    case SHOAL_AMO_SYNC_ADD: /* not counted: its target polls for it */
        return ucx_sync_add_send(u, pe, dest, size, value);
    case SHOAL_AMO_ADD:
    case SHOAL_AMO_AND:
    case SHOAL_AMO_OR:
    case SHOAL_AMO_XOR:
        opcode = op == SHOAL_AMO_ADD   ? UCP_ATOMIC_OP_ADD
                 : op == SHOAL_AMO_AND ? UCP_ATOMIC_OP_AND
                 : op == SHOAL_AMO_OR  ? UCP_ATOMIC_OP_OR
                                       : UCP_ATOMIC_OP_XOR;
        status = ucx_amo_post(u, pe, raddr, rkey, opcode, size, value);
        ucx_issued(u);
        return status;
    case SHOAL_AMO_FETCH:
        opcode = UCP_ATOMIC_OP_OR;
        value = 0;
        break;
    case SHOAL_AMO_SWAP:
        opcode = UCP_ATOMIC_OP_SWAP;
        break;
    case SHOAL_AMO_CSWAP:
        /* UCX compares the remote value with `buffer` and stores the reply
         * buffer's value on a match. */
        opcode = UCP_ATOMIC_OP_CSWAP;
        reply = ucx_amo_load(operand, size);
        value = ucx_amo_load(compare, size);
        break;
    case SHOAL_AMO_FETCH_ADD:
        opcode = UCP_ATOMIC_OP_ADD;
        break;
    case SHOAL_AMO_FETCH_AND:
        opcode = UCP_ATOMIC_OP_AND;
        break;
    case SHOAL_AMO_FETCH_OR:
        opcode = UCP_ATOMIC_OP_OR;
        break;
    case SHOAL_AMO_FETCH_XOR:
        opcode = UCP_ATOMIC_OP_XOR;
        break;
    default:
        return ucx_fail(u, SHOAL_ERR_INVALID, "unknown atomic operation %d", (int)op);
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
        .datatype = ucp_dt_make_contig(size),
        .reply_buffer = &reply,
    };
    ucs_status_ptr_t req =
        ucp_atomic_op_nbx(u->peers[pe].ep, opcode, &value, 1, raddr, rkey, &param);
    status = ucx_wait(u, req, "atomic", pe);
    if (status == SHOAL_OK)
        ucx_amo_store(fetch_p, reply, size);
    return status;
}

/* ---- the transport's entry points ------------------------------------------------ */

static shoal_status_t ucx_put(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                              const void *source, size_t len, int nbi)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_rma(u, 1, pe, dest, (void *)source, len, nbi);
    ucx_unlock(u);
    return status;
}

static shoal_status_t ucx_get(shoal_transport_t *tr, int pe, void *dest, shoal_remote_t source,
                              size_t len, int nbi)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_rma(u, 0, pe, source, dest, len, nbi);
    ucx_unlock(u);
    return status;
}

static shoal_status_t ucx_amo(shoal_transport_t *tr, int pe, shoal_remote_t dest, shoal_amo_op_t op,
                              size_t size, const void *operand, const void *compare, void *fetch_p)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_amo_locked(u, pe, dest, op, size, operand, compare, fetch_p);
    ucx_unlock(u);
    return status;
}

/* The data, a fence (UCX: operations issued on the worker before it
 * complete before those issued after, on each endpoint), then the signal
 * as a non-fetching atomic: no round trip. */
static shoal_status_t ucx_put_signal(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                                     const void *source, size_t len, shoal_remote_t sig,
                                     uint64_t signal, shoal_amo_op_t sig_op, int nbi)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = len > 0 ? ucx_rma(u, 1, pe, dest, (void *)source, len, nbi) : SHOAL_OK;
    if (status == SHOAL_OK) {
        ucs_status_t st = ucp_worker_fence(u->worker);
        if (st != UCS_OK)
            status = ucx_fail(u, SHOAL_ERR_IO, "UCX fence before the signal to PE %d failed: %s",
                              pe, ucs_status_string(st));
    }
    if (status == SHOAL_OK)
        status = ucx_amo_locked(u, pe, sig, sig_op, sizeof(uint64_t), &signal, NULL, NULL);
    ucx_unlock(u);
    return status;
}

static shoal_status_t ucx_quiet(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    uint64_t snap;
    shoal_status_t status = SHOAL_OK;
    ucx_lock(u);
    if (!ucx_all_flushed(u, &snap)) {
        ucp_request_param_t param = {.op_attr_mask = 0};
        status = ucx_wait(u, ucp_worker_flush_nbx(u->worker, &param), "flush", -1);
        if (status == SHOAL_OK)
            ucx_flushed(u, snap);
    }
    shoal_status_t gets = ucx_gets_complete(u); /* at once after a flush */
    ucx_unlock(u);
    return ucx_check_failed(u, status != SHOAL_OK ? status : gets);
}

/* Flushes the endpoints to `pes`: all started first, then waited for. */
static shoal_status_t ucx_pe_quiet(shoal_transport_t *tr, const int *pes, size_t npes)
{
    ucx_t *u = tr->priv;
    shoal_status_t status = SHOAL_OK;
    uint64_t snap;
    ucs_status_ptr_t reqs[64];
    int req_pe[64];
    size_t n = 0;
    /* Nothing to flush: only the gets (all of them: completing more is allowed). */
    if (ucx_all_flushed(u, &snap))
        npes = 0;
    ucx_lock(u);
    for (size_t i = 0; i <= npes; i++) {
        if (i < npes && pes[i] >= 0 && pes[i] < u->npes && u->peers[pes[i]].ep != NULL) {
            ucp_request_param_t param = {.op_attr_mask = 0};
            req_pe[n] = pes[i];
            reqs[n++] = ucp_ep_flush_nbx(u->peers[pes[i]].ep, &param);
        }
        if (n == 64 || (i == npes && n > 0)) {
            for (size_t k = 0; k < n; k++) {
                shoal_status_t st = ucx_wait(u, reqs[k], "flush", req_pe[k]);
                if (status == SHOAL_OK)
                    status = st;
            }
            n = 0;
        }
    }
    shoal_status_t gets = ucx_gets_complete(u);
    ucx_unlock(u);
    return ucx_check_failed(u, status != SHOAL_OK ? status : gets);
}

static unsigned ucx_progress(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_app_active(u);
    ucx_lock(u);
    unsigned total = ucx_drain(u);
    ucx_unlock(u);
    return total;
}

/* Sleeps up to `ns` or until something arrives for the worker; for wait
 * loops, which then poll again. */
static unsigned ucx_sleep(shoal_transport_t *tr, uint64_t ns)
{
    ucx_t *u = tr->priv;
    ucx_app_active(u);
    ucx_lock(u);
    unsigned total = ucx_drain(u);
    int armed = total == 0 && ucp_worker_arm(u->worker) == UCS_OK;
    ucx_unlock(u);
    if (!armed)
        return total; /* events arrived or are waiting */
    struct pollfd pfd = {.fd = u->efd, .events = POLLIN};
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    ppoll(&pfd, 1, &ts, NULL);
    return ucx_progress(tr);
}

static shoal_status_t ucx_fence(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    ucs_status_t st = ucp_worker_fence(u->worker);
    ucx_unlock(u);
    if (st != UCS_OK)
        return ucx_fail(u, SHOAL_ERR_IO, "UCX fence failed: %s", ucs_status_string(st));
    return ucx_check_failed(u, SHOAL_OK);
}

/* ---- the progress thread ------------------------------------------------------ */

/* Takes the wake-ups posted so far (the eventfd is non-blocking: none, none
 * taken). */
static void ucx_drain_wake(ucx_t *u)
{
    uint64_t count;
    if (read(u->wake_fd, &count, sizeof(count)) < 0)
        return; /* EAGAIN: nothing was posted */
}

/* Sleeps `ns`, or less when woken through wake_fd. */
static void ucx_stand_back(ucx_t *u, uint64_t ns)
{
    struct pollfd pfd = {.fd = u->wake_fd, .events = POLLIN};
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    if (ppoll(&pfd, 1, &ts, NULL) > 0)
        ucx_drain_wake(u);
}

/* Wakes the progress thread from its stand-back or its poll. */
static void ucx_wake(ucx_t *u)
{
    const uint64_t one = 1;
    if (write(u->wake_fd, &one, sizeof(one)) < 0)
        return; /* the counter is full: the thread is awake anyway */
}

/* The application thread is about to block outside the worker (a bootstrap
 * barrier) while peers may still need it: the progress thread serves them
 * from now on, without waiting for its stand-back to run out. */
static void ucx_hand_over(ucx_t *u)
{
    __atomic_store_n(&u->app_ns, 0, __ATOMIC_RELAXED);
    if (u->progress_running)
        ucx_wake(u);
}

static void ucx_idle(shoal_transport_t *tr)
{
    ucx_hand_over(tr->priv);
}

static void *ucx_progress_main(void *arg)
{
    ucx_t *u = arg;
    shoal_thread_name("shoal-ucx");
    struct pollfd pfd[2] = {{.fd = u->efd, .events = POLLIN}, {.fd = u->wake_fd, .events = POLLIN}};
    uint64_t back_ns = UCX_APP_ACTIVE_NS;
    while (!u->stop) {
        /* Stand back while application threads progress the worker. */
        uint64_t since = ucx_now_ns() - __atomic_load_n(&u->app_ns, __ATOMIC_RELAXED);
        if (since < UCX_APP_ACTIVE_NS) {
            ucx_stand_back(u, back_ns);
            back_ns = back_ns * 2 < UCX_STAND_BACK_MAX_NS ? back_ns * 2 : UCX_STAND_BACK_MAX_NS;
            continue;
        }
        /* An application thread holds the worker: it is active after all. */
        if (!shoal_lock_try(&u->lock)) {
            ucx_stand_back(u, UCX_APP_ACTIVE_NS);
            continue;
        }
        back_ns = UCX_APP_ACTIVE_NS;
        ucx_drain(u);
        ucs_status_t st = ucp_worker_arm(u->worker);
        ucx_unlock(u);
        if (st == UCS_ERR_BUSY)
            continue; /* events arrived meanwhile: drain them first */
        if (st != UCS_OK) {
            SHOAL_ERROR("ucp_worker_arm failed: %s; remote operations on this PE will stall",
                        ucs_status_string(st));
            break;
        }
        if (u->stop)
            break;
        __atomic_store_n(&u->polling, 1, __ATOMIC_RELEASE);
        int n = poll(pfd, 2, -1);
        __atomic_store_n(&u->polling, 0, __ATOMIC_RELEASE);
        if (n < 0 && errno != EINTR) {
            SHOAL_ERROR("poll on the UCX worker's event fd failed: %m");
            break;
        }
        if (pfd[1].revents & POLLIN)
            ucx_drain_wake(u);
    }
    return NULL;
}

static void ucx_progress_stop(ucx_t *u)
{
    if (!u->progress_running)
        return;
    u->stop = 1;
    ucx_wake(u);
    pthread_join(u->progress_thread, NULL);
    u->progress_running = 0;
}

/* ---- set-up and tear-down ------------------------------------------------------ */

static void ucx_close_endpoints(ucx_t *u)
{
    ucx_lock(u);
    for (int pe = 0; pe < u->npes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        for (int r = 0; r < SHOAL_ROUTE_ROWS; r++)
            if (p->rkey[r] != NULL)
                ucp_rkey_destroy(p->rkey[r]);
        memset(p->rkey, 0, sizeof(p->rkey));
    }
    /* Start every close first, then wait: a flushing close may need the
     * peer, which is closing its endpoint to us at the same time. A failed
     * endpoint is closed by force (nothing to flush to). */
    ucs_status_ptr_t *reqs = calloc((size_t)u->npes, sizeof(*reqs));
    for (int pe = 0; pe < u->npes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        if (p->ep == NULL)
            continue;
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                     .flags = p->failed ? UCP_EP_CLOSE_FLAG_FORCE : 0};
        ucs_status_ptr_t req = ucp_ep_close_nbx(p->ep, &param);
        p->ep = NULL;
        if (reqs != NULL)
            reqs[pe] = req;
        else
            ucx_wait(u, req, "endpoint close", pe);
    }
    if (reqs != NULL) {
        for (int pe = 0; pe < u->npes; pe++)
            if (reqs[pe] != NULL)
                ucx_wait(u, reqs[pe], "endpoint close", pe);
        free(reqs);
    }
    ucx_unlock(u);
}

static void ucx_release(ucx_t *u)
{
    ucx_progress_stop(u);
    for (size_t i = 0; i < u->ngets; i++) /* only after a failure: finalize's quiet drains them */
        ucp_request_free(u->gets[i].req);
    free(u->gets);
    if (u->peers != NULL)
        ucx_close_endpoints(u);
    free(u->peers);
    for (int r = 0; r < SHOAL_ROUTE_ROWS; r++)
        if (u->memh[r] != NULL)
            ucp_mem_unmap(u->context, u->memh[r]);
    if (u->worker != NULL)
        ucp_worker_destroy(u->worker);
    if (u->context != NULL)
        ucp_cleanup(u->context);
    if (u->wake_fd >= 0)
        close(u->wake_fd);
    free(u);
}

static void ucx_finalize(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_quiet(tr);
    ucx_close_endpoints(u);
    /* Peers may still be flushing their endpoints to us: keep serving them
     * (the progress thread runs) until everyone is done. */
    ucx_hand_over(u);
    shoal_bootstrap_barrier(u->bs);
    ucx_release(u);
}

/* Registers this PE's copy of `row` and packs what peers need to reach it
 * (its base, size and remote key) into *blob_p / *len_p. */
static shoal_status_t ucx_reg_pack(ucx_t *u, unsigned row, void *base, size_t size,
                                   shoal_mem_kind_t kind, char **blob_p, size_t *len_p)
{
    ucx_reg_info_t info = {.base = (uint64_t)(uintptr_t)base, .size = size, .row = row};
    void *rkey_buf = NULL;
    char *blob = NULL;
    shoal_status_t status = SHOAL_OK;
    if (base != NULL) {
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                          UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE,
            .address = base,
            .length = size,
            .memory_type = kind == SHOAL_MEM_DEVICE ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST,
        };
        ucs_status_t st = ucp_mem_map(u->context, &mp, &u->memh[row]);
        size_t len = 0;
        if (st == UCS_OK)
            st = ucp_rkey_pack(u->context, u->memh[row], &rkey_buf, &len);
        if (st != UCS_OK) {
            SHOAL_ERROR("registering symmetric memory row %u (%zu bytes of %s memory at %p) "
                        "with UCX failed: %s",
                        row, size, kind == SHOAL_MEM_DEVICE ? "GPU" : "host", base,
                        ucs_status_string(st));
            return SHOAL_ERR_SYSTEM;
        }
        info.rkey_len = (uint32_t)len;
    } else {
        info.size = 0;
    }
    blob = malloc(sizeof(info) + info.rkey_len);
    if (blob == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out;
    }
    memcpy(blob, &info, sizeof(info));
    if (info.rkey_len > 0)
        memcpy(blob + sizeof(info), rkey_buf, info.rkey_len);
    *blob_p = blob;
    *len_p = sizeof(info) + info.rkey_len;
out:
    if (rkey_buf != NULL)
        ucp_rkey_buffer_release(rkey_buf);
    return status;
}

/* Unpacks PE `pe`'s key of the row from its part of the allgather. */
static shoal_status_t ucx_reg_import(ucx_t *u, int pe, unsigned row, const char *blob, size_t len)
{
    ucx_peer_t *p = &u->peers[pe];
    ucx_reg_info_t info;
    shoal_status_t status = SHOAL_OK;
    memcpy(&info, blob, len < sizeof(info) ? len : sizeof(info));
    if (len < sizeof(info) || info.row != row || len < sizeof(info) + info.rkey_len) {
        SHOAL_ERROR("PE %d published a malformed key for memory row %u%s", pe, row,
                    len == 0 ? " (it failed to register it)" : "");
        status = SHOAL_ERR_IO;
    } else if (info.rkey_len > 0) {
        ucs_status_t st = ucp_ep_rkey_unpack(p->ep, blob + sizeof(info), &p->rkey[row]);
        if (st != UCS_OK) {
            SHOAL_ERROR("cannot unpack PE %d's remote key: %s", pe, ucs_status_string(st));
            p->rkey[row] = NULL;
            status = SHOAL_ERR_IO;
        } else {
            p->base[row] = info.base;
            p->size[row] = info.size;
        }
    }
    return status;
}

/* Collective: every PE registers its copy of the row and learns the keys of
 * the PEs it reaches through UCX, in one bootstrap allgather. */
static shoal_status_t ucx_mem_register(shoal_transport_t *tr, unsigned row, void *base, size_t size,
                                       shoal_mem_kind_t kind)
{
    ucx_t *u = tr->priv;
    char key[64], *blob = NULL;
    size_t len = 0;
    shoal_bootstrap_gather_t all = {0};
    shoal_status_t status;
    if (row >= SHOAL_ROUTE_ROWS || u->memh[row] != NULL) {
        SHOAL_ERROR("memory row %u is out of range or already registered with UCX", row);
        status = SHOAL_ERR_INVALID; /* still take part, so the others do not hang */
    } else {
        /* Context calls (ucp_mem_map, ucp_rkey_pack): the context is shared
         * between threads (mt_workers_shared), so no worker lock: pinning a
         * large region must not stop this PE serving its peers. */
        status = ucx_reg_pack(u, row, base, size, kind, &blob, &len);
        /* Before the others can learn the key (and reach this row). */
        if (status == SHOAL_OK && base != NULL && kind == SHOAL_MEM_HOST) {
            u->self_base[row] = (uint64_t)(uintptr_t)base;
            __atomic_store_n(&u->self_size[row], (uint64_t)size, __ATOMIC_RELEASE);
        }
    }
    snprintf(key, sizeof(key), "ucx.reg.%u.%u", u->generation, u->registrations++);
    /* A PE that failed takes part with nothing, so the others do not hang here. */
    ucx_hand_over(u); /* peers not here yet may still need this PE */
    shoal_status_t gather_status = shoal_bootstrap_allgather(
        u->bs, key, status == SHOAL_OK ? blob : "", status == SHOAL_OK ? len : 0, &all);
    free(blob);
    if (status == SHOAL_OK)
        status = gather_status;
    ucx_lock(u);
    for (int pe = 0; pe < u->npes && status == SHOAL_OK; pe++)
        if (u->peers[pe].ep != NULL) {
            size_t n;
            const char *v = shoal_bootstrap_gather_at(&all, pe, &n);
            status = ucx_reg_import(u, pe, row, v, n);
        }
    ucx_unlock(u);
    shoal_bootstrap_gather_free(&all);
    return status;
}

static const shoal_transport_ops_t ucx_ops = {
    .version = SHOAL_TRANSPORT_VERSION,
    .name = "ucx",
    .put = ucx_put,
    .get = ucx_get,
    .put_signal = ucx_put_signal,
    .amo = ucx_amo,
    .quiet = ucx_quiet,
    .pe_quiet = ucx_pe_quiet,
    .fence = ucx_fence,
    .mem_register = ucx_mem_register,
    .strerror = ucx_strerror,
    .progress = ucx_progress,
    .sleep = ucx_sleep,
    .idle = ucx_idle,
    .finalize = ucx_finalize,
};

/* UCX's TCP keepalive from SHOAL_NET_TIMEOUT (`s` seconds), unless the user
 * set UCX's own variables: a quiet connection is probed every s/10 seconds
 * after s/10 idle and given up after 9 unanswered probes, so a cut link or
 * a host gone fails the endpoints to it (Endpoint timeout) in about s
 * seconds instead of UCX's own 10 + 3 x 2 s after its first keepalive. UCX
 * sets no TCP_USER_TIMEOUT, so a connection with data in flight when the
 * link went retransmits for minutes; the config store's connection, which
 * has one, notices that case. */
static void ucx_config_net_timeout(ucp_config_t *config, unsigned s)
{
    char step[32], cnt[32];
    if (s == 0)
        return;
    unsigned st = s >= 10 ? s / 10 : 1;
    snprintf(step, sizeof(step), "%us", st);
    snprintf(cnt, sizeof(cnt), "%u", s / st > 1 ? s / st - 1 : 1);
    /* ucp_config_modify keeps a name its own table lacks and applies it to
     * each transport's table when the worker opens it, where the field is
     * named without the transport's prefix (UCX_TCP_KEEPIDLE: KEEPIDLE). */
    const char *set[][2] = {{"KEEPIDLE", step}, {"KEEPINTVL", step}, {"KEEPCNT", cnt}};
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
        char var[32];
        snprintf(var, sizeof(var), "UCX_TCP_%s", set[i][0]);
        if (getenv(var) != NULL)
            continue;
        ucs_status_t st_mod = ucp_config_modify(config, set[i][0], set[i][1]);
        if (st_mod != UCS_OK)
            SHOAL_DEBUG("ucp_config_modify(%s=%s) failed: %s", set[i][0], set[i][1],
                        ucs_status_string(st_mod));
    }
}

static shoal_status_t ucx_open(ucx_t *u, unsigned net_timeout)
{
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) {
        SHOAL_ERROR("reading the UCX configuration (UCX_* variables) failed: %s",
                    ucs_status_string(st));
        return SHOAL_ERR_INVALID;
    }
    /* UCX's own asynchronous thread (connection events) shares the
     * worker's asynchronous context, under a spinlock by default; with more
     * threads than CPUs a thread preempted while holding it stalls the
     * others for a whole time slice (milliseconds per operation here), so
     * ask for a mutex unless the user chose. */
    if (getenv("UCX_USE_MT_MUTEX") == NULL)
        ucp_config_modify(config, "USE_MT_MUTEX", "y");
    ucx_config_net_timeout(config, net_timeout);
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                    UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1,
    };
    st = ucp_init(&params, config, &u->context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_init failed: %s; check UCX_TLS and UCX_NET_DEVICES",
                    ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    /* Serialized: Shoal's lock keeps the threads that share it apart. */
    ucp_worker_params_t wparams = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_SERIALIZED,
    };
    st = ucp_worker_create(u->context, &wparams, &u->worker);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_create failed: %s", ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    /* Before the worker's address is published: no peer can send first. */
    ucp_am_handler_param_t am = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = UCX_AM_SYNC_ADD,
        .cb = ucx_sync_add_recv,
        .arg = u,
    };
    st = ucp_worker_set_am_recv_handler(u->worker, &am);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_set_am_recv_handler failed: %s", ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    st = ucp_worker_get_efd(u->worker, &u->efd);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_get_efd failed: %s; the UCX transports in use (UCX_TLS) must "
                    "support wake-up",
                    ucs_status_string(st));
        return SHOAL_ERR_UNSUPPORTED;
    }
    return SHOAL_OK;
}

/* Collective: every PE's worker address, in one bootstrap allgather. A PE
 * whose UCX failed to open takes part with an empty address, so the others
 * do not hang; they then report it. */
static shoal_status_t ucx_gather_addresses(ucx_t *u, int opened, shoal_bootstrap_gather_t *all_p)
{
    ucp_address_t *addr = NULL;
    size_t addr_len = 0;
    char key[64];
    shoal_status_t status = SHOAL_OK;
    if (opened) {
        ucs_status_t st = ucp_worker_get_address(u->worker, &addr, &addr_len);
        if (st != UCS_OK) {
            SHOAL_ERROR("ucp_worker_get_address failed: %s", ucs_status_string(st));
            status = SHOAL_ERR_SYSTEM;
            addr = NULL;
            addr_len = 0;
        }
    }
    snprintf(key, sizeof(key), "ucx.addr.%u", u->generation);
    shoal_status_t gather_status = shoal_bootstrap_allgather(
        u->bs, key, addr != NULL ? (const void *)addr : "", addr_len, all_p);
    if (addr != NULL)
        ucp_worker_release_address(u->worker, addr);
    if (!opened && gather_status == SHOAL_OK)
        shoal_bootstrap_gather_free(all_p);
    return status != SHOAL_OK ? status : gather_status;
}

/* An endpoint failed (the peer died, its host went away): what was in
 * flight to it will never complete, and the next quiet, fence or blocking
 * call must say so rather than return as if complete. */
static void ucx_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    ucx_peer_t *p = arg;
    p->failed = 1;
    /* A timeout is a peer that stopped answering, not one that closed. */
    const char *why =
        st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_TIMED_OUT || st == UCS_ERR_UNREACHABLE
            ? " (its host is unreachable: down, or the network link to it is cut)"
            : "";
    ucx_fail(p->u, SHOAL_ERR_IO, "the UCX connection to PE %d failed: %s%s", p->pe,
             ucs_status_string(st), why);
    __atomic_store_n(&p->u->failed, 1, __ATOMIC_RELEASE);
}

static shoal_status_t ucx_connect(ucx_t *u, int pe, const void *addr, size_t addr_len)
{
    ucx_peer_t *p = &u->peers[pe];
    shoal_status_t status = SHOAL_OK;
    if (addr_len == 0) {
        SHOAL_ERROR("PE %d has no UCX address: its UCX transport failed to open (see its "
                    "messages)",
                    pe);
        return SHOAL_ERR_UNREACHABLE;
    }
    p->u = u;
    p->pe = pe;
    /* Peer error handling: a dead peer fails the operations to it (and
     * calls ucx_ep_failed) instead of leaving them pending for ever. */
    ucp_ep_params_t ep_params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)addr,
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = {.cb = ucx_ep_failed, .arg = p},
    };
    ucx_lock(u); /* the progress thread runs */
    ucs_status_t st = ucp_ep_create(u->worker, &ep_params, &p->ep);
    ucx_unlock(u);
    if (st != UCS_OK) {
        SHOAL_ERROR("cannot create a UCX endpoint to PE %d: %s; check that UCX_TLS and "
                    "UCX_NET_DEVICES name a network both hosts share",
                    pe, ucs_status_string(st));
        p->ep = NULL;
        status = SHOAL_ERR_UNREACHABLE;
    }
    return status;
}

__attribute__((visibility("default"))) shoal_status_t
shoal_ucx_plugin_init_v6(const shoal_ucx_plugin_settings_t *set, shoal_bootstrap_t *bs,
                         unsigned generation, const uint8_t *mapped, shoal_transport_t **tr_p)
{
    shoal_status_t status;
    /* The plugin has its own copy of the logger: same level, same PE prefix. */
    shoal_log_level = set->level;
    shoal_log_configure(set->subsys, set->file);
    shoal_log_set_pe(bs->rank);
    ucx_t *u = calloc(1, sizeof(*u));
    if (u == NULL)
        return SHOAL_ERR_NOMEM;
    u->bs = bs;
    u->npes = bs->npes;
    u->efd = -1;
    u->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (u->wake_fd < 0) {
        SHOAL_ERROR("cannot make an eventfd for the UCX progress thread: %m");
        free(u);
        return SHOAL_ERR_SYSTEM;
    }
    u->generation = generation;
    u->peers = calloc((size_t)bs->npes, sizeof(*u->peers));
    if (u->peers == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out_release;
    }
    shoal_bootstrap_gather_t addrs = {0};
    status = ucx_open(u, set->net_timeout);
    shoal_status_t gather_status = ucx_gather_addresses(u, status == SHOAL_OK, &addrs);
    if (status == SHOAL_OK)
        status = gather_status;
    if (status != SHOAL_OK)
        goto out_release;

    /* Serve peers from here on: wire-up messages from PEs that connect to us
     * are handled even while this PE is still connecting. */
    if (pthread_create(&u->progress_thread, NULL, ucx_progress_main, u) != 0) {
        SHOAL_ERROR("cannot start the UCX progress thread: %m");
        status = SHOAL_ERR_SYSTEM;
        goto out_release;
    }
    u->progress_running = 1;

    int nremote = 0;
    for (int pe = 0; pe < bs->npes; pe++) {
        if (pe == bs->rank || mapped[pe])
            continue;
        size_t addr_len;
        const void *addr = shoal_bootstrap_gather_at(&addrs, pe, &addr_len);
        status = ucx_connect(u, pe, addr, addr_len);
        if (status != SHOAL_OK)
            goto out_release;
        nremote++;
    }
    shoal_bootstrap_gather_free(&addrs);
    SHOAL_DEBUG("UCX transport: %d PEs on other hosts", nremote);
    u->tr.ops = &ucx_ops;
    u->tr.priv = u;
    *tr_p = &u->tr;
    return SHOAL_OK;

out_release:
    shoal_bootstrap_gather_free(&addrs);
    ucx_release(u);
    return status;
}
