/*
 * The cost of Shoal's tracer per 8-byte put: PE 0 times a loop of
 * shmem_putmem of 8 bytes to PE 1 (mapped, so a plain store when tracing is
 * off). Run it with and without SHOAL_TRACE (or SHOAL_PROFILE) and compare
 * the ns per put it prints; bench/drivers/trace_overhead.sh does both.
 * usage: trace_overhead [ITERS]   (at 2 PEs)
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long target;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long v = 0;
    if (me == 0 && npes > 1) {
        for (long i = 0; i < iters / 10; i++) /* warm up */
            shmem_putmem(&target, &v, sizeof(v), 1);
        double best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            double t0 = now_ns();
            for (long i = 0; i < iters; i++) {
                v = i;
                shmem_putmem(&target, &v, sizeof(v), 1);
            }
            double ns = (now_ns() - t0) / (double)iters;
            if (ns < best)
                best = ns;
        }
        printf("shmem_putmem 8 B to PE 1: %.1f ns per put (best of 5 x %ld)\n", best, iters);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
