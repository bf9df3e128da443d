/*
 * The UCX transport: one UCP worker per PE, an endpoint to every PE this PE
 * cannot map, and this PE's heap and globals segments registered in place
 * (ucp_mem_map on the existing mappings), so remote keys cover exactly the
 * symmetric memory. Worker addresses and packed remote keys travel through
 * the bootstrap. Endpoints are created from addresses without waiting for
 * the peer, and wire-up completes under either side's progress, so
 * connection setup cannot deadlock.
 *
 * UCX over TCP carries out RMA and atomics in software at the target: they
 * complete only when the target's worker progresses. A progress thread
 * sleeps in poll() on the worker's event fd (UCP_FEATURE_WAKEUP) and drains
 * the worker whenever something arrives, so a PE that computes or waits on
 * local memory still serves its peers. The worker is in multi-thread mode
 * because that thread and the application's threads share it.
 *
 * Every operation is completed locally before it returns (a put's source may
 * be reused, a get's or fetching atomic's result is there); remote completion
 * of puts and non-fetching atomics is what quiet (a worker flush) adds.
 *
 * Built as a plugin (libshoal_ucx.so, see ucx.h and load.c), with its own
 * copies of util/log.c and util/status.c.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ucp/api/ucp.h>

#include "transport/ucx/ucx.h"
#include "util/log.h"

/* How one peer's symmetric segments are reached. */
typedef struct {
    ucp_ep_h ep;
    ucp_rkey_h rkey[SHOAL_SEGMENT_COUNT];
    uint64_t base[SHOAL_SEGMENT_COUNT];
    uint64_t size[SHOAL_SEGMENT_COUNT];
} ucx_peer_t;

/* What a PE publishes besides its worker address: its segments and the
 * remote keys to them, packed keys following this header. */
typedef struct {
    uint64_t base[SHOAL_SEGMENT_COUNT];
    uint64_t size[SHOAL_SEGMENT_COUNT];
    uint32_t rkey_len[SHOAL_SEGMENT_COUNT];
} ucx_seg_info_t;

typedef struct {
    shoal_transport_t tr;
    shoal_bootstrap_t *bs;
    ucp_context_h context;
    ucp_worker_h worker;
    ucp_mem_h memh[SHOAL_SEGMENT_COUNT];
    uintptr_t local_base[SHOAL_SEGMENT_COUNT];
    size_t local_size[SHOAL_SEGMENT_COUNT];
    ucx_peer_t *peers; /* [npes]; ep NULL for mapped PEs and this PE */
    int npes;
    int efd;
    pthread_t progress_thread;
    int progress_running;
    volatile int stop; /* tells the progress thread to return */
    uint64_t app_ns;   /* when an application thread last progressed the worker */
    uint64_t issued;   /* operations issued that complete only by a flush */
    uint64_t flushed;  /* the first `flushed` of them are known complete */
} ucx_t;

/* Puts, non-blocking gets and non-fetching atomics complete at the target
 * only by a flush; quiet skips the flush (a round trip per endpoint in use)
 * when every such operation issued before it, by any thread, was covered by
 * a flush that has completed. Counted after the operation is issued. */
static void ucx_issued(ucx_t *u) { __atomic_add_fetch(&u->issued, 1, __ATOMIC_RELEASE); }

static int ucx_all_flushed(ucx_t *u, uint64_t *snap)
{
    *snap = __atomic_load_n(&u->issued, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&u->flushed, __ATOMIC_ACQUIRE) >= *snap;
}

/* A flush that started after `snap` operations were issued has completed. */
static void ucx_flushed(ucx_t *u, uint64_t snap)
{
    uint64_t cur = __atomic_load_n(&u->flushed, __ATOMIC_RELAXED);
    while (cur < snap && !__atomic_compare_exchange_n(&u->flushed, &cur, snap, 1,
                                                      __ATOMIC_RELEASE, __ATOMIC_RELAXED))
        ;
}

/* The progress thread stands back while application threads progress the
 * worker themselves (in a wait, or waiting for their own request), and
 * for this long after: two threads taking turns on the worker's lock cost
 * each operation tens of microseconds on a busy host (measured: 8-byte get
 * across two namespaces 9 us alone, 10-50 us with the thread competing). */
#define UCX_APP_ACTIVE_NS 500000u

