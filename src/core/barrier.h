/*
 * Synchronization of all PEs, and the memory-ordering primitives.
 */
#ifndef SHOAL_CORE_BARRIER_H
#define SHOAL_CORE_BARRIER_H

#include "core/rma.h"

/* Dissemination barrier over all PEs through their internal flags:
 * ceil(log2 N) rounds, one remote store and one local wait per round. */
void shoal_sync_world(void);

/* Completes every outstanding operation of this PE. On a host, stores are
 * complete once issued; the fence keeps the compiler and CPU from moving
 * them past what follows. */
static inline void shoal_quiet(const char *fn)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
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

#endif
