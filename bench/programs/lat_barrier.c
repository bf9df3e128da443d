/*
 * lat_barrier.c: latency of the barriers at the job's PE count.
 *
 * Ops: barrier_all (shmem_barrier_all), sync_all (shmem_sync_all, 1.4),
 * barrier and sync (the deprecated active-set forms over all PEs, with a
 * pSync array), team_sync (shmem_team_sync on SHMEM_TEAM_WORLD, 1.5), and
 * put_quiet_barrier_all: PE 0 puts 8 bytes to PE 1 with shmem_quiet, then
 * every PE calls shmem_barrier_all (size=8) -- one repetition of a loop
 * that syncs after each transfer, such as rdma_demo's put row, whose own
 * clock covers only the put + quiet and so charges the barrier's messages
 * to whichever part they overlap.  A
 * call the implementation's shmem.h lacks is reported as unsupported.
 * Every PE runs the same loop; PE 0's time per call is reported.  A round
 * starts with every PE released from the same barrier, so PE 0's clock
 * covers the whole loop, not its own early arrival.
 * After timing, each PE puts a round number into its right neighbour before
 * a barrier_all and checks after it that its left neighbour's value arrived,
 * which is what barrier_all promises beyond synchronization.
 */
#include "common.h"

#define HAVE_SYNC_ALL (BENCH_SPEC >= 104)

#if BENCH_HAVE_BARRIER_AS || BENCH_HAVE_SYNC_AS
/* The active-set forms' work array: symmetric, SHMEM_SYNC_VALUE before use. */
static long psync[SHMEM_BARRIER_SYNC_SIZE];
#endif

static void barrier_loop(void *arg, long n)
{
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
}

#define PUT_VALUE 0x5eed5eedL
static long *put_dst; /* symmetric; PE 1's copy receives PE 0's puts */

static void put_barrier_loop(void *arg, long n)
{
    static const long value = PUT_VALUE;
    int driver = bench_me() == 0 && bench_npes() > 1;

    for (long i = 0; i < n; i++) {
        if (driver) {
            shmem_putmem(put_dst, &value, sizeof(value), 1);
            shmem_quiet();
        }
        shmem_barrier_all();
    }
}

#if HAVE_SYNC_ALL
static void sync_all_loop(void *arg, long n)
{
    for (long i = 0; i < n; i++)
        shmem_sync_all();
}
#endif

#if BENCH_HAVE_BARRIER_AS
static void barrier_as_loop(void *arg, long n)
{
    int npes = bench_npes();

    for (long i = 0; i < n; i++)
        shmem_barrier(0, 0, npes, psync);
}
#endif

#if BENCH_HAVE_SYNC_AS
static void sync_as_loop(void *arg, long n)
{
    int npes = bench_npes();

    for (long i = 0; i < n; i++)
        shmem_sync(0, 0, npes, psync);
}
#endif

#if BENCH_HAVE_TEAM_SYNC
static void team_sync_loop(void *arg, long n)
{
    for (long i = 0; i < n; i++)
        shmem_team_sync(SHMEM_TEAM_WORLD);
}
#endif

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_init(argc, argv, &o, 0);
    bench_header("lat_barrier", &o);

    bench_report("lat_barrier", "barrier_all", 0, bench_measure(&o, barrier_loop, NULL, 1));
#if HAVE_SYNC_ALL
    bench_report("lat_barrier", "sync_all", 0, bench_measure(&o, sync_all_loop, NULL, 1));
#else
    bench_report_unsupported("lat_barrier", "sync_all", NULL, 0);
#endif
#if BENCH_HAVE_BARRIER_AS || BENCH_HAVE_SYNC_AS
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
#endif
#if BENCH_HAVE_BARRIER_AS
    bench_report("lat_barrier", "barrier", 0, bench_measure(&o, barrier_as_loop, NULL, 1));
#else
    bench_report_unsupported("lat_barrier", "barrier", NULL, 0);
#endif
#if BENCH_HAVE_SYNC_AS
    /* A pSync may serve the next collective once every PE has left this one. */
    shmem_barrier_all();
    bench_report("lat_barrier", "sync", 0, bench_measure(&o, sync_as_loop, NULL, 1));
#else
    bench_report_unsupported("lat_barrier", "sync", NULL, 0);
#endif
#if BENCH_HAVE_TEAM_SYNC
    bench_report("lat_barrier", "team_sync", 0, bench_measure(&o, team_sync_loop, NULL, 1));
#else
    bench_report_unsupported("lat_barrier", "team_sync", NULL, 0);
#endif

    int me = bench_me(), npes = bench_npes();
    put_dst = bench_malloc(sizeof(long));
    *put_dst = 0;
    shmem_barrier_all();
    bench_report("lat_barrier", "put_quiet_barrier_all", sizeof(long),
                 bench_measure(&o, put_barrier_loop, NULL, 1));
    if (me == 1)
        BENCH_CHECK("lat_barrier", "put_quiet_barrier_all", sizeof(long),
                    *(volatile long *)put_dst == PUT_VALUE, "PE 1 holds 0x%lx, expected 0x%lx",
                    *(volatile long *)put_dst, PUT_VALUE);
    shmem_free(put_dst);

    long *slot = bench_malloc(sizeof(long));

    *slot = -1;
    shmem_barrier_all();
    for (long round = 1; round <= 5; round++) {
        shmem_long_p(slot, round * 1000 + me, (me + 1) % npes);
        shmem_barrier_all();
        long got = *(volatile long *)slot;
        long want = round * 1000 + (me + npes - 1) % npes;
        BENCH_CHECK("lat_barrier", "barrier_all", 0, got == want,
                    "round %ld: slot holds %ld after the barrier, expected %ld", round, got, want);
        shmem_barrier_all(); /* nobody writes the next round before all read */
    }

    shmem_free(slot);
    return bench_finish();
}
