/*
 * Hang reports through shoalrun. When shoalrun receives SIGUSR1, and when
 * --timeout ends a job, it asks every process of the job that catches
 * SIGUSR1 (the PEs with Shoal initialized; not a wrapper shell that would
 * die of it) for its hang report by sending it SIGUSR1. On a timeout it
 * then waits, up to SR_HANG_GRACE_S, until every PE still in Shoal has
 * written the last line of its report (SHOAL_HANG_REPORT_END and its PE
 * number, seen by forward.c on its way through), and only then ends the
 * job. The report itself is the library's (src/core/hang_report.c).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/launcher_report.h"
#include "shoalrun.h"

static bool *reported; /* [global rank]: a report ended since the last request */
static int reported_npes;

/* Whether process `pid` is in process group `pgid` and catches `sig`. */
static bool catches_in_group(long pid, pid_t pgid, int sig)
{
    char path[64], buf[4096];
    snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid pgrp ...": comm may hold spaces, so from the last ')'. */
    char *p = strrchr(buf, ')');
    long pgrp;
    if (p == NULL || sscanf(p + 1, " %*c %*d %ld", &pgrp) != 1 || pgrp != (long)pgid)
        return false;
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    if ((f = fopen(path, "r")) == NULL)
        return false;
    unsigned long long caught = 0;
    bool found = false;
    while (fgets(buf, sizeof(buf), f) != NULL)
        if (sscanf(buf, "SigCgt: %llx", &caught) == 1) {
            found = true;
            break;
        }
    fclose(f);
    return found && (caught >> (sig - 1)) & 1;
}

int sr_hang_ask(sr_job_t *job)
{
    if (reported_npes != job->global_npes) {
        free(reported);
        reported = calloc((size_t)job->global_npes, sizeof(*reported));
        reported_npes = reported ? job->global_npes : 0;
    }
    for (int r = 0; r < reported_npes; r++)
        reported[r] = false;
    int asked = 0;
    DIR *d = opendir("/proc");
    if (d == NULL)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == (long)getpid())
            continue;
        if (catches_in_group(pid, job->pgid, SHOAL_HANG_SIGNAL) &&
            kill((pid_t)pid, SHOAL_HANG_SIGNAL) == 0)
            asked++;
    }
    closedir(d);
    return asked;
}

void sr_hang_note_line(const char *line, size_t len)
{
    static const char end_mark[] = SHOAL_HANG_REPORT_END " ";
    const size_t mlen = sizeof(end_mark) - 1;
    for (size_t i = 0; i + mlen < len; i++) {
        if (memcmp(line + i, end_mark, mlen) != 0)
            continue;
        int rank = atoi(line + i + mlen);
        if (rank >= 0 && rank < reported_npes)
            reported[rank] = true;
        return;
    }
}

bool sr_hang_all_reported(const sr_job_t *job)
{
    for (int r = 0; r < job->npes; r++) {
        const sr_pe_t *pe = &job->pes[r];
        /* A host's part of a job does not hear whether a PE is in Shoal: it
         * waits for every PE (up to SR_HANG_GRACE_S). */
        bool in_shmem = pe->in_shmem || job->part != NULL;
        if (pe->running && in_shmem && (pe->rank >= reported_npes || !reported[pe->rank]))
            return false;
    }
    return true;
}
