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
 * waited for), and quiet completes them: a worker flush for puts and
 * atomics, the gets' own requests for gets (their replies are their
 * completion, so a quiet after gets alone costs no extra round trip), the
 * targets' acknowledgements for puts with a signal (one active message
 * each, ucx_am.c). Endpoints use peer error handling: a peer that dies
 * fails what was in flight to it, and the next quiet or fence reports it
 * rather than returning as if complete.
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
 * The plugin's files, by concern (this header is their shared state):
 *   ucx_init.c      context and worker, the plugin's entry point, tear-down
 *   ucx_wireup.c    endpoints (connect, close) and memory registration
 *   ucx_rma.c       the data path: puts, gets, atomics
 *   ucx_am.c        the active messages: synchronization adds, put-with-signal
 *   ucx_complete.c  waiting for requests, quiet, pe_quiet, fence
 *   ucx_progress.c  the progress thread and its hand-over with the application
 *   ucx_error.c     failures: recording them, failed endpoints
 * ucx_load.c (in libshoal, not the plugin) loads it.
 *
 * Built as a plugin (libshoal_ucx.so, see ucx.h and ucx_load.c), with its
 * own copies of util/log.c and util/status.c.
 */
#ifndef SHOAL_TRANSPORT_UCX_INTERNAL_H
#define SHOAL_TRANSPORT_UCX_INTERNAL_H

#include <stdint.h>
#include <time.h>

#include <ucp/api/ucp.h>

#include "transport/ucx/ucx.h"
#include "util/clock.h"
#include "util/lock.h"
#include "util/log.h"

/* How one peer's symmetric memory is reached: per row of the route table,
 * its base there and the remote key. */
typedef struct {
    ucp_ep_h ep;
    ucp_rkey_h rkey[SHOAL_ROUTE_ROWS];
    uint64_t base[SHOAL_ROUTE_ROWS];
    uint64_t size[SHOAL_ROUTE_ROWS];
    struct ucx *u;
    uint8_t host[SHOAL_ROUTE_ROWS]; /* the row is host memory there */
    int pe;
    int failed; /* the endpoint's error handler ran */
    /* Puts with a signal as active messages (ucx_am.c): from this peer,
     * how many were applied here, and the acknowledgement to send it (its
     * buffer, which UCX reads until the send completes); to this peer, how
     * many it acknowledged. */
    uint64_t ps_applied;
    struct {
        uint64_t count;
        int32_t pe;
        int32_t reserved;
    } ps_ack;
    int ps_ack_queued; /* in u->ps_ack_queue */
    uint64_t ps_acked;
} ucx_peer_t;

/* What a PE publishes for each registered row; the packed key follows. */
typedef struct {
    uint64_t base;
    uint64_t size;
    uint32_t rkey_len;
    uint32_t row;
    uint32_t kind; /* shoal_mem_kind_t */
    uint32_t reserved;
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
    volatile int stop;      /* tells the progress thread to return */
    int failed;             /* some endpoint failed: nothing may complete as if well */
    uint64_t wait_yield_ns; /* a wait's yielding part (SHOAL_WAIT_YIELD_US) */
    uint32_t wait_sleep_ns; /* its sleep step's cap (SHOAL_WAIT_SLEEP_US) */
    int wait_sleep_grow;    /* the cap grows with the wait (shoal_sleep_next) */
    uint64_t app_ns;        /* when an application thread last progressed the worker (or will
                             * wake from its sleep on the events: ucx_app_active_for) */
    int polling;            /* the progress thread sleeps on the worker's events (ucx_app_active) */
    uint64_t issued;        /* operations issued that complete only by a flush */
    uint64_t flushed;       /* the first `flushed` of them are known complete */
    uint64_t discard;       /* where the replies of non-fetching SETs (swaps) go */
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
    /* This PE's registered GPU-memory rows: a put's source there is not
     * sent as an active message (the host cannot read it). */
    uint64_t dev_base[SHOAL_ROUTE_ROWS];
    uint64_t dev_size[SHOAL_ROUTE_ROWS];
    unsigned ndev_rows;
    /* Puts with a signal sent as active messages, and of them how many
     * their targets acknowledged (ucx_am.c); quiet waits for the two to
     * meet. Under the lock, read atomically. */
    uint64_t ps_sent;
    uint64_t ps_acked;
    /* Peers owed an acknowledgement: [nqueued], sent after progress. */
    int *ps_ack_queue;
    int ps_ack_nqueued;
    char error[256]; /* the last failure, for strerror */
} ucx_t;

/* ---- errors (ucx_error.c) ------------------------------------------------------ */

/* Records a failure (the core reports it, once) and returns the status. */
shoal_status_t ucx_fail(ucx_t *u, shoal_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *ucx_strerror(shoal_transport_t *tr);
/* The endpoints' error handler (ucp_ep_params_t.err_handler; arg: the ucx_peer_t). */
void ucx_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t st);

/* After a flush: an endpoint that failed meanwhile means some operation did
 * not complete, whatever the flush said. */
static inline shoal_status_t ucx_check_failed(ucx_t *u, shoal_status_t status)
{
    if (status == SHOAL_OK && __atomic_load_n(&u->failed, __ATOMIC_ACQUIRE))
        return SHOAL_ERR_IO; /* u->error names the peer (ucx_ep_failed) */
    return status;
}

/* ---- the lock and the application's activity (ucx_progress.c) ---------------- */

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

/* Wakes the progress thread from its stand-back or its poll. */
void ucx_wake(ucx_t *u);

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
 * it stands back.
 * `ns` > 0: the thread is about to sleep on the worker's events in a wait
 * (ucx_sleep, ucx_wait_step) for up to that long. It takes them itself, so
 * the progress thread stays back until then rather than take turns with it
 * on the events (each would sleep out wake-ups the other took). */
