/*
 * Routing for the data path: every RMA, AMO, signal and shmem_ptr asks the
 * route table (mem/route.h) where (pe, address, length) is. A local answer
 * is a pointer to load and store through; a network answer is (row,
 * offset) for the transport; only the error answer leaves the fast path,
 * for a diagnosis that names the call, the argument and the cause.
 */
#ifndef SHOAL_CORE_PEER_H
#define SHOAL_CORE_PEER_H

#include <stddef.h>

#include "core/state.h"

static inline int shoal_pe_valid(int pe)
{
    return (unsigned)pe < (unsigned)SHOAL_NPES;
}

/* Local address of the `len` bytes at symmetric address `addr` on PE `pe`,
 * or NULL when they are not symmetric or `pe`'s memory is not mapped here.
 * Any `pe` may be given (out of range: NULL). */
SHOAL_INLINE void *shoal_peer_addr(const void *addr, size_t len, int pe)
{
    shoal_where_t w;
    return shoal_route_find(&shoal.route, pe, addr, len, &w) == SHOAL_ROUTE_LOCAL ? w.ptr : NULL;
}

/* The error branch of shoal_route_pe: says why (pe, addr, len) cannot be
 * reached, naming the call (`fn`) and the argument (`what`), and ends the
 * job. */
void shoal_route_fail(const char *fn, const char *what, const void *addr, size_t len, int pe)
    __attribute__((cold, noreturn));

/* shmemx_addr_check: 0 when (addr, len) is reachable on `pe`; else -1 and
 * the message shoal_route_fail would end the job with, written into msg. */
int shoal_route_check(const char *fn, const char *what, const void *addr, size_t len, int pe,
                      char *msg, size_t msglen);

/* Routes an access of the data path: returns SHOAL_ROUTE_LOCAL (w->ptr) or
 * SHOAL_ROUTE_NET (w->row, w->off), or ends the job with a message. */
SHOAL_INLINE shoal_route_kind_t shoal_route_pe(const char *fn, const char *what, const void *addr,
                                               size_t len, int pe, shoal_where_t *w)
{
    shoal_route_kind_t k = shoal_route_find(&shoal.route, pe, addr, len, w);
    if (SHOAL_UNLIKELY(k == SHOAL_ROUTE_ERROR))
        shoal_route_fail(fn, what, addr, len, pe);
    return k;
}

#endif
