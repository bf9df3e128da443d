/*
 * Check mode (SHOAL_CHECK=1, and under SHMEM_DEBUG): checks that cost a
 * barrier or a scan, for programs under test. Off, each check is one
 * predictable branch on a path that is not a fast path (collectives,
 * allocation); the RMA and AMO fast paths are untouched.
 *
 *  - Collectives: at entry every member publishes what it is calling (the
 *    routine, the root, the byte count, one more argument) and its count of
 *    collectives on the team; after a barrier each member compares with the
 *    team's first member. A different routine is a desync (some PE skipped
 *    or added a collective), a different argument a mismatch; either ends
 *    the job with both PEs' calls. The deprecated active-set forms (a
 *    user's pSync, no team) are not checked.
 *  - Puts and gets are checked at the call against the allocation they
 *    land in (the routed path, core/rma_route.c): one past an allocation's
 *    end, or into a freed one, ends the job naming the PE that made it.
 *  - shmem_finalize is compared like a collective, so a PE that finalizes
 *    while others are in a barrier (or the other way round) is named.
 *  - Symmetric allocations get a guard zone after their end, checked at
 *    shmem_free and at shmem_finalize (for the owner's own stores); freed blocks are poisoned and
 * kept back from reuse for a while, and a write into one is reported when it leaves quarantine or
 * at shmem_finalize (core/alloc.c).
 */
#ifndef SHOAL_CORE_CHECK_H
#define SHOAL_CORE_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "core/team.h"

/* Whether check mode is on (set at init from the settings). */
extern int shoal_check_on;

/* A collective is starting on `set` with team synchronization area
 * `psync`: root (-1 when none), the bytes this PE contributes or receives
 * (0 where PEs may differ), and one more argument to compare (0 if none). */
void shoal_check_coll_slow(const char *fn, const shoal_peset_t *set, uint64_t *psync, int root,
                           uint64_t nbytes, uint64_t extra);
static inline void shoal_check_coll(const char *fn, const shoal_peset_t *set, uint64_t *psync,
                                    int root, uint64_t nbytes, uint64_t extra)
{
    if (__builtin_expect(shoal_check_on, 0))
        shoal_check_coll_slow(fn, set, psync, root, nbytes, extra);
}

/* A transfer of `len` bytes between `remote` (the other PE's buffer, as
 * mapped here) and `local` on this PE: ends the job when they overlap (the
 * spec leaves that undefined). Check mode sends every transfer through the
 * routed path (core/rma_route.c), so the inline fast path is untouched. */
void shoal_check_overlap(const char *fn, int is_put, const void *remote, const void *symmetric,
                         const void *local, size_t len, int pe);

/* A team was made in `slot`: its count of collectives starts again. */
void shoal_check_team_new(int slot);

/* ---- the symmetric heap (core/check_heap.c; callers hold shoal.lock) ---- */

/* Bytes of guard zone after every allocation, at least. */
#define SHOAL_CHECK_GUARD 64

/* What to ask the allocator for when the program asks for `size`. */
size_t shoal_check_heap_request(size_t size);
/* A block of `span` bytes at ptr now holds an allocation of `size` bytes. */
void shoal_check_heap_allocated(const char *fn, void *ptr, size_t size, size_t span);
/* The size the program asked for at ptr, or 0 when it is not an allocation. */
size_t shoal_check_heap_size(const void *ptr);
/* The program frees ptr: checks its guard zone, poisons it and keeps it
 * from the allocator for a while; 0 when ptr is not an allocation (the
 * caller frees it as usual). */
int shoal_check_heap_freed(const char *fn, void *ptr);
/* Returns every quarantined block to the allocator (after checking it);
 * whether there was any. */
int shoal_check_heap_drain(const char *fn);
/* A put (is_put) or get of `len` bytes at `symmetric` (this PE's name for
 * the address) on PE `pe`, checked against the allocation it lands in:
 * ends the job, naming this PE as the writer or reader, when it runs past
 * the allocation's end or lands in a freed one. Any thread may call it. */
void shoal_check_heap_access(const char *fn, int is_put, int pe, const void *symmetric, size_t len);
/* Checks every allocation's guard zone and every quarantined block. */
void shoal_check_heap_finalize(const char *fn);

#endif
