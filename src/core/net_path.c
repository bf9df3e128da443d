/*
 * The network branch of the data path: what the route table sends to the
 * transport (transfers, atomics, completion and ordering), the
 * transport's error path, and shmem_pe_quiet's work.
 */
#include "core/amo.h"
#include "core/barrier.h"
#include "core/hang.h"
#include "core/rma.h"
#include "core/team.h"
#include "core/trace.h"

/* Network operations are trace events of their own (family "network"),
 * nested in the call that issued them. */
#define NET_TRACE_BEGIN() (SHOAL_UNLIKELY(shoal_trace_on) ? shoal_trace_net_begin() : 0)

void shoal_net_fail(const char *fn, shoal_status_t status, int pe)
{
    const char *why =
        shoal_net != NULL ? shoal_transport_strerror(shoal_net) : shoal_status_str(status);
    if (pe >= 0)
        shoal_fatal("%s: the operation with PE %d over %s failed: %s; the job cannot go on "
                    "with that PE",
                    fn, pe, shoal_net ? shoal_transport_name(shoal_net) : "the network", why);
    shoal_fatal("%s: completing this PE's network operations over %s failed: %s; they may not "
                "have reached their targets, so the job cannot go on",
                fn, shoal_net ? shoal_transport_name(shoal_net) : "the network", why);
}

void shoal_net_rma(const char *fn, shoal_rma_t kind, int pe, const shoal_where_t *w, void *local,
                   size_t len)
{
    const int nbi = kind == SHOAL_RMA_PUT_NBI || kind == SHOAL_RMA_GET_NBI;
    const uint64_t t0 = NET_TRACE_BEGIN();
    shoal_status_t status =
        kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI
            ? shoal_transport_put(shoal_net, pe, shoal_remote_of(w), local, len, nbi)
            : shoal_transport_get(shoal_net, pe, local, shoal_remote_of(w), len, nbi);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
    if (t0 != 0)
        shoal_trace_net_end(kind == SHOAL_RMA_PUT       ? "net put"
                            : kind == SHOAL_RMA_PUT_NBI ? "net put_nbi"
                            : kind == SHOAL_RMA_GET     ? "net get"
                                                        : "net get_nbi",
                            t0, pe, len);
}

void shoal_net_amo(const char *fn, shoal_amo_op_t op, int pe, const shoal_where_t *w, size_t size,
                   const void *operand, const void *compare, void *fetch_p)
{
    const uint64_t t0 = NET_TRACE_BEGIN();
    shoal_status_t status =
        shoal_transport_amo(shoal_net, pe, shoal_remote_of(w), op, size, operand, compare, fetch_p);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
    if (t0 != 0)
        shoal_trace_net_end("net amo", t0, pe, size);
}

/* Ends a blocking transport call that shoal_hang_simple opened. */
static void net_wait_end(const char *fn, shoal_status_t status)
{
    shoal_hang_leave();
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, -1);
}

/* quiet (fence 0) and fence (fence 1) over the transport: the same
 * records around a different call. */
static void net_order(const char *fn, int fence)
{
    int top = 0;
    const uint64_t t0 = SHOAL_UNLIKELY(shoal_trace_on) ? shoal_trace_order_begin(&top) : 0;
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    net_wait_end(fn, fence ? shoal_transport_fence(shoal_net) : shoal_transport_quiet(shoal_net));
    shoal_trace_order_end(fn, fence ? "net fence" : "net quiet", t0, top);
}

void shoal_net_quiet(const char *fn)
{
    net_order(fn, 0);
}

void shoal_net_pe_quiet(const char *fn, const int *pes, size_t npes)
{
    const uint64_t t0 = NET_TRACE_BEGIN();
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    net_wait_end(fn, shoal_transport_pe_quiet(shoal_net, pes, npes));
    if (t0 != 0)
        shoal_trace_net_end("net pe_quiet", t0, -1, 0);
}

void shoal_net_fence(const char *fn)
{
    net_order(fn, 1);
}

void shoal_pe_quiet(const char *fn, shmem_ctx_t ctx, const int *pes, size_t npes)
{
    int world[64]; /* flushed in batches of this many */
    size_t n = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (size_t i = 0; i < npes; i++) {
        world[n++] = shoal_ctx_world_pe(fn, ctx, pes[i]);
        if (!shoal_pe_valid(world[n - 1]))
            shoal_fatal("%s: target_pes[%zu] = %d is out of range; valid PEs are 0..%d", fn, i,
                        pes[i], SHOAL_NPES - 1);
        if (n == 64 || i + 1 == npes) {
            if (shoal.route.net)
                shoal_net_pe_quiet(fn, world, n);
            n = 0;
        }
    }
}
