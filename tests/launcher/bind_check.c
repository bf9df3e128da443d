/*
 * bind_check: run by run_osh_options.sh under shoalrun with the oshrun/mpirun
 * options. Every PE reports to PE 0 the CPUs it may run on (sched_getaffinity,
 * cross-checked with Cpus_allowed_list in /proc/self/status) and whether the
 * variable set with -x reached it; PE 0 checks every PE's report.
 * Usage: bind_check core|none EXPECTED_CPU_LIST X_VALUE
 *   core: PE i must be pinned to the (i mod n)-th CPU of EXPECTED_CPU_LIST
 *   none: every PE may run on the whole list
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#define MAXPE 64

static long report[MAXPE][3]; /* on PE 0: [pe] = {ncpus, first cpu, -x ok} */

/* Parses a list such as "0-3,8,10-11" into cpus; returns the count. */
static int parse_list(const char *text, int *cpus, int max)
{
    int n = 0;
    while (*text != '\0' && *text != '\n') {
        char *end;
        long a = strtol(text, &end, 10), b = a;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long c = a; c <= b && n < max; c++)
            cpus[n++] = (int)c;
        text = *end == ',' ? end + 1 : end;
        if (end == text && *end != ',')
            break;
    }
    return n;
}

static int status_list(int *cpus, int max)
{
    char line[4096];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0)
            n = parse_list(line + 18 + strspn(line + 18, " \t"), cpus, max);
    if (f)
        fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bind_check core|none EXPECTED_CPU_LIST X_VALUE\n");
        return 2;
    }
    int core = strcmp(argv[1], "core") == 0;
    static int expect[CPU_SETSIZE], have[CPU_SETSIZE];
    int nexpect = parse_list(argv[2], expect, CPU_SETSIZE);

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), bad = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        perror("sched_getaffinity");
        shmem_global_exit(1);
    }
    int first = -1;
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
        if (CPU_ISSET(c, &set))
            first = c;
    int nhave = status_list(have, CPU_SETSIZE);
    if (nhave != CPU_COUNT(&set) || nhave < 1 || have[0] != first) {
        fprintf(stderr,
                "FAIL: PE %d: Cpus_allowed_list (%d CPUs from %d) disagrees with "
                "sched_getaffinity (%d CPUs from %d)\n",
                me, nhave, nhave > 0 ? have[0] : -1, CPU_COUNT(&set), first);
        shmem_global_exit(1);
    }
    const char *x = getenv("SHT_X_VAR");
    long mine[3] = {CPU_COUNT(&set), first, x != NULL && strcmp(x, argv[3]) == 0};
    shmem_long_put(report[me], mine, 3, 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 0; pe < npes && pe < MAXPE; pe++) {
            long want_n = core ? 1 : nexpect, want_first = core ? expect[pe % nexpect] : expect[0];
            if (report[pe][0] != want_n || report[pe][1] != want_first || report[pe][2] != 1) {
                fprintf(stderr,
                        "FAIL: PE %d may run on %ld CPUs from CPU %ld (-x ok: %ld); "
                        "expected %ld from CPU %ld (-x ok: 1)\n",
                        pe, report[pe][0], report[pe][1], report[pe][2], want_n, want_first);
                bad = 1;
            } else {
                printf("PE %d: %ld CPU(s) from CPU %ld, -x ok\n", pe, report[pe][0], report[pe][1]);
            }
        }
    }
    shmem_barrier_all();
    if (bad)
        shmem_global_exit(1);
    shmem_finalize();
    return 0;
}
