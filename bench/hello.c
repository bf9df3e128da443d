/*
 * hello.c: the smallest whole SHMEM job, for timing a job's wall clock
 * (launch, init, one barrier, finalize, exit) under each launcher.
 * PE 0 prints one line so a run that did nothing is visible.
 *
 * With SHOAL_BENCH_T0_NS set to the launch time (CLOCK_REALTIME in ns, e.g.
 * `date +%s%N` just before the launcher starts), PE 0 also prints when the
 * last PE left shmem_init, relative to it: bench/startup.sh reads that line.
 * The realtime clock is the one every process of the machine shares, network
 * namespaces included.
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long long init_done_ns, last_done_ns;

int main(void)
{
    const char *t0 = getenv("SHOAL_BENCH_T0_NS");
    shmem_init();
    init_done_ns = realtime_ns();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (t0 != NULL)
        shmem_longlong_max_reduce(SHMEM_TEAM_WORLD, &last_done_ns, &init_done_ns, 1);
    shmem_barrier_all();
    if (me == 0)
        printf("# hello from PE 0 of %d\n", npes);
    if (me == 0 && t0 != NULL)
        printf("# init_done_ms %.3f\n", (double)(last_done_ns - atoll(t0)) / 1e6);
    shmem_finalize();
    return 0;
}
