/*
 * A SHMEM program that fails on purpose, for run_fault.sh to check how the
 * job ends. It uses only <shmem.h>. The first argument picks the failure;
 * trailing arguments are ignored (run_fault.sh adds a marker to find
 * leftover processes).
 *
 *   barrier-victim   every PE but PE 0 waits in shmem_barrier_all (PE 0 never
 *                    comes); the script kills one of them with SIGKILL
 *   barrier-suicide  all PEs loop in shmem_barrier_all; the last PE kills
 *                    itself with SIGKILL after 20 barriers
 *   no-finalize      puts to a neighbour, checks, and returns from main
 *                    without shmem_finalize
 *   global-exit S    the last PE calls shmem_global_exit(S) while the others
 *                    wait in shmem_barrier_all
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int me, npes;

    setvbuf(stdout, NULL, _IOLBF, 0);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (me == 0)
        printf("job %s\n", getenv("SHOAL_JOB_ID") ? getenv("SHOAL_JOB_ID") : "none");
    printf("PE %d pid %ld ready\n", me, (long)getpid());

    if (strcmp(mode, "barrier-victim") == 0) {
        shmem_barrier_all(); /* everyone is up */
        if (me == 0)
            for (;;)
                pause();
        shmem_barrier_all(); /* never completes: PE 0 does not come */
        printf("PE %d: FAILED: the barrier completed without PE 0\n", me);
        return 10;
    }
    if (strcmp(mode, "barrier-suicide") == 0) {
        for (int i = 0;; i++) {
            if (me == npes - 1 && i == 20) {
                printf("killing myself at %.6f\n", now());
                raise(SIGKILL);
            }
            shmem_barrier_all();
        }
    }
    if (strcmp(mode, "no-finalize") == 0) {
        int *slot = shmem_malloc(sizeof(int));
        *slot = -1;
        shmem_barrier_all();
        shmem_int_p(slot, me, (me + 1) % npes);
        shmem_barrier_all();
        int expected = (me + npes - 1) % npes;
        if (*slot != expected) {
            printf("PE %d: FAILED: got %d from my left neighbour, expected %d\n", me, *slot,
                   expected);
            return 10;
        }
        printf("PE %d returns without shmem_finalize\n", me);
        return 0;
    }
    if (strcmp(mode, "global-exit") == 0 && argc > 2) {
        shmem_barrier_all();
        if (me == npes - 1) {
            printf("PE %d calls shmem_global_exit(%d)\n", me, atoi(argv[2]));
            shmem_global_exit(atoi(argv[2]));
        }
        shmem_barrier_all(); /* ended by the global exit */
        printf("PE %d: FAILED: the barrier completed after shmem_global_exit\n", me);
        return 10;
    }
    fprintf(stderr, "fault_prog: unknown mode '%s'\n", mode);
    return 2;
}
