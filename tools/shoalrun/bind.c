/*
 * Where the PEs run. By default, when the job's PEs fit on the CPUs that
 * shoalrun may use and that no other job on this host has claimed, PE i is
 * pinned to the i-th of those CPUs, as mpirun binds ranks to cores: a PE
 * that waits then spins on its own CPU while the PE it waits for runs on
 * another, and the scheduler cannot put both on one CPU. When they do not
 * fit, the PEs are not pinned (their waits yield: core/backoff.c).
 * `--bind-to core` pins PE i to the (i mod n)-th of the n CPUs shoalrun may
 * use, whether or not they fit; `--bind-to none` never pins.
 *
 * A CPU is claimed by binding an abstract unix socket named after it
 * ("shoal-cpu-N") for the launcher's lifetime: another shoalrun cannot bind
 * the same name, so several jobs started at once do not all pile onto the
 * first CPUs, and the kernel drops the claim however the launcher ends.
 * Abstract names belong to a network namespace, so a job in another
 * namespace (a container, a test's pretend host) claims on its own.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shoalrun.h"

static int *pe_cpu;      /* [npes] the CPU PE i is pinned to, or -1 */
static char why[160];    /* why the PEs are not pinned, for --report-bindings */
static char cpulist[96]; /* the CPUs shoalrun may use, as a list */

/* Claims `cpu` for this job; returns the claim's fd (kept open for the
 * job's life, close-on-exec), or -1 when another job holds it. */
static int claim_cpu(int cpu)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int len = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "shoal-cpu-%d", cpu);
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
    if (bind(fd, (struct sockaddr *)&a, alen) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Writes `cpus` (ascending) as "0-3,8" into out. */
static void format_list(const int *cpus, int n, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < size; i++) {
        int j = i;
        while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
            j++;
        int w = j > i ? snprintf(out + len, size - len, "%s%d-%d", i ? "," : "", cpus[i], cpus[j])
                      : snprintf(out + len, size - len, "%s%d", i ? "," : "", cpus[i]);
        len += w > 0 ? (size_t)w : 0;
        i = j;
    }
}

int sr_bind_plan(const sr_options_t *opts, int npes)
{
    cpu_set_t set;
    pe_cpu = sr_xmalloc((size_t)npes * sizeof(*pe_cpu));
    for (int r = 0; r < npes; r++)
        pe_cpu[r] = -1;
    if (sched_getaffinity(0, sizeof(set), &set) != 0) {
        if (opts->bind == SR_BIND_CORE) {
            sr_msg("--bind-to core: sched_getaffinity: %s; run with --bind-to none",
                   strerror(errno));
            return -1;
        }
        snprintf(why, sizeof(why), "sched_getaffinity: %s", strerror(errno));
        return 0;
    }
    int n = CPU_COUNT(&set), nfree = 0;
    int *cpus = sr_xmalloc((size_t)n * sizeof(*cpus));
    for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            cpus[k++] = c;
    format_list(cpus, n, cpulist, sizeof(cpulist));
    if (opts->bind == SR_BIND_NONE) {
        snprintf(why, sizeof(why), "--bind-to none");
        free(cpus);
        return 0;
    }
    int *claim = sr_xmalloc((size_t)n * sizeof(*claim));
    for (int k = 0; k < n; k++) {
        claim[k] = -1;
        if (opts->bind == SR_BIND_CORE || npes <= n)
            claim[k] = claim_cpu(cpus[k]);
        nfree += claim[k] >= 0;
    }

    if (opts->bind == SR_BIND_CORE) {
        for (int r = 0; r < npes; r++)
            pe_cpu[r] = cpus[r % n];
    } else if (npes > n) {
        snprintf(why, sizeof(why), "%d PEs do not fit on the %d CPUs shoalrun may use", npes, n);
    } else if (npes > nfree) {
        snprintf(why, sizeof(why),
                 "other jobs on this host hold %d of the %d CPUs shoalrun may use, leaving %d "
                 "for %d PEs",
                 n - nfree, n, nfree, npes);
    } else {
        for (int k = 0, r = 0; k < n && r < npes; k++)
            if (claim[k] >= 0)
                pe_cpu[r++] = cpus[k];
    }
    /* Keep the claims of the CPUs that PEs run on; give back the rest. */
    for (int k = 0, kept = 0; k < n; k++) {
        if (claim[k] < 0)
            continue;
        bool used = opts->bind == SR_BIND_CORE ? k < npes : pe_cpu[0] >= 0 && kept < npes;
        kept += used;
        if (!used)
            close(claim[k]);
    }
    free(claim);
    free(cpus);
    return 0;
}

int sr_bind_cpu(int i)
{
    return pe_cpu != NULL ? pe_cpu[i] : -1;
}

void sr_bind_report(const sr_job_t *job)
{
    for (int i = 0; i < job->npes; i++) {
        int rank = job->pes[i].rank;
        if (pe_cpu[i] >= 0)
            sr_msg("PE %d bound to CPU %d (of %s)", rank, pe_cpu[i], cpulist);
        else
            sr_msg("PE %d not bound: may run on CPUs %s (%s)", rank, cpulist[0] ? cpulist : "?",
                   why);
    }
}
