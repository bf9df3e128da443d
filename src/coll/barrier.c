/*
 * The dissemination barrier over counting semaphores. In round r, the PE at
 * index i adds one to the round-r counter of index (i + 2^r) mod N and waits
 * for its own round-r counter to be positive, then takes one from it. A peer
 * that runs ahead into the next barrier just adds again; nothing is lost and
 * the counters are back at zero whenever no barrier is in progress.
 */
#include "coll/coll.h"
#include "core/backoff.h"
#include "core/amo.h"

void shoal_coll_wait_count(uint64_t *word, uint64_t n)
{
    shoal_backoff_t b = SHOAL_BACKOFF_INIT;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < n)
        shoal_backoff(&b);
    __atomic_fetch_sub(word, n, __ATOMIC_ACQ_REL);
}

void shoal_coll_barrier(const shoal_peset_t *set, uint64_t *psync)
{
    const int n = set->size, me = set->my_index;
    for (int round = 0, dist = 1; dist < n; round++, dist <<= 1) {
        const uint64_t one = 1;
        int to = shoal_peset_world(set, (me + dist) % n);
        shoal_amo("barrier", SHOAL_AMO_SYNC_ADD, &psync[round], sizeof(uint64_t), &one, NULL, NULL,
                  to);
        shoal_coll_wait_count(&psync[round], 1);
    }
}
