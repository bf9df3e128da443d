/*
 * A PE on one host serves remote operations from another host while it is
 * blocked in shmem_wait_until, and while it computes without calling the
 * library at all: the transport's progress thread must carry them out.
 *
 * PE 0 is the target; PE 1 (on another host under as_host.sh) reads PE 0's
 * data with a get and adds to its counter with fetch-add, then releases it.
 * Run with 2+ PEs; PEs 0 and 1 must not share memory (the test checks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <shmem.h>

#include "mh_check.h"

static long data[64];
static long counter = 1000;
static long release_wait;
static volatile long release_compute;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* What PE 1 does to PE 0 in each phase: a get and a fetch-add, checked. */
static void visit(long expect_counter)
{
    long got[64];
    shmem_long_get(got, data, 64, 0);
    for (int i = 0; i < 64; i++)
        CHECK(got[i] == 7 * i + 1, "get of PE 0's data[%d] returned %ld", i, got[i]);
    long old = shmem_long_atomic_fetch_add(&counter, 5, 0);
    CHECK(old == expect_counter, "fetch-add on PE 0 returned %ld, expected %ld", old,
          expect_counter);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes >= 2, "run with at least 2 PEs");
    CHECK(shmem_ptr(&counter, me == 0 ? 1 : 0) == NULL || me > 1,
          "PEs 0 and 1 share memory; place them on different hosts (SHOAL_NODE)");
    if (me == 0)
        for (int i = 0; i < 64; i++)
            data[i] = 7 * i + 1;
    shmem_barrier_all();

    /* Phase 1: PE 0 blocks in shmem_wait_until. */
    if (me == 0) {
        shmem_long_wait_until(&release_wait, SHMEM_CMP_EQ, 1);
        CHECK(counter == 1005, "counter is %ld after PE 1's fetch-add, expected 1005", counter);
    } else if (me == 1) {
        visit(1000);
        shmem_long_atomic_set(&release_wait, 1, 0);
    }
    shmem_barrier_all();

    /* Phase 2: PE 0 computes and never calls the library until PE 1's put
     * of the release flag lands in its memory. */
    if (me == 0) {
        double start = now(), x = 1.0;
        while (release_compute == 0) {
            for (int i = 0; i < 10000; i++)
                x = x * 1.0000001 + 1e-9;
            CHECK(now() - start < 30, "PE 1's operations were not served within 30 s");
        }
        CHECK(x > 0, "arithmetic");
        CHECK(counter == 1010, "counter is %ld after the second fetch-add, expected 1010", counter);
    } else if (me == 1) {
        visit(1005);
        long one = 1;
        shmem_long_put((long *)&release_compute, &one, 1, 0);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == 0)
        printf("PASS serve_while_busy (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
