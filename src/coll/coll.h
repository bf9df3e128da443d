/*
 * Collective algorithms over a set of PEs on one host. Each PE reads its
 * peers' symmetric buffers directly through the peer mappings, so data moves
 * once (a pull), and PEs synchronize through counters in a psync area: a
 * team's slot, or the user's pSync for the deprecated active-set forms.
 *
 * One entry point per collective; the algorithm inside is chosen by size
 * and team size. An inter-node algorithm can be added behind the same
 * entry points.
 */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "core/alloc.h"
#include "core/barrier.h"
#include "core/check.h"
#include "core/host_layout.h"
#include "core/rma.h"
#include "core/team.h"
#include "util/env.h"

/* The `bytes` at `addr` (the argument `what` of `fn`) must be symmetric
 * memory of this PE: else the job ends with the data path's message (not
 * symmetric, or how far it runs past the end of the heap), instead of a
 * fault or a hang in the middle of the algorithm. */
static inline void shoal_coll_check_buffer(const char *fn, const char *what, const void *addr,
                                           size_t bytes)
{
    shoal_where_t w;
    shoal_route_pe(fn, what, addr, bytes, SHOAL_MY_PE, &w);
}

/* Every collective that writes `bytes` into dest calls this first, once it
 * knows there is something to write (a zero-length collective returns at
 * once on every PE, touching no buffer: they may be NULL). The range must
 * be symmetric (shoal_coll_check_buffer); under SHMEM_DEBUG a dest in a
 * symmetric heap allocation too small for `bytes` ends the job too, naming
 * the call and the sizes, instead of overflowing it. */
static inline void shoal_coll_check_dest(const char *fn, void *dest, size_t bytes)
{
    shoal_coll_check_buffer(fn, "dest", dest, bytes);
    if (__builtin_expect(shoal_env.debug, 0))
        shoal_alloc_check_room(fn, "dest", dest, bytes);
}

/* `count` elements of `elem` bytes, or the job ends naming `what` (an
 * element count whose byte size does not fit in size_t). */
static inline size_t shoal_coll_bytes(const char *fn, const char *what, size_t count, size_t elem)
{
    if (__builtin_expect(elem != 0 && count > SIZE_MAX / elem, 0))
        shoal_fatal("%s: %s %zu elements of %zu bytes is more memory than exists; pass the "
                    "number of elements, not bytes",
                    fn, what, count, elem);
    return count * elem;
}

/* Barriers over a set, the counting wait and shoal_net_complete (the
 * network transfers a collective started) are core's (core/barrier.h). */

/* The psync words past the barrier counters (SHOAL_PSYNC_WORDS in
 * core/state.h leaves room for them):
 *   SCRATCH        collect: each PE's block size
 *   HOST           sets spanning hosts: "the leader's data is ready"
 *   BCAST_READY    broadcast push, at the root: PEs that entered
 *   BCAST_ARRIVED  broadcast push, at the others: the data is in dest
 *   PUSH_ARRIVED   fcollect/alltoall push: blocks received (team forms: two
 *                  words alternating by call parity; a user's pSync: one)
 *   PUSH_CALLS     fcollect/alltoall/reduce push: this PE's count of such
 *                  calls on the team (a team slot only, never a user's pSync)
 *   PUSH_STAGE     small reductions pushed (reduce.c): the other PEs' blocks,
 *                  to the end of the area (a team: two halves by parity) */
#define SHOAL_PSYNC_BCAST_READY (SHOAL_PSYNC_SCRATCH + 2)
#define SHOAL_PSYNC_BCAST_ARRIVED (SHOAL_PSYNC_SCRATCH + 3)
#define SHOAL_PSYNC_PUSH_ARRIVED (SHOAL_PSYNC_SCRATCH + 4) /* and + 5 */
#define SHOAL_PSYNC_PUSH_CALLS (SHOAL_PSYNC_SCRATCH + 6)
#define SHOAL_PSYNC_PUSH_STAGE (SHOAL_PSYNC_SCRATCH + 8)
#define SHOAL_PSYNC_PUSH_STAGE_WORDS (SHOAL_PSYNC_WORDS - SHOAL_PSYNC_PUSH_STAGE)

/* Small fcollect (alltoall == 0) and alltoall (1) on one host, without a
 * barrier; returns 0 where that does not apply (then the
 * caller uses its barrier algorithm). See collect.c. */
int shoal_coll_push_exchange(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                             const void *source, size_t nbytes, int alltoall);

/* ---- sets that span hosts ----
 * Each host's first member in set order is its leader. Broadcast and large
 * reductions send data across hosts between leaders only; the other members
 * copy from their leader through shared memory once it says the data is
 * there (a count in the psync word SHOAL_PSYNC_HOST, back at zero after). */
#define SHOAL_PSYNC_HOST (SHOAL_PSYNC_SCRATCH + 1)

/* The leader tells the other members of its host that its data is ready;
 * each of them waits for that. */
void shoal_coll_host_notify(const char *fn, const shoal_peset_t *set, uint64_t *psync,
                            const shoal_hosts_t *h);
void shoal_coll_host_wait(const char *fn, const shoal_peset_t *set, uint64_t *psync);

/* `update_root`: team broadcasts also write dest on the root; active-set ones do not. */
void shoal_coll_broadcast(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                          const void *source, size_t nbytes, int root, int update_root);
void shoal_coll_fcollect(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                         const void *source, size_t nbytes);
void shoal_coll_collect(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                        const void *source, size_t nbytes);
void shoal_coll_alltoall(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                         const void *source, size_t nbytes);
void shoal_coll_alltoalls(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                          const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                          size_t nelems);

/* A reduction operator on one element type. */
typedef struct {
    size_t elem;
    /* acc[i] = acc[i] OP in[i] for i < n */
    void (*combine)(void *acc, const void *in, size_t n);
} shoal_reduce_op_t;

void shoal_coll_reduce(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                       const void *source, size_t count, const shoal_reduce_op_t *op);
/* Prefix sums: PE i gets the sum over PEs 0..i (inclusive) or 0..i-1. */
void shoal_coll_scan(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                     const void *source, size_t count, const shoal_reduce_op_t *op, int inclusive);

/* The active set (PE_start, logPE_stride, PE_size) as a PE set, written to
 * *set_p; ends the job with a message naming `fn` if it is malformed. Returns
 * 0 when this PE is not in the set: the caller then returns at once, as other
 * implementations do, after a warning once per call site `caller` (the user's
 * return address); under SHMEM_DEBUG that ends the job instead. */
int shoal_active_set(const char *fn, int PE_start, int logPE_stride, int PE_size,
                     const void *caller, shoal_peset_t *set_p);

#endif