static uint64_t ucx_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An application thread progresses the worker. */
static unsigned ucx_app_progress(ucx_t *u)
{
    __atomic_store_n(&u->app_ns, ucx_now_ns(), __ATOMIC_RELAXED);
    return ucp_worker_progress(u->worker);
}

/* ---- completion ------------------------------------------------------------- */

/* Waits for `req` by progressing the worker from the calling thread; on a
 * crowded host it yields, so the target PE gets a CPU. */
static shoal_status_t ucx_wait(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe)
{
    ucs_status_t st;
    if (req == NULL)
        return SHOAL_OK;
    if (UCS_PTR_IS_ERR(req)) {
        st = UCS_PTR_STATUS(req);
    } else {
        unsigned idle = 0;
        while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
            if (ucx_app_progress(u) != 0)
                idle = 0;
            else if (++idle > 64)
                sched_yield(); /* the target may need this CPU */
        }
        ucp_request_free(req);
    }
    if (st != UCS_OK) {
        if (pe >= 0)
            SHOAL_ERROR("UCX %s to PE %d failed: %s", what, pe, ucs_status_string(st));
        else
            SHOAL_ERROR("UCX %s failed: %s", what, ucs_status_string(st));
        return SHOAL_ERR_IO;
    }
    return SHOAL_OK;
}

/* The remote address and key of the `len` bytes at symmetric `addr` on `pe`. */
static shoal_status_t ucx_translate(ucx_t *u, const void *addr, size_t len, int pe,
                                    uint64_t *raddr_p, ucp_rkey_h *rkey_p)
{
    ucx_peer_t *p = &u->peers[pe];
    if (p->ep == NULL) {
        SHOAL_ERROR("PE %d has no UCX endpoint (it is mapped through shared memory)", pe);
        return SHOAL_ERR_UNREACHABLE;
    }
    for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++) {
        uintptr_t off = (uintptr_t)addr - u->local_base[s];
        if (off < u->local_size[s] && len <= u->local_size[s] - off) {
            if (p->rkey[s] == NULL || off + len > p->size[s]) {
                SHOAL_ERROR("PE %d's %s segment is not registered for remote access or "
                            "smaller than here",
                            pe, s == SHOAL_SEGMENT_HEAP ? "heap" : "globals");
                return SHOAL_ERR_INVALID;
            }
            *raddr_p = p->base[s] + off;
            *rkey_p = p->rkey[s];
            return SHOAL_OK;
        }
    }
    return SHOAL_ERR_INVALID;
}

/* ---- the data path -------------------------------------------------------------- */

/* Starts a put or get; with `wait`, completes it locally (the source may be
 * reused, the data of a get is there), else leaves completion to quiet. */
