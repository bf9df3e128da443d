/*
 * Barriers over a set of PEs, and the counting wait they are made of; the
 * collectives (src/coll/) and the library's own world barrier (allocation,
 * team splits) use them.
 *
 * The dissemination barrier over counting semaphores: in round r, the PE at
 * index i adds one to the round-r counter of index (i + 2^r) mod N and waits
 * for its own round-r counter to be positive, then takes one from it. A peer
 * that runs ahead into the next barrier just adds again; nothing is lost and
 * the counters are back at zero whenever no barrier is in progress.
 */
#include "core/amo.h"
#include "core/backoff.h"
#include "core/barrier.h"
#include "core/team.h"

void shoal_wait_count(uint64_t *word, uint64_t n)
{
    shoal_backoff_t b = SHOAL_BACKOFF_INIT;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < n)
        shoal_backoff(&b);
    __atomic_fetch_sub(word, n, __ATOMIC_ACQ_REL);
}

void shoal_barrier(const shoal_peset_t *set, uint64_t *psync)
{
    const int n = set->size, me = set->my_index;
    for (int round = 0, dist = 1; dist < n; round++, dist <<= 1) {
        const uint64_t one = 1;
        int to = shoal_peset_world(set, (me + dist) % n);
        shoal_amo("barrier", SHOAL_AMO_SYNC_ADD, &psync[round], sizeof(uint64_t), &one, NULL, NULL,
                  to);
        shoal_wait_count(&psync[round], 1);
    }
}

void shoal_sync_world(void)
{
    shoal_barrier(&shoal_team_world.set, shoal_team_psync(&shoal_team_world));
}
