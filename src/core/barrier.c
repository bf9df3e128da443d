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
#include "core/hang.h"
#include "core/team.h"

/* Waits until psync[w] reaches n, then takes n from it. A wait whose first
 * check fails says what it waits for (hang.h); returns whether it did. */
static int count_wait(shoal_hang_kind_t kind, const char *fn, const shoal_peset_t *set,
                      uint64_t *psync, int w, uint64_t n, int root)
{
    uint64_t *word = &psync[w];
    int waited = 0;
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) < n) {
        shoal_hang_sync(kind, fn, set->start, set->stride, set->size, set->my_index, psync, w,
                        n, root);
        shoal_backoff_t b = SHOAL_BACKOFF_INIT;
        do
            shoal_backoff(&b);
        while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < n);
        waited = 1;
    }
    __atomic_fetch_sub(word, n, __ATOMIC_ACQ_REL);
    return waited;
}

void shoal_wait_count(const char *fn, const shoal_peset_t *set, uint64_t *psync, int w,
                      uint64_t n, int root)
{
    if (count_wait(SHOAL_HANG_COUNT, fn, set, psync, w, n, root))
        shoal_hang_leave();
}

void shoal_barrier(const char *fn, const shoal_peset_t *set, uint64_t *psync)
{
    const int n = set->size, me = set->my_index;
    int waited = 0;
    for (int round = 0, dist = 1; dist < n; round++, dist <<= 1) {
        const uint64_t one = 1;
        int to = shoal_peset_world(set, (me + dist) % n);
        shoal_amo(fn, SHOAL_AMO_SYNC_ADD, &psync[round], sizeof(uint64_t), &one, NULL, NULL, to);
        waited |= count_wait(SHOAL_HANG_BARRIER, fn, set, psync, round, 1, -1);
    }
    if (waited)
        shoal_hang_leave();
}

void shoal_sync_world(const char *fn)
{
    shoal_barrier(fn, &shoal_team_world.set, shoal_team_psync(&shoal_team_world));
}
