/*
 * A job whose hosts lose each other mid-job (tests/netns run_partition.sh):
 * every PE puts to its neighbours on the other host and passes a barrier,
 * over and over, and prints SHOAL-TEST-READY after the first round so that
 * netns_job.sh --cut cuts a host's link only once the whole job runs. After
 * the cut the barriers cannot complete; the library must end every PE on
 * both hosts within SHOAL_NET_TIMEOUT (or SHOAL_HANG_TIMEOUT) plus a few
 * seconds, saying which host is unreachable.
 *
 * If the job is still running 90 s after it started (far beyond any bound
 * the test allows), the PE says the cut went unnoticed and exits 3, so a
 * library that never notices fails the test rather than hanging it.
 *
 * usage: partition_prog (under tests/netns/netns_job.sh --cut K 2 1|2)
 */
#include <stdio.h>
#include <time.h>

#include <shmem.h>

static long box[64];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const double start = now_s();
    long round = 0;

    for (;;) {
        /* Each PE writes its round into its slot at the next PE (another
         * host under netns_job.sh's round-robin placement). */
        shmem_long_p(&box[me % 64], round, (me + 1) % npes);
        shmem_barrier_all();
        if (round == 0) {
            printf("partition_prog: PE %d of %d running: SHOAL-TEST-READY\n", me, npes);
            fflush(stdout);
        }
        /* The writer may already be one round ahead (it left the barrier
         * first), never more: its next barrier needs this PE. */
        const long got = box[(me + npes - 1) % npes % 64];
        if (got != round && got != round + 1) {
            printf("partition_prog: PE %d: round %ld: wrong value %ld from PE %d\n", me, round, got,
                   (me + npes - 1) % npes);
            return 2;
        }
        round++;
        if (now_s() - start > 90) {
            printf("partition_prog: PE %d: still running 90 s after the start: the cut went "
                   "unnoticed\n",
                   me);
            fflush(stdout);
            return 3;
        }
        struct timespec pause = {0, 20 * 1000000L};
        nanosleep(&pause, NULL);
    }
}
