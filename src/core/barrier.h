/*
 * Synchronization of all PEs, and the memory-ordering primitives.
 */
#ifndef SHOAL_CORE_BARRIER_H
#define SHOAL_CORE_BARRIER_H

#include "core/rma.h"
#include "core/team.h"

/* Dissemination barrier over `set` (on behalf of the call `fn`): ceil(log2 N) rounds of one remote
 * atomic add and one local wait on the counting semaphores psync[0..],
 * which return to zero, so a user's pSync is left as it was given. */
void shoal_barrier(const char *fn, const shoal_peset_t *set, uint64_t *psync);

/* The barrier of all PEs, on SHMEM_TEAM_WORLD's slot (library use). */
void shoal_sync_world(const char *fn);

/* Waits until the local counter psync[w] reaches n, then takes n from it.
 * `fn`, the set and the root (an index in the set, or -1) only describe
 * the wait to a hang report (core/hang.h). */
void shoal_wait_count(const char *fn, const shoal_peset_t *set, uint64_t *psync, int w, uint64_t n,
                      int root);

/* Completes every outstanding operation of this PE. On a host, stores are
 * complete once issued; the fence keeps the compiler and CPU from moving
 * them past what follows. */
static inline void shoal_quiet(const char *fn)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(shoal_net != NULL, 0))
        shoal_net_quiet(fn);
}

/* Completes only the network part of what this PE started (collectives:
 * transfers to PEs of this host are complete once issued, and the
 * collective's own synchronization orders them). */
static inline void shoal_net_complete(const char *fn)
{
    if (__builtin_expect(shoal_net != NULL, 0))
        shoal_net_quiet(fn);
}

/* Orders earlier puts and AMOs to each PE before later ones to the same PE. */
static inline void shoal_fence(const char *fn)
{
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (__builtin_expect(shoal_net != NULL, 0))
        shoal_net_fence(fn);
}

/* Completes this PE's operations to `pes` (PE numbers in ctx's team): the
 * stores to PEs of this host are complete once issued; to others, only the
 * transport's endpoints to them are flushed (core/net_path.c). */
void shoal_pe_quiet(const char *fn, shmem_ctx_t ctx, const int *pes, size_t npes);

#endif
