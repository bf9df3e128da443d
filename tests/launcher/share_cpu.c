/*
 * share_cpu: PEs whose masks allow every CPU, put on one CPU after start, as
 * the scheduler sometimes places unbound PEs. Their waits must stop spinning
 * once another PE waited on the same CPU (core/backoff.c), which the library
 * says once at debug level; run_bind_default.sh checks that line. PE 0
 * prints the mean barrier time, for the record.
 * Usage: share_cpu pin|nopin ROUNDS
 *   pin: after shmem_init, every PE moves itself to the first CPU it may use
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <shmem.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: share_cpu pin|nopin ROUNDS\n");
        return 2;
    }
    int rounds = atoi(argv[2]);
    shmem_init();
    if (strcmp(argv[1], "pin") == 0) {
        cpu_set_t set, one;
        int first = -1;
        if (sched_getaffinity(0, sizeof(set), &set) != 0) {
            perror("sched_getaffinity");
            shmem_global_exit(1);
        }
        for (int c = CPU_SETSIZE - 1; c >= 0; c--)
            if (CPU_ISSET(c, &set))
                first = c;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        if (sched_setaffinity(0, sizeof(one), &one) != 0) {
            perror("sched_setaffinity");
            shmem_global_exit(1);
        }
    }
    shmem_barrier_all();
    double t0 = now_s();
    for (int i = 0; i < rounds; i++)
        shmem_barrier_all();
    double t = now_s() - t0;
    if (shmem_my_pe() == 0)
        printf("share_cpu %s: %d PEs, barrier %.2f us\n", argv[1], shmem_n_pes(), t / rounds * 1e6);
    shmem_finalize();
    return 0;
}
