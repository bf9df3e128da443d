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
#include "core/flight.h"
#include "core/hang.h"
#include "core/team.h"

/* Waits until psync[w] reaches n, then takes n from it. A wait that comes
 * to yield says what it waits for (hang.h) until it ends. */
static void count_wait(shoal_hang_kind_t kind, const char *fn, const shoal_peset_t *set,
                       uint64_t *psync, int w, uint64_t n, int root)
{
    uint64_t *word = &psync[w];
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) < n) {
        const shoal_hang_what_t what = {.kind = kind,
                                        .fn = fn,
                                        .addr = word,
                                        .value = n,
                                        .set_start = set->start,
                                        .set_stride = set->stride,
                                        .set_size = set->size,
                                        .set_index = set->my_index,
                                        .psync = psync,
                                        .word = w,
                                        .root = root};
        shoal_backoff_t b = SHOAL_BACKOFF_FOR(&what);
        do
            shoal_backoff(&b);
        while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < n);
        if (b.recorded)
            shoal_hang_leave();
    }
    __atomic_fetch_sub(word, n, __ATOMIC_ACQ_REL);
}

void shoal_wait_count(const char *fn, const shoal_peset_t *set, uint64_t *psync, int w, uint64_t n,
                      int root)
{
    count_wait(SHOAL_HANG_COUNT, fn, set, psync, w, n, root);
}

void shoal_barrier(const char *fn, const shoal_peset_t *set, uint64_t *psync)
{
    const int n = set->size, me = set->my_index;
    /* This PE's count of barriers, for the flight recorder only. */
    static uint64_t barriers;
    uint64_t seq = 0;
    if (SHOAL_UNLIKELY(shoal_flight_on)) {
        seq = __atomic_add_fetch(&barriers, 1, __ATOMIC_RELAXED);
        shoal_flight_record(SHOAL_FLIGHT_BARRIER_ENTER, fn, -1, psync, seq, (uint64_t)n, 0, 0, 0);
    }
    for (int round = 0, dist = 1; dist < n; round++, dist <<= 1) {
        const uint64_t one = 1;
        int to = shoal_peset_world(set, (me + dist) % n);
        shoal_amo(fn, SHOAL_AMO_SYNC_ADD, &psync[round], sizeof(uint64_t), &one, NULL, NULL, to);
        count_wait(SHOAL_HANG_BARRIER, fn, set, psync, round, 1, -1);
    }
    if (seq != 0)
        shoal_flight_record(SHOAL_FLIGHT_BARRIER_LEAVE, fn, -1, psync, seq, (uint64_t)n, 0, 0, 0);
}

void shoal_sync_world(const char *fn)
{
    shoal_barrier(fn, &shoal_team_world.set, shoal_team_psync(&shoal_team_world));
}
