/*
 * Routing: translate (address, PE) to a pointer this process can use. The
 * fast path of every RMA, AMO and shmem_ptr is this lookup; only when it
 * fails does a call go to the network transport, or to the error path.
 */
#ifndef SHOAL_CORE_PEER_H
#define SHOAL_CORE_PEER_H

#include <stddef.h>

#include "core/state.h"

/* Local address of the `len` bytes at symmetric address `addr` on PE `pe`,
 * or NULL when they are not symmetric or `pe`'s memory is not mapped here.
 * `pe` must already be known to be in range. */
SHOAL_INLINE void *shoal_peer_addr(const void *addr, size_t len, int pe)
{
    uintptr_t off = (uintptr_t)addr - shoal.heap_base;
    if (SHOAL_LIKELY(off < shoal.heap_size)) {
        char *base = shoal.peers[pe].base[SHOAL_SEGMENT_HEAP];
        if (SHOAL_UNLIKELY(len > shoal.heap_size - off || base == NULL))
            return NULL;
        return base + off;
    }
    off = (uintptr_t)addr - shoal.data_base;
    if (off < shoal.data_size && len <= shoal.data_size - off) {
        char *base = shoal.peers[pe].base[SHOAL_SEGMENT_DATA];
        return base ? base + off : NULL;
    }
    return NULL;
}

static inline int shoal_pe_valid(int pe)
{
    return (unsigned)pe < (unsigned)shoal.npes;
}

/* Translates or ends the job with a message naming the call (`fn`), the
 * argument (`what`), its value and the cause. Used by the data path. */
static inline void *shoal_peer_addr_or_fail(const char *fn, const char *what, const void *addr,
                                            size_t len, int pe);

/* The cold path behind shoal_peer_addr_or_fail: reports why the lookup failed. */
void *shoal_peer_addr_fail(const char *fn, const char *what, const void *addr, size_t len,
                           int pe) __attribute__((cold));

SHOAL_INLINE void *shoal_peer_addr_or_fail(const char *fn, const char *what, const void *addr,
                                            size_t len, int pe)
{
    void *p;
    if (SHOAL_LIKELY(shoal_pe_valid(pe) && (p = shoal_peer_addr(addr, len, pe)) != NULL))
        return p;
    return shoal_peer_addr_fail(fn, what, addr, len, pe);
}

#endif