static shoal_status_t ucx_rma(shoal_transport_t *tr, int is_put, int wait, void *dest,
                              const void *source, size_t len, int pe)
{
    ucx_t *u = tr->priv;
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status =
        ucx_translate(u, is_put ? dest : source, len, pe, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;
    ucp_request_param_t param = {.op_attr_mask = 0};
    ucs_status_ptr_t req = is_put
                               ? ucp_put_nbx(u->peers[pe].ep, source, len, raddr, rkey, &param)
                               : ucp_get_nbx(u->peers[pe].ep, dest, len, raddr, rkey, &param);
    if (is_put || !wait)
        ucx_issued(u);
    if (wait || UCS_PTR_IS_ERR(req))
        return ucx_wait(u, req, is_put ? "put" : "get", pe);
    if (req != NULL)
        ucp_request_free(req); /* released when done; the next flush waits for it */
    return SHOAL_OK;
}

static shoal_status_t ucx_put(shoal_transport_t *tr, void *dest, const void *source, size_t len,
                              int pe)
{
    return ucx_rma(tr, 1, 1, dest, source, len, pe);
}

static shoal_status_t ucx_get(shoal_transport_t *tr, void *dest, const void *source, size_t len,
                              int pe)
{
    return ucx_rma(tr, 0, 1, dest, source, len, pe);
}

static shoal_status_t ucx_put_nbi(shoal_transport_t *tr, void *dest, const void *source,
                                  size_t len, int pe)
{
    return ucx_rma(tr, 1, 0, dest, source, len, pe);
}

static shoal_status_t ucx_get_nbi(shoal_transport_t *tr, void *dest, const void *source,
                                  size_t len, int pe)
{
    return ucx_rma(tr, 0, 0, dest, source, len, pe);
}

static shoal_status_t ucx_amo(shoal_transport_t *tr, shoal_amo_op_t op, void *dest, size_t size,
                              const void *operand, const void *compare, void *fetch_p, int pe)
{
    ucx_t *u = tr->priv;
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status = ucx_translate(u, dest, size, pe, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;

    /* Operand and reply, as `size`-byte integers at the start of each. */
    uint64_t value = 0, reply = 0;
    int fetching = 1;
    ucp_atomic_op_t opcode;
    if (operand != NULL)
        memcpy(&value, operand, size);
    switch (op) {
    case SHOAL_AMO_FETCH: opcode = UCP_ATOMIC_OP_OR; value = 0; break;
    case SHOAL_AMO_SET: /* a swap whose result nobody reads */
    case SHOAL_AMO_SWAP: opcode = UCP_ATOMIC_OP_SWAP; break;
    case SHOAL_AMO_CSWAP:
        /* UCX compares the remote value with `buffer` and stores the reply
         * buffer's value on a match. */
        opcode = UCP_ATOMIC_OP_CSWAP;
        memcpy(&reply, operand, size);
        memcpy(&value, compare, size);
        break;
    case SHOAL_AMO_SYNC_ADD: /* no flush needed: see ucx_issued */
    case SHOAL_AMO_ADD: fetching = 0; /* fall through */
    case SHOAL_AMO_FETCH_ADD: opcode = UCP_ATOMIC_OP_ADD; break;
    case SHOAL_AMO_AND: fetching = 0; /* fall through */
    case SHOAL_AMO_FETCH_AND: opcode = UCP_ATOMIC_OP_AND; break;
    case SHOAL_AMO_OR: fetching = 0; /* fall through */
    case SHOAL_AMO_FETCH_OR: opcode = UCP_ATOMIC_OP_OR; break;
    case SHOAL_AMO_XOR: fetching = 0; /* fall through */
    case SHOAL_AMO_FETCH_XOR: opcode = UCP_ATOMIC_OP_XOR; break;
    default: return SHOAL_ERR_INVALID;
    }

    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
        .datatype = ucp_dt_make_contig(size),
    };
    if (fetching) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = &reply;
    }
    ucs_status_ptr_t req = ucp_atomic_op_nbx(u->peers[pe].ep, opcode, &value, 1, raddr, rkey,
                                             &param);
    if (!fetching && op != SHOAL_AMO_SYNC_ADD)
        ucx_issued(u);
    status = ucx_wait(u, req, "atomic", pe);
    if (status == SHOAL_OK && fetching && op != SHOAL_AMO_SET)
        memcpy(fetch_p, &reply, size);
    return status;
}

static shoal_status_t ucx_quiet(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    uint64_t snap;
    if (ucx_all_flushed(u, &snap))
        return SHOAL_OK;
    ucp_request_param_t param = {.op_attr_mask = 0};
    shoal_status_t status =
        ucx_wait(u, ucp_worker_flush_nbx(u->worker, &param), "flush (quiet)", -1);
    if (status == SHOAL_OK)
        ucx_flushed(u, snap);
    return status;
}

/* Flushes the endpoints to `pes`: all started first, then waited for. */
static shoal_status_t ucx_pe_quiet(shoal_transport_t *tr, const int *pes, size_t npes)
{
    ucx_t *u = tr->priv;
    shoal_status_t status = SHOAL_OK;
    uint64_t snap;
    if (ucx_all_flushed(u, &snap))
        return SHOAL_OK;
    ucs_status_ptr_t reqs[64];
    int req_pe[64];
    size_t n = 0;
    for (size_t i = 0; i <= npes; i++) {
        if (i < npes && pes[i] >= 0 && pes[i] < u->npes && u->peers[pes[i]].ep != NULL) {
            ucp_request_param_t param = {.op_attr_mask = 0};
            req_pe[n] = pes[i];
            reqs[n++] = ucp_ep_flush_nbx(u->peers[pes[i]].ep, &param);
        }
        if (n == 64 || (i == npes && n > 0)) {
            for (size_t k = 0; k < n; k++) {
                shoal_status_t st = ucx_wait(u, reqs[k], "flush (pe_quiet)", req_pe[k]);
                if (status == SHOAL_OK)
                    status = st;
            }
            n = 0;
        }
    }
    return status;
}

