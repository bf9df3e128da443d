/*
 * lat_lock.c: latency of the distributed lock.
 *
 * Ops:
 *   set_clear          the last PE alone takes and releases a lock
 *                      (shmem_set_lock + shmem_clear_lock) while the others
 *                      wait in a barrier; only the time inside the two
 *                      calls counts.  With PEs placed round robin over hosts
 *                      the last PE is on another host than PE 0, where the
 *                      lock lives.
 *   set_clear_barrier  every PE takes and releases the lock once, then
 *                      shmem_barrier_all: the time of one such round on PE 0
 *                      (a release may cost in the barrier rather than in
 *                      shmem_clear_lock, so this counts both).
 * After timing, a lock-protected counter checks mutual exclusion.
 */
#include "common.h"

static long lock;
static long counter;
static double inside_us;

static void set_clear_loop(void *arg, long n)
{
    int me = bench_me(), last = bench_npes() - 1;

    for (long i = 0; i < n; i++) {
        if (me == last) {
            double t0 = bench_now_us();
            shmem_set_lock(&lock);
            shmem_clear_lock(&lock);
            inside_us += bench_now_us() - t0;
        }
        shmem_barrier_all();
    }
}

static void set_clear_barrier_loop(void *arg, long n)
{
    for (long i = 0; i < n; i++) {
        shmem_set_lock(&lock);
        shmem_clear_lock(&lock);
        shmem_barrier_all();
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_init(argc, argv, &o, 0);
    bench_header("lat_lock", &o);

    bench_report("lat_lock", "set_clear", 0,
                 bench_measure_inside(&o, set_clear_loop, NULL, &inside_us));
    bench_report("lat_lock", "set_clear_barrier", 0,
                 bench_measure(&o, set_clear_barrier_loop, NULL, 1));

    int npes = bench_npes();
    shmem_barrier_all();
    for (int k = 0; k < 20; k++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(&counter, 0);
        shmem_long_p(&counter, v + 1, 0);
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    long got = shmem_long_g(&counter, 0);
    BENCH_CHECK("lat_lock", "set_clear", 0, got == 20L * npes,
                "the lock-protected counter is %ld, expected %ld", got, 20L * npes);
    shmem_barrier_all();
    return bench_finish();
}