static inline void ucx_app_active_for(ucx_t *u, uint64_t ns)
{
    __atomic_store_n(&u->app_ns, shoal_clock_ns() + ns, __ATOMIC_RELAXED);
    if (__builtin_expect(__atomic_load_n(&u->polling, __ATOMIC_RELAXED), 0) &&
        __atomic_exchange_n(&u->polling, 0, __ATOMIC_ACQ_REL))
        ucx_wake(u);
}

static inline void ucx_app_active(ucx_t *u)
{
    ucx_app_active_for(u, 0);
}

/* Progresses the worker until it finds nothing more to do, or another
 * thread waits for the lock (it progresses the worker too); under the lock. */
unsigned ucx_drain(ucx_t *u);
/* The application thread is about to block outside the worker (a bootstrap
 * barrier) while peers may still need it: the progress thread serves them
 * from now on, without waiting for its stand-back to run out. */
void ucx_hand_over(ucx_t *u);
void *ucx_progress_main(void *arg);
void ucx_progress_stop(ucx_t *u);
unsigned ucx_progress(shoal_transport_t *tr);
unsigned ucx_sleep(shoal_transport_t *tr, uint64_t ns);
/* Under the lock: arms the worker's event fd, lets the lock go, sleeps on
 * the fd up to `ns` (woken by anything that arrives) and takes the lock
 * again; returns 1 after the sleep, 0 at once when events are waiting. The
 * caller keeps the progress thread back for the sleep (ucx_app_active_for). */
int ucx_doze(ucx_t *u, uint64_t ns);
void ucx_idle(shoal_transport_t *tr);

/* ---- completion (ucx_complete.c) ----------------------------------------------- */

/* Puts, non-blocking gets and non-fetching atomics complete at the target
 * only by a flush; quiet skips the flush (a round trip per endpoint in use)
 * when every such operation issued before it, by any thread, was covered by
 * a flush that has completed. Counted after the operation is issued. */
static inline void ucx_issued(ucx_t *u)
{
    __atomic_add_fetch(&u->issued, 1, __ATOMIC_RELEASE);
}

/* Waits for `req`, called and returning with the lock held. `pe` < 0: a
 * worker-wide operation. */
shoal_status_t ucx_wait(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe);
/* A non-blocking operation was started (under the lock): its request (if
 * any) is released when it completes, and the next flush waits for it. */
shoal_status_t ucx_started(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe);
/* A non-blocking get was started (under the lock): quiet waits for its request. */
shoal_status_t ucx_gets_add(ucx_t *u, ucs_status_ptr_t req, int pe);
shoal_status_t ucx_quiet(shoal_transport_t *tr);
shoal_status_t ucx_pe_quiet(shoal_transport_t *tr, const int *pes, size_t npes);
shoal_status_t ucx_fence(shoal_transport_t *tr);

/* ---- the data path (ucx_rma.c, ucx_am.c) ---------------------------------------- */

/* The remote address and key of `len` bytes at `r` on `pe`. */
shoal_status_t ucx_remote(ucx_t *u, int pe, shoal_remote_t r, size_t len, uint64_t *raddr_p,
                          ucp_rkey_h *rkey_p);
shoal_status_t ucx_put(shoal_transport_t *tr, int pe, shoal_remote_t dest, const void *source,
                       size_t len, int nbi);
shoal_status_t ucx_get(shoal_transport_t *tr, int pe, void *dest, shoal_remote_t source, size_t len,
                       int nbi);
shoal_status_t ucx_amo(shoal_transport_t *tr, int pe, shoal_remote_t dest, shoal_amo_op_t op,
                       size_t size, const void *operand, const void *compare, void *fetch_p);
shoal_status_t ucx_put_signal(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                              const void *source, size_t len, shoal_remote_t sig, uint64_t signal,
                              shoal_amo_op_t sig_op, int nbi);

/* Under the lock (ucx_rma.c): one put or get, and one atomic. */
shoal_status_t ucx_rma(ucx_t *u, int is_put, int pe, shoal_remote_t remote, void *local, size_t len,
                       int nbi);
shoal_status_t ucx_amo_locked(ucx_t *u, int pe, shoal_remote_t dest, shoal_amo_op_t op, size_t size,
                              const void *operand, const void *compare, void *fetch_p);

/* Sends the acknowledgements of puts with a signal applied here (ucx_am.c);
 * after each progress call, under the lock. */
void ucx_ps_ack_send(ucx_t *u);
static inline void ucx_ps_ack(ucx_t *u)
{
    if (__builtin_expect(u->ps_ack_nqueued != 0, 0))
        ucx_ps_ack_send(u);
}

/* A synchronization add as an active message (ucx_am.c); under the lock. */
shoal_status_t ucx_sync_add_send(ucx_t *u, int pe, shoal_remote_t dest, size_t size,
                                 uint64_t value);
/* Sets the worker's active-message handlers; before its address is published. */
shoal_status_t ucx_am_handlers_set(ucx_t *u);

/* ---- endpoints and memory (ucx_wireup.c) ---------------------------------------- */

shoal_status_t ucx_gather_addresses(ucx_t *u, int opened, shoal_bootstrap_gather_t *all_p);
shoal_status_t ucx_connect(ucx_t *u, int pe, const void *addr, size_t addr_len);
void ucx_close_endpoints(ucx_t *u);
shoal_status_t ucx_mem_register(shoal_transport_t *tr, unsigned row, void *base, size_t size,
                                shoal_mem_kind_t kind);
shoal_status_t ucx_mem_deregister(shoal_transport_t *tr, unsigned row);

#endif