static unsigned ucx_progress(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    unsigned total = 0, n;
    while ((n = ucx_app_progress(u)) != 0)
        total += n;
    return total;
}

/* Sleeps up to `ns` or until something arrives for the worker; for wait
 * loops, which then poll again. */
static unsigned ucx_sleep(shoal_transport_t *tr, uint64_t ns)
{
    ucx_t *u = tr->priv;
    unsigned total = ucx_progress(tr);
    if (total != 0 || ucp_worker_arm(u->worker) != UCS_OK)
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
    ucs_status_t st = ucp_worker_fence(u->worker);
    if (st != UCS_OK) {
        SHOAL_ERROR("UCX fence failed: %s", ucs_status_string(st));
        return SHOAL_ERR_IO;
    }
    return SHOAL_OK;
}

/* ---- the progress thread ------------------------------------------------------ */

static void *ucx_progress_main(void *arg)
{
    ucx_t *u = arg;
    struct pollfd pfd = {.fd = u->efd, .events = POLLIN};
    while (!u->stop) {
        /* Stand back while application threads progress the worker. */
        uint64_t since = ucx_now_ns() - __atomic_load_n(&u->app_ns, __ATOMIC_RELAXED);
        if (since < UCX_APP_ACTIVE_NS) {
            uint64_t ns = UCX_APP_ACTIVE_NS - since;
            struct timespec ts = {0, (long)ns};
            nanosleep(&ts, NULL);
            continue;
        }
        while (ucp_worker_progress(u->worker) != 0)
            ;
        ucs_status_t st = ucp_worker_arm(u->worker);
        if (st == UCS_ERR_BUSY)
            continue; /* events arrived meanwhile: drain them first */
        if (st != UCS_OK) {
            SHOAL_ERROR("ucp_worker_arm failed: %s; remote operations on this PE will stall",
                        ucs_status_string(st));
            break;
        }
        if (u->stop)
            break;
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
            SHOAL_ERROR("poll on the UCX worker's event fd failed: %m");
            break;
        }
    }
    return NULL;
}

static void ucx_progress_stop(ucx_t *u)
{
    if (!u->progress_running)
        return;
    u->stop = 1;
    ucp_worker_signal(u->worker); /* wakes the poll */
    pthread_join(u->progress_thread, NULL);
    u->progress_running = 0;
}

/* ---- set-up and tear-down ------------------------------------------------------ */

static void ucx_close_endpoints(ucx_t *u)
{
    for (int pe = 0; pe < u->npes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++)
            if (p->rkey[s] != NULL)
                ucp_rkey_destroy(p->rkey[s]);
        memset(p->rkey, 0, sizeof(p->rkey));
    }
    /* Start every close first, then wait: a flushing close may need the
     * peer, which is closing its endpoint to us at the same time. */
    ucs_status_ptr_t *reqs = calloc((size_t)u->npes, sizeof(*reqs));
    for (int pe = 0; pe < u->npes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        if (p->ep == NULL)
            continue;
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
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
}

static void ucx_release(ucx_t *u)
{
    ucx_progress_stop(u);
    if (u->peers != NULL)
        ucx_close_endpoints(u);
    free(u->peers);
    for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++)
        if (u->memh[s] != NULL)
            ucp_mem_unmap(u->context, u->memh[s]);
    if (u->worker != NULL)
        ucp_worker_destroy(u->worker);
    if (u->context != NULL)
        ucp_cleanup(u->context);
    free(u);
}

static void ucx_finalize(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_quiet(tr);
    ucx_close_endpoints(u);
    /* Peers may still be flushing their endpoints to us: keep serving them
     * (the progress thread runs) until everyone is done. */
    shoal_bootstrap_barrier(u->bs);
    ucx_release(u);
}

static const shoal_transport_ops_t ucx_ops = {
    .version = SHOAL_TRANSPORT_VERSION,
    .name = "ucx",
    .put = ucx_put,
    .get = ucx_get,
    .amo = ucx_amo,
    .quiet = ucx_quiet,
    .fence = ucx_fence,
    .finalize = ucx_finalize,
    .put_nbi = ucx_put_nbi,
    .get_nbi = ucx_get_nbi,
    .pe_quiet = ucx_pe_quiet,
    .progress = ucx_progress,
    .sleep = ucx_sleep,
};

