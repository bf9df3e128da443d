/*
 * Route rows added and removed while the job runs: a segment the heap grows
 * by, a buffer registered after the fact. Rows 0 to 2 are made at start-up
 * (heap, globals, device heap); the rows from SHOAL_ROWS_FIRST up are handed
 * out here, the same row number on every PE.
 *
 * Both calls are collective over all PEs (the world team), like the
 * allocations that use them; the caller keeps them in the same order on
 * every PE, and serializes them with other collectives (shoal.lock).
 */
#ifndef SHOAL_CORE_MEM_ROWS_H
#define SHOAL_CORE_MEM_ROWS_H

#include <stddef.h>

#include "mem/route.h"

/* The first row handed out at run time. */
#define SHOAL_ROWS_FIRST (SHOAL_ROUTE_DEVICE + 1)

/* Collective: makes [base, base + size) of every PE a route row, returned
 * (the same number on every PE), or -1 on every PE after one message naming
 * `call` when any PE could not take part (base NULL: this PE failed and said
 * why already), the sizes or kinds differ between PEs, or no row is free.
 * Each PE may pass its own base; the sizes must match. `memfd` (or -1) is
 * the memfd behind the range: local peers map it on first use through it,
 * so it must stay open until shoal_rows_remove. With a network transport
 * open, the row is registered with it (a failure there ends the job). */
int shoal_rows_add(void *base, size_t size, int memfd, shoal_mem_kind_t kind, const char *call);

/* Collective: the row is gone from every PE's table; peers' mappings of it
 * are unmapped and the network transport deregisters it. The caller made
 * sure no access to it is in flight (a quiet and a barrier) and still owns
 * the memory and its memfd. */
void shoal_rows_remove(int row);

/* The rows added and not removed yet (for tests and shoal-info). */
unsigned shoal_rows_count(void);

#endif
