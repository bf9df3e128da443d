/*
 * Programs that hang on purpose, for the hang reports (tests/hang), and one
 * that does not. Usage: hang_prog CASE [MARK [STOP]]; MARK only tags the
 * processes.
 *   barrier-missing  the last PE waits on a flag nobody sets while the
 *                    others are in shmem_barrier_all
 *   wait-global      PE 0 waits on a global flag nobody sets; the others
 *                    go on to shmem_finalize
 *   wait-heap        the same with a flag in the symmetric heap
 *   bcast-root       a broadcast in which PE 1 passes another root
 *   lock-held        PE 0 takes a lock and waits on a flag nobody sets; the
 *                    others wait for the lock
 *   busy             no hang: a ring of puts and barriers for about two
 *                    seconds (or until the file STOP exists), checked;
 *                    prints "PE n ok" at the end
 *   frozen           barriers in a loop; each PE prints "PE n pid P" first
 *                    (the test stops the last PE with SIGSTOP)
 *   signal-skipped   a ring of signals, three rounds: in round r each PE
 *                    sends r (shmem_signal_set in round 1, then
 *                    shmem_long_put_signal) to its right neighbour's hang_sig and waits
 *                    for its own to reach r; in round 3 PE 5 (the last PE
 *                    when there are fewer) does not send, so its neighbour
 *                    waits forever while the others are in shmem_barrier_all
 *                    (run with SHOAL_FLIGHT=1: the verdict names PE 5)
 *   sleep            no hang: each PE prints "PE n sleeping" and sleeps 2 s
 *                    with sleep(3), which a signal taken on this thread
 *                    would cut short, again until the stop file (argv[3])
 *                    exists; prints "PE n slept the full 2 s, N times"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

long hang_flag;     /* nobody sets it */
long hang_lock;     /* lock-held */
long ring_slot[64]; /* busy: what the left neighbour put */
uint64_t hang_sig;  /* signal-skipped: what the left neighbour signalled */
long hang_data;     /* signal-skipped: what came with it */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hang_prog CASE [MARK]\n");
        return 2;
    }
    const char *c = argv[1];
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    printf("PE %d started\n", me);
    fflush(stdout);
    shmem_barrier_all();

    if (strcmp(c, "barrier-missing") == 0) {
        if (me == npes - 1)
            shmem_long_wait_until(&hang_flag, SHMEM_CMP_EQ, 1);
        shmem_barrier_all();
    } else if (strcmp(c, "wait-global") == 0) {
        if (me == 0)
            shmem_long_wait_until(&hang_flag, SHMEM_CMP_EQ, 1);
    } else if (strcmp(c, "wait-heap") == 0) {
        long *flags = shmem_calloc(8, sizeof(long));
        if (me == 0)
            shmem_long_wait_until(&flags[3], SHMEM_CMP_NE, 0);
    } else if (strcmp(c, "bcast-root") == 0) {
        static long src[4], dst[4];
        for (int i = 0; i < 4; i++)
            src[i] = me * 10 + i;
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, me == 1 ? 1 : 0);
    } else if (strcmp(c, "lock-held") == 0) {
        if (me == 0) {
            shmem_set_lock(&hang_lock);
            shmem_barrier_all(); /* the others queue after PE 0 */
            shmem_long_wait_until(&hang_flag, SHMEM_CMP_EQ, 1);
        } else {
            shmem_barrier_all();
            shmem_set_lock(&hang_lock);
        }
    } else if (strcmp(c, "busy") == 0) {
        /* Each round every PE puts (round, me) into its right neighbour's
         * slot, and checks what its left neighbour put. */
        const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
        /* With a stop file (argv[3]) the rounds go on until it exists (at
         * most 60 s): the caller's requests then all land while it runs, however
         * loaded the machine. Without one, about two seconds. */
        const char *stop = argc > 3 ? argv[3] : NULL;
        const double end = now_s() + (stop ? 60.0 : 2.0);
        long round = 0, bad = 0;
        int done = 0;
        while (!done) {
            long v = round * 1000 + me;
            shmem_long_put(&ring_slot[round % 64], &v, 1, right);
            shmem_barrier_all();
            if (ring_slot[round % 64] != round * 1000 + left)
                bad++;
            round++;
            /* PE 0 decides when to stop, so every PE runs the same rounds. */
            static int stop_all;
            if (me == 0)
                stop_all = now_s() > end || (stop && access(stop, F_OK) == 0);
            shmem_barrier_all();
            done = shmem_int_g(&stop_all, 0);
            shmem_barrier_all();
        }
        printf("PE %d %s after %ld rounds\n", me, bad ? "FAILED" : "ok", round);
        shmem_finalize();
        return bad ? 1 : 0;
    } else if (strcmp(c, "signal-skipped") == 0) {
        const int skip = npes > 5 ? 5 : npes - 1, right = (me + 1) % npes;
        for (long r = 1; r <= 3; r++) {
            if (r == 1) /* a signal alone, then with data */
                shmem_signal_set(&hang_sig, 1, right);
            else if (!(r == 3 && me == skip))
                shmem_long_put_signal(&hang_data, &r, 1, &hang_sig, (uint64_t)r, SHMEM_SIGNAL_SET,
                                      right);
            shmem_signal_wait_until(&hang_sig, SHMEM_CMP_GE, (uint64_t)r);
        }
        shmem_barrier_all();
    } else if (strcmp(c, "frozen") == 0) {
        printf("PE %d pid %d\n", me, (int)getpid());
        fflush(stdout);
        for (;;)
            shmem_barrier_all();
    } else if (strcmp(c, "sleep") == 0) {
        /* Rounds of sleep(2) until the stop file (argv[3]) exists (at most
         * 30), so the requests always find the PE asleep. */
        const char *stop = argc > 3 ? argv[3] : NULL;
        printf("PE %d sleeping\n", me);
        fflush(stdout);
        int rounds = 0, cut = 0;
        do {
            const double t0 = now_s();
            unsigned left = sleep(2);
            const double slept = now_s() - t0;
            if (left != 0 || slept < 1.99) {
                printf("PE %d FAILED: its sleep was cut short (sleep returned %u, %.3f s)\n", me,
                       left, slept);
                cut++;
            }
            rounds++;
        } while (stop != NULL && access(stop, F_OK) != 0 && rounds < 30);
        if (!cut)
            printf("PE %d slept the full 2 s, %d times\n", me, rounds);
        shmem_finalize();
        return cut ? 1 : 0;
    } else {
        fprintf(stderr, "hang_prog: unknown case %s\n", c);
        return 2;
    }
    printf("PE %d FAILED: %s did not hang\n", me, c);
    shmem_finalize();
    return 1;
}