static shoal_status_t ucx_open(ucx_t *u)
{
    ucp_config_t *config;
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK) {
        SHOAL_ERROR("reading the UCX configuration (UCX_* variables) failed: %s",
                    ucs_status_string(st));
        return SHOAL_ERR_INVALID;
    }
    /* The application's threads and the progress thread share the worker.
     * UCX guards it with a spinlock by default; with more threads than
     * CPUs a thread preempted while holding it stalls the others for a
     * whole time slice (milliseconds per operation here), so ask for a
     * mutex unless the user chose. */
    if (getenv("UCX_USE_MT_MUTEX") == NULL)
        ucp_config_modify(config, "USE_MT_MUTEX", "y");
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1,
    };
    st = ucp_init(&params, config, &u->context);
    ucp_config_release(config);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_init failed: %s; check UCX_TLS and UCX_NET_DEVICES",
                    ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    ucp_worker_params_t wparams = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = UCS_THREAD_MODE_MULTI,
    };
    st = ucp_worker_create(u->context, &wparams, &u->worker);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_create failed: %s", ucs_status_string(st));
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

/* Registers the segments and publishes the worker address and keys. */
static shoal_status_t ucx_publish(ucx_t *u, unsigned generation,
                                  const shoal_segment_t segs[SHOAL_SEGMENT_COUNT])
{
    shoal_status_t status = SHOAL_OK;
    void *rkey_buf[SHOAL_SEGMENT_COUNT] = {NULL};
    size_t total = sizeof(ucx_seg_info_t);
    ucx_seg_info_t info;
    char key[64];
    memset(&info, 0, sizeof(info));

    for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++) {
        if (segs[s].base == NULL)
            continue;
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
            .address = segs[s].base,
            .length = segs[s].size,
        };
        ucs_status_t st = ucp_mem_map(u->context, &mp, &u->memh[s]);
        if (st == UCS_OK) {
            size_t len;
            st = ucp_rkey_pack(u->context, u->memh[s], &rkey_buf[s], &len);
            info.rkey_len[s] = (uint32_t)len;
        }
        if (st != UCS_OK) {
            SHOAL_ERROR("registering the symmetric %s (%zu bytes at %p) with UCX failed: %s",
                        s == SHOAL_SEGMENT_HEAP ? "heap" : "globals", segs[s].size,
                        (void *)segs[s].base, ucs_status_string(st));
            status = SHOAL_ERR_SYSTEM;
            goto out;
        }
        u->local_base[s] = (uintptr_t)segs[s].base;
        u->local_size[s] = segs[s].size;
        info.base[s] = (uint64_t)(uintptr_t)segs[s].base;
        info.size[s] = segs[s].size;
        total += info.rkey_len[s];
    }

    char *blob = malloc(total);
    if (blob == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out;
    }
    memcpy(blob, &info, sizeof(info));
    size_t at = sizeof(info);
    for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++) {
        if (info.rkey_len[s] > 0)
            memcpy(blob + at, rkey_buf[s], info.rkey_len[s]);
        at += info.rkey_len[s];
    }
    snprintf(key, sizeof(key), "ucx.seg.%u", generation);
    status = shoal_bootstrap_put(u->bs, key, blob, total);
    free(blob);
    if (status != SHOAL_OK)
        goto out;

    ucp_address_t *addr;
    size_t addr_len;
    ucs_status_t st = ucp_worker_get_address(u->worker, &addr, &addr_len);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_get_address failed: %s", ucs_status_string(st));
        status = SHOAL_ERR_SYSTEM;
        goto out;
    }
    snprintf(key, sizeof(key), "ucx.addr.%u", generation);
    status = shoal_bootstrap_put(u->bs, key, addr, addr_len);
    ucp_worker_release_address(u->worker, addr);

out:
    for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++)
        if (rkey_buf[s] != NULL)
            ucp_rkey_buffer_release(rkey_buf[s]);
    return status;
}

