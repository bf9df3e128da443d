/*
 * Strided RMA and the transport error path.
 */
#include "core/rma.h"

void shoal_net_fail(const char *fn, shoal_status_t status, int pe)
{
    shoal_fatal("%s: transfer with PE %d over %s failed: %s", fn, pe,
                shoal_net ? shoal_net->ops->name : "the network", shoal_status_str(status));
}

void shoal_net_rma(const char *fn, shoal_rma_t kind, void *dest, const void *source, size_t len,
                   int pe)
{
    const shoal_transport_ops_t *ops = shoal_net->ops;
    shoal_status_t status;
    switch (kind) {
    case SHOAL_RMA_PUT: status = ops->put(shoal_net, dest, source, len, pe); break;
    case SHOAL_RMA_GET: status = ops->get(shoal_net, dest, source, len, pe); break;
    case SHOAL_RMA_PUT_NBI: status = ops->put_nbi(shoal_net, dest, source, len, pe); break;
    default: status = ops->get_nbi(shoal_net, dest, source, len, pe); break;
    }
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

/* Byte range [lo, hi) touched by a strided access with stride `stride` elements. */
static void strided_extent(ptrdiff_t stride, size_t elem, size_t bsize, size_t nblocks,
                           ptrdiff_t *lo_p, ptrdiff_t *hi_p)
{
    ptrdiff_t last = (ptrdiff_t)(nblocks - 1) * stride * (ptrdiff_t)elem;
    ptrdiff_t block = (ptrdiff_t)(bsize * elem);
    *lo_p = last < 0 ? last : 0;
    *hi_p = (last < 0 ? 0 : last) + block;
}

void shoal_strided(const char *fn, int to_remote, void *dest, const void *source,
                   ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe)
{
    if (nblocks == 0 || bsize == 0)
        return;
    const void *remote = to_remote ? dest : source;
    ptrdiff_t rstride = to_remote ? dst : sst;
    ptrdiff_t lo, hi;
    strided_extent(rstride, elem, bsize, nblocks, &lo, &hi);
    char *mapped = shoal_peer_addr_or_fail(fn, to_remote ? "dest" : "source",
                                           (const char *)remote + lo, (size_t)(hi - lo), pe);
    const size_t block = bsize * elem;
    for (size_t i = 0; i < nblocks; i++) {
        char *d = (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem;
        const char *s = (const char *)source + (ptrdiff_t)i * sst * (ptrdiff_t)elem;
        if (mapped != NULL) {
            if (to_remote)
                memcpy(mapped - lo + (d - (char *)dest), s, block);
            else
                memcpy(d, mapped - lo + (s - (const char *)source), block);
            continue;
        }
        /* Another host: start every block, then wait for them together. */
        shoal_net_rma(fn, to_remote ? SHOAL_RMA_PUT_NBI : SHOAL_RMA_GET_NBI, d, s, block, pe);
    }
    if (mapped == NULL)
        shoal_net_pe_quiet(fn, &pe, 1);
}

static void net_complete_failed(const char *fn, shoal_status_t status)
{
    shoal_fatal("%s: completing transfers over %s failed: %s", fn, shoal_net->ops->name,
                shoal_status_str(status));
}

void shoal_net_quiet(const char *fn)
{
    shoal_status_t status = shoal_net->ops->quiet(shoal_net);
    if (status != SHOAL_OK)
        net_complete_failed(fn, status);
}

void shoal_net_pe_quiet(const char *fn, const int *pes, size_t npes)
{
    shoal_status_t status = shoal_net->ops->pe_quiet(shoal_net, pes, npes);
    if (status != SHOAL_OK)
        net_complete_failed(fn, status);
}

#include "core/amo.h"

void shoal_amo_misaligned(const char *fn, const void *dest, size_t size)
{
    shoal_fatal("%s: dest %p is not aligned to its %zu-byte type; atomics need naturally "
                "aligned objects",
                fn, dest, size);
}
