/*
 * A PE on one host serves remote operations from another host while it is
 * blocked in shmem_wait_until, and while it computes without calling the
 * library at all: the transport's progress thread must carry them out.
 *
 * PE 0 is the target; PE 1 (on another host under as_host.sh) reads PE 0's
 * data with a get and adds to its counter with fetch-add, then releases it.
 * Run with 2+ PEs; PEs 0 and 1 must not share memory (the test checks).
 *
 * Then the other way round, the thread must stay out of the way: PE 0
 * computes long enough for its progress thread to fall asleep on the
 * worker's events, then issues fetch-adds to PE 1 and waits for each reply
 * itself. The thread must stand back rather than be woken by every reply
 * (each wake-up preempts the PE: 8-byte fetch-add 25 us instead of 8
 * across two namespaces); its context switches are counted.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#include "mh_check.h"

static long data[64];
static long counter = 1000;
static long release_wait;
static volatile long release_compute;
static long remote_adds;
static long good_src, good; /* PE 0 says: the wake-ups were fine (phase 3) */

#define ADDS 500

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

/* The voluntary context switches of this process's UCX progress thread
 * (named "shoal-ucx"), or -1 when it has none. */
static long progress_thread_switches(void)
{
    DIR *d = opendir("/proc/self/task");
    long found = -1;
    struct dirent *e;
    while (d != NULL && found < 0 && (e = readdir(d)) != NULL) {
        char path[300], line[128];
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        int match =
            f != NULL && fgets(line, sizeof(line), f) != NULL && strcmp(line, "shoal-ucx\n") == 0;
        if (f != NULL)
            fclose(f);
        if (!match)
            continue;
        snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
        f = fopen(path, "r");
        while (f != NULL && fgets(line, sizeof(line), f) != NULL)
            if (sscanf(line, "voluntary_ctxt_switches: %ld", &found) == 1)
                break;
        if (f != NULL)
            fclose(f);
    }
    if (d != NULL)
        closedir(d);
    return found;
}

/* Computes without calling the library for `seconds`, or until *until
 * (when given) becomes non-zero; the arithmetic's result, positive. */
static double compute(double seconds, const volatile long *until)
{
    double start = now(), x = 1.0;
    while (now() - start < seconds && (until == NULL || *until == 0))
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
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
        CHECK(compute(30, &release_compute) > 0, "arithmetic");
        CHECK(release_compute != 0, "PE 1's operations were not served within 30 s");
        CHECK(counter == 1010, "counter is %ld after the second fetch-add, expected 1010", counter);
    } else if (me == 1) {
        visit(1005);
        long one = 1;
        shmem_long_put((long *)&release_compute, &one, 1, 0);
        shmem_quiet();
    }
    shmem_barrier_all();

    /* Phase 3: PE 0 computes (its progress thread goes to sleep on the
     * worker's events), then waits for replies of its own; up to five
     * attempts. The wake-ups are judged only where every PE of the job can
     * have a CPU (this machine runs them all). Even there another job may
     * take PE 0's CPU: a PE off its CPU for over 0.5 ms looks idle to its
     * thread, which then rightly serves the worker, and looks again after
     * 0.5, 1, 2, 4, 8 ms. So each reply that came over 0.4 ms after the
     * previous one (PE 0 or PE 1 was off its CPU) allows 8 more wake-ups.
     * A thread woken by every reply makes no reply that late (25 us instead
     * of 8), so it is still caught: 45-140 wake-ups (measured) against an
     * allowance near 10. */
    const int judged = npes <= sysconf(_SC_NPROCESSORS_ONLN);
    long best = -1, best_allowed = 0, best_slow = 0;
    good = 0;
    for (int attempt = 0; attempt < 5 && !good; attempt++) {
        if (me == 0) {
            CHECK(compute(0.05, NULL) > 0, "arithmetic");
            long before = progress_thread_switches();
            CHECK(before >= 0, "no thread named shoal-ucx in PE 0 (the UCX progress thread)");
            long slow = 0;
            double start = now(), last = start;
            for (long i = 0; i < ADDS; i++) {
                long old = shmem_long_atomic_fetch_add(&remote_adds, 1, 1);
                double t = now();
                slow += t - last > 0.4e-3; /* since the previous reply: the check too */
                last = t;
                CHECK(old == attempt * ADDS + i, "fetch-add %ld on PE 1 returned %ld",
                      attempt * ADDS + i, old);
            }
            long woken = progress_thread_switches() - before;
            /* Standing back, it looks after 0.5, 1, 2, 4, 8 ms, then every
             * 10 ms: a few looks, plus twice the 10 ms periods for a slow
             * host, plus the late replies' share. */
            long allowed = 10 + (long)((now() - start) * 200) + 8 * slow;
            if (best < 0 || woken - allowed < best - best_allowed) {
                best = woken;
                best_allowed = allowed;
                best_slow = slow;
            }
            good_src = !judged || woken <= allowed;
        }
        shmem_broadcastmem(SHMEM_TEAM_WORLD, &good, &good_src, sizeof(good), 0);
        if (me == 1)
            CHECK(remote_adds == (attempt + 1) * ADDS, "PE 1's counter is %ld after %d fetch-adds",
                  remote_adds, (attempt + 1) * ADDS);
        shmem_barrier_all();
    }
    if (me == 0)
        CHECK(good_src,
              "PE 0's UCX progress thread was woken %ld times (at most %ld expected, %ld of the "
              "replies over 0.4 ms apart) during %d fetch-adds that PE 0 waited for itself, in the "
              "best of 5 attempts: it should stand back",
              best, best_allowed, best_slow, ADDS);
    shmem_barrier_all();
    if (me == 0)
        printf("PASS serve_while_busy (%d PEs; the progress thread woken %ld times, %ld allowed)\n",
               npes, best, best_allowed);
    shmem_finalize();
    return 0;
}
