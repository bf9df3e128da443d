/*
 * Completion of this PE's own UCX operations: waiting for a request (each
 * step lets the progress thread and other threads have the worker), the
 * non-blocking gets kept for quiet, and quiet, pe_quiet and fence.
 */
#include <stdlib.h>

#include "transport/ucx/ucx_internal.h"

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

/* Where a wait for this PE's own operations stands. */
typedef struct {
    unsigned steps;    /* progress calls so far */
    unsigned idle;     /* of them, in a row, that found nothing */
    uint64_t idle_ns;  /* when the yielding steps began (0: not yet) */
    uint32_t sleep_ns; /* the last sleep on the worker's events */
} ucx_waiting_t;

/* A wait that has found nothing for SHOAL_WAIT_YIELD_US sleeps on the
 * worker's events instead (woken at once by anything arriving), in steps
 * that grow with the wait (shoal_sleep_next), so a flush stuck on a
 * broken link, or a get from a PE that stopped serving, costs no CPU:
 * yielding, it kept every CPU it could get busy. Under the lock, which the
 * sleep lets go (ucx_doze). */
static void ucx_wait_sleep(ucx_t *u, ucx_waiting_t *w)
{
    uint64_t now = shoal_clock_ns();
    if (now - w->idle_ns < u->wait_yield_ns) {
        shoal_lock_pass(&u->lock, 1);
        return;
    }
    w->sleep_ns =
        shoal_sleep_next(w->sleep_ns, now - w->idle_ns, u->wait_sleep_ns, u->wait_sleep_grow);
    ucx_app_active_for(u, w->sleep_ns);
    ucx_doze(u, w->sleep_ns);
}

/* One step of a wait, from the calling thread, under the lock: progress
 * the worker; when that found nothing, or another thread waits for the
 * lock, let it go for a moment (the progress thread and the application's
 * other threads get their turn: shoal_lock_pass), after 64 such steps
 * yield the CPU at each, so on a crowded host the target PE gets one, and
 * after SHOAL_WAIT_YIELD_US sleep (ucx_wait_sleep). The activity stamp is
 * renewed every 32 steps (each is a system call): often enough for the
 * progress thread's 0.5 ms, without a clock read per step. */
static void ucx_wait_step(ucx_t *u, ucx_waiting_t *w)
{
    if ((w->steps++ & 31) == 0)
        ucx_app_active(u);
    if (ucp_worker_progress(u->worker) != 0) {
        ucx_ps_ack(u);
        w->idle = 0;
        w->idle_ns = 0;
        w->sleep_ns = 0;
        if (shoal_lock_waited_for(&u->lock))
            shoal_lock_pass(&u->lock, 0);
        return;
    }
    if (++w->idle <= 64) { /* after 64: the target may need this CPU */
        shoal_lock_pass(&u->lock, 0);
        return;
    }
    if (w->idle_ns == 0)
        w->idle_ns = shoal_clock_ns();
    ucx_wait_sleep(u, w);
}

/* Waits for `req` (ucx_wait_step), called and returning with the lock
 * held. `pe` < 0: a worker-wide operation. */
shoal_status_t ucx_wait(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe)
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
shoal_status_t ucx_started(ucx_t *u, ucs_status_ptr_t req, const char *what, int pe)
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
shoal_status_t ucx_gets_add(ucx_t *u, ucs_status_ptr_t req, int pe)
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

/* Puts with a signal sent as active messages complete when their target
 * acknowledges them (ucx_am.c). */
static shoal_status_t ucx_ps_complete(ucx_t *u)
{
    uint64_t snap = __atomic_load_n(&u->ps_sent, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&u->ps_acked, __ATOMIC_ACQUIRE) >= snap)
        return SHOAL_OK; /* none outstanding (the usual case) */
    ucx_waiting_t w = {0};
    while (__atomic_load_n(&u->ps_acked, __ATOMIC_ACQUIRE) < snap) {
        if (__atomic_load_n(&u->failed, __ATOMIC_ACQUIRE))
            return SHOAL_ERR_IO; /* u->error names the peer (ucx_ep_failed) */
        ucx_wait_step(u, &w);
    }
    return SHOAL_OK;
}

shoal_status_t ucx_quiet(shoal_transport_t *tr)
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
    if (gets == SHOAL_OK)
        gets = ucx_ps_complete(u);
    ucx_unlock(u);
    return ucx_check_failed(u, status != SHOAL_OK ? status : gets);
}

/* Flushes the endpoints to `pes`: all started first, then waited for. */
shoal_status_t ucx_pe_quiet(shoal_transport_t *tr, const int *pes, size_t npes)
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
    if (gets == SHOAL_OK)
        gets = ucx_ps_complete(u); /* all of them: completing more is allowed */
    ucx_unlock(u);
    return ucx_check_failed(u, status != SHOAL_OK ? status : gets);
}

shoal_status_t ucx_fence(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    ucs_status_t st = ucp_worker_fence(u->worker);
    ucx_unlock(u);
    if (st != UCS_OK)
        return ucx_fail(u, SHOAL_ERR_IO, "UCX fence failed: %s", ucs_status_string(st));
    return ucx_check_failed(u, SHOAL_OK);
}
