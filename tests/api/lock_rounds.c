/*
 * lock_rounds: a lock is free once every holder released it and a barrier
 * passed.  OpenSHMEM 1.5 (sections 9.13 and 9.9.1): shmem_clear_lock releases
 * the lock so that another PE may take it, and shmem_barrier_all completes
 * every memory update issued before it.  In each of 200 rounds every PE takes
 * the lock, updates a counter on PE 0 non-atomically and releases it; after a
 * barrier one PE (a different one each round) must get the lock at once with
 * shmem_test_lock, releases it, and after another barrier every PE resets its
 * lock variable to 0 (a lock variable must be 0 before first use, and a
 * program may reset it between rounds when no PE holds it).  A release that
 * lands after the barrier shows as "held" in test_lock, or lands on the reset
 * value and makes the next round's shmem_set_lock wait forever (the job then
 * ends by the launcher's timeout).
 */
#include "check.h"

#define ROUNDS 200

static long g_lock;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *counter = shmem_calloc(1, sizeof(long));
    CHECK(counter != NULL, "shmem_calloc of the counter failed");

    for (int r = 0; r < ROUNDS; r++) {
        shmem_set_lock(&g_lock);
        long v = shmem_long_g(counter, 0);
        shmem_long_p(counter, v + 1, 0);
        shmem_clear_lock(&g_lock);
        shmem_barrier_all();

        if (me == r % npes) {
            int held = shmem_test_lock(&g_lock);
            CHECK(held == 0,
                  "round %d: shmem_test_lock found the lock held after every PE released it "
                  "and shmem_barrier_all passed",
                  r);
            shmem_clear_lock(&g_lock);
        }
        if (me == 0)
            CHECK_EQ("counter after the round", *counter, (long)(r + 1) * npes);
        shmem_barrier_all();

        g_lock = 0; /* the reset between rounds */
        shmem_barrier_all();
    }

    shmem_barrier_all();
    shmem_free(counter);
    sht_pass("lock_rounds");
    shmem_finalize();
    return 0;
}
