/*
 * hello.c: the smallest whole SHMEM job, for timing a job's wall clock
 * (launch, init, one barrier, finalize, exit) under each launcher.
 * PE 0 prints one line so a run that did nothing is visible.
 *
 * With SHOAL_BENCH_T0_NS set to the launch time (CLOCK_REALTIME in ns, e.g.
 * `date +%s%N` just before the launcher starts), PE 0 also prints when the
 * last PE left shmem_init, relative to it: bench/drivers/startup.sh reads that line.
 * The realtime clock is the one every process of the machine shares, network
 * namespaces included. Each PE puts its time into an array on PE 0 (one
 * peer per PE, as little as a job can touch), not a reduction, whose
 * algorithm would be timed too.
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

static long long init_done_ns;

int main(void)
{
    const char *t0 = getenv("SHOAL_BENCH_T0_NS");
    shmem_init();
    init_done_ns = realtime_ns();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long long *done = t0 != NULL ? shmem_malloc(sizeof(long long) * (size_t)npes) : NULL;
    if (done != NULL)
        shmem_longlong_p(&done[me], init_done_ns, 0);
    long long put_ns = realtime_ns();
    shmem_barrier_all();
    long long barrier_ns = realtime_ns();
    if (me == 0)
        printf("# hello from PE 0 of %d\n", npes);
    if (me == 0 && done != NULL) {
        long long last = 0;
        for (int pe = 0; pe < npes; pe++)
            last = done[pe] > last ? done[pe] : last;
        printf("# init_done_ms %.3f\n", (double)(last - atoll(t0)) / 1e6);
    }
    if (done != NULL)
        shmem_free(done);
    long long fin_ns = realtime_ns();
    shmem_finalize();
    if (me == 0 && t0 != NULL) /* PE 0's own view of the rest of the job */
        printf("# pe0_ms init %.1f put %.1f barrier %.1f finalize %.1f\n",
               (double)(init_done_ns - atoll(t0)) / 1e6, (double)(put_ns - init_done_ns) / 1e6,
               (double)(barrier_ns - put_ns) / 1e6, (double)(realtime_ns() - fin_ns) / 1e6);
    return 0;
}
