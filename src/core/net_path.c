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
    shoal_status_t status =
        kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI
            ? shoal_transport_put(shoal_net, pe, shoal_remote_of(w), local, len, nbi)
            : shoal_transport_get(shoal_net, pe, local, shoal_remote_of(w), len, nbi);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

void shoal_net_amo(const char *fn, shoal_amo_op_t op, int pe, const shoal_where_t *w, size_t size,
                   const void *operand, const void *compare, void *fetch_p)
{
    shoal_status_t status =
        shoal_transport_amo(shoal_net, pe, shoal_remote_of(w), op, size, operand, compare, fetch_p);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

/* Ends a blocking transport call that shoal_hang_simple opened. */
static void net_wait_end(const char *fn, shoal_status_t status)
{
    shoal_hang_leave();
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, -1);
}

void shoal_net_quiet(const char *fn)
{
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    net_wait_end(fn, shoal_transport_quiet(shoal_net));
}

void shoal_net_pe_quiet(const char *fn, const int *pes, size_t npes)
{
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    net_wait_end(fn, shoal_transport_pe_quiet(shoal_net, pes, npes));
}

void shoal_net_fence(const char *fn)
{
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    net_wait_end(fn, shoal_transport_fence(shoal_net));
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
