/*
 * lock: distributed locks.  All PEs repeatedly take a lock, do a
 * non-atomic read-modify-write (get, increment, put) of a counter on PE 0 and
 * release it; the total must be exact.  A second counter, incremented
 * atomically on entry and decremented on exit, must never be seen above
 * zero on entry (mutual exclusion).  Half the rounds rely on clear_lock to
 * complete the put (the specification says it does), half quiet first.
 * Then test_lock: it must fail while another PE holds the lock and a retry
 * loop must eventually succeed.  Locks on a global and on the heap.
 */
#include "check.h"

#define ITERS 100

static long g_lock;
static long g_counter;
static long g_inside;

static void critical_sections(long *lock, long *counter, long *inside, const char *where,
                              int use_test_lock)
{
    int npes = shmem_n_pes();
    char what[128];
    if (shmem_my_pe() == 0) {
        *counter = 0;
        *inside = 0;
    }
    shmem_barrier_all();
    for (int k = 0; k < ITERS; k++) {
        if (use_test_lock) {
            long tries = 0;
            while (shmem_test_lock(lock) != 0)
                tries++;
            (void)tries;
        } else {
            shmem_set_lock(lock);
        }
        long others = shmem_long_atomic_fetch_inc(inside, 0);
        CHECK(others == 0, "%s: %ld other PE(s) inside the critical section", where, others);
        long v = shmem_long_g(counter, 0);
        v++;
        shmem_long_p(counter, v, 0);
        if (k % 2)
            shmem_quiet();
        shmem_long_atomic_add(inside, -1, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s counter (%s)", where, use_test_lock ? "test_lock" : "set_lock");
    CHECK_EQ(what, shmem_long_g(counter, 0), (long)ITERS * npes);
    shmem_barrier_all();
}

/* While PE 0 holds the lock nobody else gets it; after release one does. */
static void test_lock_excludes(long *lock, const char *where)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    static long winners;
    winners = 0;
    shmem_barrier_all();
    if (me == 0) {
        CHECK(shmem_test_lock(lock) == 0, "%s: PE 0 could not take a free lock", where);
    }
    shmem_barrier_all();
    if (me != 0) {
        for (int i = 0; i < 5; i++)
            CHECK(shmem_test_lock(lock) == 1, "%s: test_lock succeeded while PE 0 held the lock",
                  where);
    }
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(lock);
    shmem_barrier_all();
    /* Everyone but PE 0 races; each winner keeps it until all have tried. */
    if (me != 0) {
        while (shmem_test_lock(lock) != 0)
            ;
        shmem_long_atomic_inc(&winners, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    CHECK_EQ("test_lock winners", shmem_long_atomic_fetch(&winners, 0), (long)(npes - 1));
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();

    long *h = shmem_calloc(3, sizeof(long)); /* lock, counter, inside */
    CHECK(h, "shmem_calloc failed");
    shmem_barrier_all();

    critical_sections(&h[0], &h[1], &h[2], "heap lock, heap counter", 0);
    critical_sections(&h[0], &h[1], &h[2], "heap lock, heap counter", 1);
    if (SHT_GLOBAL_CONTENTION_WORKS) {
        critical_sections(&g_lock, &g_counter, &g_inside, "global lock, global counter", 0);
        critical_sections(&g_lock, &g_counter, &g_inside, "global lock, global counter", 1);
        critical_sections(&g_lock, &h[1], &h[2], "global lock, heap counter", 0);
        test_lock_excludes(&g_lock, "global");
    }
    test_lock_excludes(&h[0], "heap");

    shmem_barrier_all();
    shmem_free(h);
    sht_pass("lock");
    shmem_finalize();
    return 0;
}
