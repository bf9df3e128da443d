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

/* A call to the network transport failed: ends the job naming the call, the
 * PE and the transport's own account of the failure. */
void shoal_net_fail(const char *fn, shoal_status_t status, int pe) __attribute__((cold, noreturn));

/* The four kinds of transfer; the _NBI ones complete at the next quiet. */
typedef enum { SHOAL_RMA_PUT, SHOAL_RMA_GET, SHOAL_RMA_PUT_NBI, SHOAL_RMA_GET_NBI } shoal_rma_t;

static inline shoal_remote_t shoal_remote_of(const shoal_where_t *w)
{
    return (shoal_remote_t){.row = w->row, .off = w->off};
}

/* A transfer with a PE this PE does not map, at `w` on it: through the
 * network transport (the route already said where). */
void shoal_net_rma(const char *fn, shoal_rma_t kind, int pe, const shoal_where_t *w, void *local,
                   size_t len);

/* A local copy that touches GPU memory (a device heap, or a device buffer
 * of the caller's): the copy engine moves it, complete on return; a failure
 * ends the job (core/rma_route.c). */
void shoal_rma_device_copy(const char *fn, void *dst, const void *src, size_t len);

/* Every transfer the inline lookup did not map (core/rma_route.c): routed
 * in full, then local (a row past the inline ones), the network, or the
 * error message. */
void shoal_rma_routed(const char *fn, shoal_rma_t kind, void *dest, const void *source, size_t len,
                      int pe);

/* The inline path leaves a NULL local buffer to fault in its memcpy, and the
 * fault handler names the call (core/fault.c): a check would cost every
 * transfer. UBSan stops at the NULL argument to memcpy before that fault, so
 * a build with it sends a NULL local buffer the routed way, which names it
 * the same way (the release fast path is unchanged). */
#if defined(SHOAL_SANITIZE_UNDEFINED)
#define SHOAL_RMA_LOCAL_IS_NULL(p) ((p) == NULL)
#else
#define SHOAL_RMA_LOCAL_IS_NULL(p) 0
#endif

SHOAL_INLINE void shoal_rma(const char *fn, shoal_rma_t kind, void *dest, const void *source,
                            size_t len, int pe)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    const int is_put = kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI;
    void *p = shoal_route_ptr(&shoal.route_fast, pe, is_put ? dest : source, len);
    if (SHOAL_LIKELY(p != NULL) && !SHOAL_RMA_LOCAL_IS_NULL(is_put ? source : dest)) {
        if (is_put)
            memcpy(p, source, len);
        else
            memcpy(dest, p, len);
        return;
    }
    shoal_rma_routed(fn, kind, dest, source, len, pe);
}

SHOAL_INLINE void shoal_put(const char *fn, void *dest, const void *source, size_t len, int pe)
{
    shoal_rma(fn, SHOAL_RMA_PUT, dest, source, len, pe);
}

SHOAL_INLINE void shoal_get(const char *fn, void *dest, const void *source, size_t len, int pe)
{
    shoal_rma(fn, SHOAL_RMA_GET, dest, source, len, pe);
}

SHOAL_INLINE void shoal_put_nbi(const char *fn, void *dest, const void *source, size_t len, int pe)
{
    shoal_rma(fn, SHOAL_RMA_PUT_NBI, dest, source, len, pe);
}

SHOAL_INLINE void shoal_get_nbi(const char *fn, void *dest, const void *source, size_t len, int pe)
{
    shoal_rma(fn, SHOAL_RMA_GET_NBI, dest, source, len, pe);
}

/* Completes all of this PE's network transfers (shoal_net must be set). */
void shoal_net_quiet(const char *fn);

/* Completes this PE's network transfers to `pes` (shoal_net must be set). */
void shoal_net_pe_quiet(const char *fn, const int *pes, size_t npes);

/* Orders this PE's network operations to each PE (shoal_net must be set). */
void shoal_net_fence(const char *fn);

/* Strided transfers: `nblocks` blocks of `bsize` elements of `elem` bytes;
 * block i starts at element i*dst of dest and i*sst of source. iput/iget are
 * the bsize == 1 case. `to_remote` selects put (1) or get (0). */
void shoal_strided(const char *fn, int to_remote, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe);

#endif
