/*
 * lat_barrier.c: latency of shmem_barrier_all and shmem_sync_all at the
 * job's PE count.
 *
 * Every PE runs the same loop; PE 0's time per call is reported.  A round
 * starts with every PE released from the same barrier, so PE 0's clock
 * covers the whole loop, not its own early arrival.  shmem_sync_all is
 * timed when the header's spec version has it (1.4 and later).
 * After timing, each PE puts a round number into its right neighbour before
 * a barrier_all and checks after it that its left neighbour's value arrived,
 * which is what barrier_all promises beyond synchronization.
 */
#include "common.h"

#if defined(SHMEM_MAJOR_VERSION) && defined(SHMEM_MINOR_VERSION) && \
    (SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 4)
#define HAVE_SYNC_ALL 1
#else
#define HAVE_SYNC_ALL 0
#endif

static void barrier_loop(void *arg, long n)
{
    for (long i = 0; i < n; i++)
        shmem_barrier_all();
}

#if HAVE_SYNC_ALL
static void sync_loop(void *arg, long n)
{
    for (long i = 0; i < n; i++)
        shmem_sync_all();
}
#endif

int main(int argc, char **argv)
{
    struct bench_opts o;

    bench_init(argc, argv, &o, 0);
    bench_header("lat_barrier", &o);

    bench_report("lat_barrier", "barrier_all", 0, bench_measure(&o, barrier_loop, NULL, 1));
#if HAVE_SYNC_ALL
    bench_report("lat_barrier", "sync_all", 0, bench_measure(&o, sync_loop, NULL, 1));
#endif

    long *slot = bench_malloc(sizeof(long));
    int me = bench_me(), npes = bench_npes();

    *slot = -1;
    shmem_barrier_all();
    for (long round = 1; round <= 5; round++) {
        shmem_long_p(slot, round * 1000 + me, (me + 1) % npes);
        shmem_barrier_all();
        long got = *(volatile long *)slot;
        long want = round * 1000 + (me + npes - 1) % npes;
        BENCH_CHECK("lat_barrier", "barrier_all", 0, got == want,
                    "round %ld: slot holds %ld after the barrier, expected %ld",
                    round, got, want);
        shmem_barrier_all(); /* nobody writes the next round before all read */
    }

    shmem_free(slot);
    return bench_finish();
}
