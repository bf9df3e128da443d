/*
 * The PE program of the shoalrun --host tests (run_hosts.sh). Each PE
 * reports its network namespace (its "host"), passes its rank to the next
 * PE with a put and checks what the previous PE put, so values cross the
 * hosts at every PE count; then a sum reduction checks every PE took part.
 *
 * usage: hosts_prog MODE SECONDS MARK
 *   ring  SECONDS: after the checks, prints "ready" and waits SECONDS in a
 *                  barrier (PE 0 sleeps first) so the test can look at the
 *                  processes while the job runs
 *   exit3 SECONDS: the last PE exits with status 3 after the checks; the
 *                  others wait in a barrier it never reaches (SECONDS unused)
 * MARK is only there for the test to find the processes.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long from_left = -1;
static long sum_src, sum_dst;

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hosts_prog ring|exit3 SECONDS [MARK]\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    struct stat ns;
    if (stat("/proc/self/ns/net", &ns) != 0)
        ns.st_ino = 0;

    shmem_long_p(&from_left, me, (me + 1) % npes);
    shmem_barrier_all();
    long want = (me + npes - 1) % npes;
    sum_src = me + 1;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_dst, &sum_src, 1);
    int ok = from_left == want && sum_dst == (long)npes * (npes + 1) / 2;
    printf("PE %d of %d: netns %lu got %ld from PE %ld sum %ld %s\n", me, npes,
           (unsigned long)ns.st_ino, from_left, want, sum_dst, ok ? "ok" : "WRONG");
    fflush(stdout);
    if (!ok)
        shmem_global_exit(1);

    int seconds = atoi(argv[2]);
    if (strcmp(argv[1], "exit3") == 0 && me == npes - 1) {
        usleep(200000); /* the others are in the barrier by now */
        _exit(3);
    }
    printf("ready PE %d\n", me);
    fflush(stdout);
    /* A hang report (SIGUSR1) cuts a sleep short: sleep until the time. */
    int ring = strcmp(argv[1], "ring") == 0;
    for (time_t end = time(NULL) + seconds; ring && me == 0 && time(NULL) < end;)
        sleep(1);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
