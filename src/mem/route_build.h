/*
 * Making and changing the route table (route.h), for start-up code, the
 * segment exchange and memory registration; the data path only reads it.
 */
#ifndef SHOAL_MEM_ROUTE_BUILD_H
#define SHOAL_MEM_ROUTE_BUILD_H

#include "mem/route.h"
#include "util/status.h"

/* An empty table for `npes` PEs seen from `my_pe` (npes stays 0: the data
 * path opens when the caller sets it). */
shoal_status_t shoal_route_create(shoal_route_t *rt, int npes, int my_pe);
void shoal_route_destroy(shoal_route_t *rt);

/* This PE's copy of row `row` (NULL: the row is absent here). */
void shoal_route_set_row(shoal_route_t *rt, unsigned row, void *base, size_t size,
                         shoal_mem_kind_t kind);

/* Where this process sees `pe`'s copy of `row` (NULL: not mapped). */
static inline void shoal_route_set_peer(shoal_route_t *rt, int pe, unsigned row, void *base)
{
    __atomic_store_n(shoal_route_peer_slot(rt, pe, row), (uintptr_t)base, __ATOMIC_RELEASE);
}

#endif