/* Reads a value of unknown size from the bootstrap into a malloc'd buffer. */
static shoal_status_t ucx_bootstrap_get(shoal_bootstrap_t *bs, int pe, const char *key,
                                        char **value_p, size_t *len_p)
{
    size_t cap = 4096;
    for (;;) {
        char *buf = malloc(cap);
        if (buf == NULL)
            return SHOAL_ERR_NOMEM;
        shoal_status_t status = shoal_bootstrap_get(bs, pe, key, buf, cap, len_p);
        if (status == SHOAL_OK) {
            *value_p = buf;
            return SHOAL_OK;
        }
        free(buf);
        if (status != SHOAL_ERR_TRUNCATED || cap >= (1u << 20)) {
            SHOAL_ERROR("cannot read PE %d's %s from the bootstrap: %s", pe, key,
                        shoal_status_str(status));
            return status;
        }
        cap *= 4;
    }
}

static shoal_status_t ucx_connect(ucx_t *u, int pe, unsigned generation)
{
    ucx_peer_t *p = &u->peers[pe];
    char key[64], *blob = NULL, *addr = NULL;
    size_t len, addr_len;
    ucs_status_t st;

    snprintf(key, sizeof(key), "ucx.seg.%u", generation);
    shoal_status_t status = ucx_bootstrap_get(u->bs, pe, key, &blob, &len);
    if (status != SHOAL_OK)
        return status;
    snprintf(key, sizeof(key), "ucx.addr.%u", generation);
    status = ucx_bootstrap_get(u->bs, pe, key, &addr, &addr_len);
    if (status != SHOAL_OK)
        goto out;

    ucp_ep_params_t ep_params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
        .address = (const ucp_address_t *)addr,
    };
    st = ucp_ep_create(u->worker, &ep_params, &p->ep);
    if (st != UCS_OK) {
        SHOAL_ERROR("cannot create a UCX endpoint to PE %d: %s; check that UCX_TLS and "
                    "UCX_NET_DEVICES name a network both hosts share",
                    pe, ucs_status_string(st));
        p->ep = NULL;
        status = SHOAL_ERR_UNREACHABLE;
        goto out;
    }

    ucx_seg_info_t info;
    if (len < sizeof(info)) {
        status = SHOAL_ERR_IO;
        goto out;
    }
    memcpy(&info, blob, sizeof(info));
    size_t at = sizeof(info);
    for (int s = 0; s < SHOAL_SEGMENT_COUNT; s++) {
        if (info.rkey_len[s] == 0)
            continue;
        if (at + info.rkey_len[s] > len) {
            status = SHOAL_ERR_IO;
            goto out;
        }
        st = ucp_ep_rkey_unpack(p->ep, blob + at, &p->rkey[s]);
        if (st != UCS_OK) {
            SHOAL_ERROR("cannot unpack PE %d's remote key: %s", pe, ucs_status_string(st));
            p->rkey[s] = NULL;
            status = SHOAL_ERR_IO;
            goto out;
        }
        p->base[s] = info.base[s];
        p->size[s] = info.size[s];
        at += info.rkey_len[s];
    }
out:
    free(addr);
    free(blob);
    return status;
}

__attribute__((visibility("default"))) shoal_status_t
shoal_ucx_plugin_init_v3(int log_level, shoal_bootstrap_t *bs, unsigned generation,
                         const shoal_segment_t *segs, const uint8_t *mapped,
                         shoal_transport_t **tr_p)
{
    shoal_status_t status;
    /* The plugin has its own copy of the logger: same level, same PE prefix. */
    shoal_log_level = log_level;
    shoal_log_set_pe(bs->rank);
    ucx_t *u = calloc(1, sizeof(*u));
    if (u == NULL)
        return SHOAL_ERR_NOMEM;
    u->bs = bs;
    u->npes = bs->npes;
    u->efd = -1;
    u->peers = calloc((size_t)bs->npes, sizeof(*u->peers));
    if (u->peers == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out_release;
    }
    status = ucx_open(u);
    if (status == SHOAL_OK)
        status = ucx_publish(u, generation, segs);
    /* Every PE fences, even one that failed, so the others do not hang here. */
    shoal_status_t fence_status = shoal_bootstrap_fence(bs);
    if (status == SHOAL_OK)
        status = fence_status;
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
        status = ucx_connect(u, pe, generation);
        if (status != SHOAL_OK)
            goto out_release;
        nremote++;
    }
    SHOAL_DEBUG("UCX transport: %d PEs on other hosts", nremote);
    u->tr.ops = &ucx_ops;
    u->tr.priv = u;
    *tr_p = &u->tr;
    return SHOAL_OK;

out_release:
    ucx_release(u);
    return status;
}
