/*
 * The untyped RMA core. Every typed, sized and mem routine of the API is a
 * one-line call into these, with the element size folded into the byte
 * counts. Contiguous transfers to a mapped peer are one memcpy; the network
 * transport is used only when the peer lookup fails.
 */
#ifndef SHOAL_CORE_RMA_H
#define SHOAL_CORE_RMA_H

#include <string.h>

#include "core/error.h"
#include "core/peer.h"
#include "transport/transport.h"

void shoal_net_fail(const char *fn, shoal_status_t status, int pe) __attribute__((cold, noreturn));

SHOAL_INLINE void shoal_put(const char *fn, void *dest, const void *source, size_t len, int pe)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    void *p = shoal_peer_addr_or_fail(fn, "dest", dest, len, pe);
    if (SHOAL_LIKELY(p != NULL)) {
        memcpy(p, source, len);
        return;
    }
    shoal_status_t status = shoal_net->ops->put(shoal_net, dest, source, len, pe);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

SHOAL_INLINE void shoal_get(const char *fn, void *dest, const void *source, size_t len, int pe)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    const void *p = shoal_peer_addr_or_fail(fn, "source", source, len, pe);
    if (SHOAL_LIKELY(p != NULL)) {
        memcpy(dest, p, len);
        return;
    }
    shoal_status_t status = shoal_net->ops->get(shoal_net, dest, source, len, pe);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

/* Strided transfers: `nblocks` blocks of `bsize` elements of `elem` bytes;
 * block i starts at element i*dst of dest and i*sst of source. iput/iget are
 * the bsize == 1 case. `to_remote` selects put (1) or get (0). */
void shoal_strided(const char *fn, int to_remote, void *dest, const void *source,
                   ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe);

#endif
