/*
 * shoalrun: starts the PEs of a Shoal job on this host and serves them until
 * they have all exited. Everything happens in one poll() loop, which sleeps
 * until a PE sends a request, writes output, exits (SIGCHLD through a
 * signalfd), shoalrun is signalled, or a deadline (--timeout, the SIGKILL
 * after SIGTERM) passes. It never spins, so it runs fine with more PEs than
 * cores.
 *
 * This file decides how the job ends. The job succeeds only when every PE
 * exits with status 0. The first failure decides the exit status and prints
 * one line: a PE killed by a signal, a PE exiting with non-zero status, a PE
 * exiting after shmem_init without shmem_finalize, an ABORT (global exit),
 * the timeout, or a signal to shoalrun. Then the remaining PEs get SIGTERM
 * (or the signal shoalrun received) and, after a grace period, SIGKILL.
 * A PE that fails after shmem_finalize has left the job: unless another PE
 * waits for it (in a launcher barrier it cannot join), the others go on
 * (they may still be writing their results), and its status is reported,
 * and becomes the job's, once every PE has exited.
 * shoalrun exits only after reaping every PE.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap/launcher_report.h"
#include "shoalrun.h"
#include "util/env.h"
#include "util/log.h"

/* What a pollfd in the loop belongs to. */
typedef enum {
    SRC_SIGNAL,
    SRC_STDIN,
    SRC_PE0_STDIN,
    SRC_SOCKET,
    SRC_STDOUT,
    SRC_STDERR,
    SRC_CONTROL, /* a host's part of a job: the launcher's control lines */
} source_t;

typedef struct {
    struct pollfd *fds;
    source_t *source;
    int *rank;
    int count;
} poll_set_t;

bool sr_job_end(sr_job_t *job, int exit_status, int sig, double grace_s, const char *why, ...)
{
    if (job->state != SR_JOB_RUNNING)
        return false; /* the first decision stands */
    job->state = SR_JOB_ENDING;
    job->exit_status = exit_status;
    job->end_at = sr_now();
    if (why != NULL) {
        va_list ap;
        va_start(ap, why);
        sr_vmsg(why, ap);
        va_end(ap);
    }
    if (job->nrunning > 0) {
        sr_proc_signal_all(job, sig);
        job->kill_at = sr_now() + grace_s;
    }
    return true;
}

/* Ends the job for a PE that exited by a signal or with a non-zero status. */
void sr_job_end_by_pe(sr_job_t *job, const sr_pe_t *pe)
{
    int st = pe->wstatus;
    const char *ending = job->nrunning > 0 ? "; ending the job" : "";

    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        sr_job_end(job, 128 + sig, SIGTERM, SR_FAILURE_GRACE_S,
                   "PE %d (pid %ld) was killed by signal %d (%s)%s%s", pe->rank, (long)pe->pid, sig,
                   strsignal(sig), WCOREDUMP(st) ? ", core dumped" : "", ending);
    } else {
        if (sr_job_end(job, WEXITSTATUS(st), SIGTERM, SR_FAILURE_GRACE_S,
                       "PE %d (pid %ld) exited with status %d%s", pe->rank, (long)pe->pid,
                       WEXITSTATUS(st), ending))
            job->cause_may_follow = true;
    }
}

/* A PE killed by a signal shoalrun did not send, found just after the job
 * ended for another PE's failure, most likely caused it (the other PE lost
 * its connection to the dead one): it is named, and its status is the job's. */
static void judge_late_cause(sr_job_t *job, const sr_pe_t *pe)
{
    int st = pe->wstatus;
    if (!job->cause_may_follow || !WIFSIGNALED(st) || WTERMSIG(st) == SIGTERM ||
        job->kill_at == 0 || sr_now() > job->end_at + SR_CAUSE_WINDOW_S)
        return;
    int sig = WTERMSIG(st);
    sr_msg("PE %d (pid %ld) was killed by signal %d (%s)%s", pe->rank, (long)pe->pid, sig,
           strsignal(sig), WCOREDUMP(st) ? ", core dumped" : "");
    job->exit_status = 128 + sig;
    job->cause_may_follow = false;
}

/* Judges a PE that has exited. Called after what it sent and wrote before it
 * exited has been handled, so an ABORT or EVENT it sent counts. */
static void on_pe_exit(sr_job_t *job, sr_pe_t *pe)
{
    int st = pe->wstatus;
    const char *ending = job->nrunning > 0 ? "; ending the job" : "";

    job->judging_exit = true; /* what it sent counts, but its exit is judged before waits on it */
    sr_server_read(job, pe);
    job->judging_exit = false;
    sr_stream_read(&pe->out_stream, true);
    sr_stream_read(&pe->err_stream, true);
    if (pe->rank == 0)
        sr_stdin_close(&job->in);
    if (job->state != SR_JOB_RUNNING) {
        judge_late_cause(job, pe);
        return;
    }

    if (pe->finalized && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) && !sr_server_is_stuck(job)) {
        /* Nobody waits for it: judged once every PE has exited (report_after_finalize),
         * or when a PE comes to wait for it (sr_server_check_stuck). */
        pe->failed_after_finalize = true;
    } else if (WIFSIGNALED(st) || WEXITSTATUS(st) != 0) {
        sr_job_end_by_pe(job, pe);
    } else if (pe->in_shmem) {
        sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                   "PE %d (pid %ld) exited with status 0 before calling shmem_finalize%s", pe->rank,
                   (long)pe->pid, ending);
    } else {
        sr_server_check_stuck(job);
    }
}

void sr_job_reap(sr_job_t *job)
{
    sr_pe_t *pe;
    while ((pe = sr_proc_reap(job)) != NULL) {
        job->nexited++;
        on_pe_exit(job, pe);
    }
}

/* Once every PE has exited: the PEs that failed after shmem_finalize, each
 * named with its status; the first decides the job's status unless another
 * failure already did. */
static void report_after_finalize(sr_job_t *job)
{
    for (int r = 0; r < job->npes; r++) {
        const sr_pe_t *pe = &job->pes[r];
        int st = pe->wstatus;
        if (!pe->failed_after_finalize)
            continue;
        int code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
        if (WIFSIGNALED(st))
            sr_msg("PE %d (pid %ld) was killed by signal %d (%s) after shmem_finalize", pe->rank,
                   (long)pe->pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
        else
            sr_msg("PE %d (pid %ld) exited with status %d after shmem_finalize", pe->rank,
                   (long)pe->pid, code);
        if (job->exit_status == 0)
            job->exit_status = code;
    }
}

static void on_signal(sr_job_t *job, int sig)
{
    if (sig == SHOAL_HANG_SIGNAL) { /* a request for hang reports (hang.c) */
        sr_msg("received SIG%s; asking the PEs for their hang reports (%d processes)",
               sigabbrev_np(sig), sr_hang_ask(job));
        return;
    }
    if (job->state == SR_JOB_RUNNING) {
        sr_job_end(job, 128 + sig, sig, SR_SIGNAL_GRACE_S, "received SIG%s; ending the job",
                   sigabbrev_np(sig));
    } else if (job->kill_at > 0) {
        /* Asked while the PEs are already being ended: do not wait. */
        sr_msg("received SIG%s while ending the job; killing the PEs now", sigabbrev_np(sig));
        sr_proc_signal_all(job, SIGKILL);
        job->kill_at = 0;
    }
}

static void on_signalfd(sr_job_t *job, int sigfd)
{
    struct signalfd_siginfo info;

    while (read(sigfd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
        if (info.ssi_signo == SIGCHLD) {
            sr_job_reap(job);
        } else {
            on_signal(job, (int)info.ssi_signo);
        }
    }
}

static void on_deadlines(sr_job_t *job)
{
    double now = sr_now();

    if (job->state == SR_JOB_RUNNING && job->deadline > 0 && now >= job->deadline &&
        job->hang_asked_at == 0) {
        /* First the PEs still in Shoal say where they are (hang.c). */
        int asked = sr_hang_ask(job);
        job->hang_asked_at = asked > 0 ? now : now - SR_HANG_GRACE_S; /* none: end now */
        if (asked > 0)
            sr_msg("timeout after %g s; asking the PEs for their hang reports",
                   job->opts->timeout_s);
    }
    if (job->state == SR_JOB_RUNNING && job->hang_asked_at > 0 &&
        (sr_hang_all_reported(job) || now >= job->hang_asked_at + SR_HANG_GRACE_S)) {
        /* Up to SR_MAX_NPES numbers of up to 5 characters. */
        static char list[SR_MAX_NPES * 6 + 1];
        size_t len = 0;
        for (int r = 0; r < job->npes; r++)
            if (job->pes[r].running)
                len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", len ? " " : "",
                                        job->pes[r].rank);
        sr_job_end(job, 124, SIGTERM, SR_FAILURE_GRACE_S,
                   "timeout after %g s; PEs still running: %s", job->opts->timeout_s, list);
    }
    if (job->state == SR_JOB_ENDING && job->kill_at > 0 && now >= job->kill_at) {
        sr_proc_signal_all(job, SIGKILL);
        job->kill_at = 0;
    }
}

/* Milliseconds until the next deadline (rounded up), or -1 for none. */
static int poll_timeout_ms(const sr_job_t *job)
{
    double next;

    if (job->state == SR_JOB_RUNNING && job->hang_asked_at > 0)
        next = sr_hang_all_reported(job) ? sr_now() : job->hang_asked_at + SR_HANG_GRACE_S;
    else if (job->state == SR_JOB_RUNNING && job->deadline > 0)
        next = job->deadline;
    else if (job->state == SR_JOB_ENDING && job->kill_at > 0)
        next = job->kill_at;
    else
        return -1;
    double ms = (next - sr_now()) * 1000.0 + 1.0;
    return ms < 0 ? 0 : ms > 1e9 ? 1000000000 : (int)ms;
}

static void poll_add(poll_set_t *set, int fd, short events, source_t source, int rank)
{
    set->fds[set->count] = (struct pollfd){.fd = fd, .events = events};
    set->source[set->count] = source;
    set->rank[set->count] = rank;
    set->count++;
}

static void build_poll_set(sr_job_t *job, int sigfd, poll_set_t *set)
{
    set->count = 0;
    poll_add(set, sigfd, POLLIN, SRC_SIGNAL, -1);
    if (job->part != NULL && job->part->ctl_fd >= 0)
        poll_add(set, job->part->ctl_fd, POLLIN, SRC_CONTROL, -1);
    if (sr_stdin_wants_input(&job->in))
        poll_add(set, job->in.src, POLLIN, SRC_STDIN, 0);
    if (sr_stdin_wants_output(&job->in))
        poll_add(set, job->in.dest, POLLOUT, SRC_PE0_STDIN, 0);
    for (int r = 0; r < job->npes; r++) {
        sr_pe_t *pe = &job->pes[r];
        if (pe->sock >= 0)
            poll_add(set, pe->sock, POLLIN | (sr_server_wants_write(pe) ? POLLOUT : 0), SRC_SOCKET,
                     r);
        if (pe->out_stream.fd >= 0)
            poll_add(set, pe->out_stream.fd, POLLIN, SRC_STDOUT, r);
        if (pe->err_stream.fd >= 0)
            poll_add(set, pe->err_stream.fd, POLLIN, SRC_STDERR, r);
    }
}

/* A host's part of a job: acts on what the launching shoalrun says. */
static void on_control(sr_job_t *job)
{
    sr_control_t c;
    int sig = 0;

    while ((c = sr_part_control(job->part, &sig)) != SR_CTL_NONE) {
        if (c == SR_CTL_SIGNAL) {
            on_signal(job, sig);
        } else if (c == SR_CTL_HANG) {
            sr_msg("asking the PEs for their hang reports (%d processes)", sr_hang_ask(job));
        } else if (c == SR_CTL_TIMEOUT) {
            /* The launcher asked for the reports SR_HANG_GRACE_S ago: end now. */
            job->deadline = sr_now();
            job->hang_asked_at = job->deadline - SR_HANG_GRACE_S;
        } else if (c == SR_CTL_EOF) {
            sr_job_end(job, 128 + SIGHUP, SIGTERM, SR_SIGNAL_GRACE_S,
                       "the launching shoalrun is gone (its channel closed); ending the PEs");
            return;
        }
    }
}

/* Handles one ready fd. Earlier handlers in the same round may have closed
 * it (a PE's exit drains and closes its fds), hence the checks. */
static void dispatch(sr_job_t *job, int sigfd, const struct pollfd *p, source_t source, int rank)
{
    sr_pe_t *pe = rank >= 0 ? &job->pes[rank] : NULL;

    switch (source) {
    case SRC_SIGNAL:
        on_signalfd(job, sigfd);
        break;
    case SRC_CONTROL:
        on_control(job);
        break;
    case SRC_STDIN:
        if (sr_stdin_wants_input(&job->in))
            sr_stdin_read(&job->in);
        break;
    case SRC_PE0_STDIN:
        sr_stdin_write(&job->in);
        break;
    case SRC_SOCKET:
        if (pe->sock == p->fd && (p->revents & POLLOUT))
            sr_server_write(job, pe);
        if (pe->sock == p->fd && (p->revents & ~POLLOUT))
            sr_server_read(job, pe);
        break;
    case SRC_STDOUT:
        if (pe->out_stream.fd == p->fd)
            sr_stream_read(&pe->out_stream, false);
        break;
    case SRC_STDERR:
        if (pe->err_stream.fd == p->fd)
            sr_stream_read(&pe->err_stream, false);
        break;
    }
}

static void run(sr_job_t *job, int sigfd)
{
    size_t max = 4 + 3 * (size_t)job->npes;
    poll_set_t set = {
        .fds = sr_xmalloc(max * sizeof(*set.fds)),
        .source = sr_xmalloc(max * sizeof(*set.source)),
        .rank = sr_xmalloc(max * sizeof(*set.rank)),
    };

    while (job->nrunning > 0) {
        build_poll_set(job, sigfd, &set);
        int n = poll(set.fds, (nfds_t)set.count, poll_timeout_ms(job));
        if (n < 0 && errno != EINTR) {
            sr_msg("poll: %s", strerror(errno));
            sr_proc_emergency_exit();
        }
        for (int i = 0; n > 0 && i < set.count; i++)
            if (set.fds[i].revents != 0)
                dispatch(job, sigfd, &set.fds[i], set.source[i], set.rank[i]);
        on_deadlines(job);
    }
    free(set.fds);
    free(set.source);
    free(set.rank);
}

/* A PE must get fds 0-2 from us, and our own fds must not land on 0-2. */
static void open_standard_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            exit(1);
}

int main(int argc, char **argv)
{
    sr_options_t opts;
    sr_job_t job = {0};
    sigset_t handled;
    int sigfd, status;

    /* shoalrun's own rows of the settings table (the PEs read all of them). */
    static const char *const settings[] = {"SHOAL_LOG_LEVEL", "SHOAL_TIMEOUT", NULL};
    if (shoal_env_load_only(&shoal_env, settings) != SHOAL_OK)
        return 2;
    shoal_log_level = (int)shoal_env.log_level; /* the store's messages and request counter */
    status = sr_options_parse(&opts, argc, argv);
    if (status != 0)
        return status > 0 ? 0 : 2;
    status = sr_options_find_program(&opts);
    if (status != 0)
        return status;
    open_standard_fds();
    sr_host_t *hosts = NULL;
    int nhosts = 0;
    if ((opts.host_list != NULL || opts.hostfile != NULL) &&
        sr_hosts_load(&opts, &hosts, &nhosts) != 0)
        return 2;
    static sr_part_t part;
    if (opts.host_part != NULL) {
        if (sr_part_setup(&part, opts.host_part) != 0)
            return 1;
        job.part = &part;
        opts.npes = part.npes;
    }

    /* Writes to a PE or to our reader that went away fail with EPIPE instead
     * of killing us; reading a terminal in the background gives EIO. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGTTIN, SIG_IGN);
    signal(SIGTTOU, SIG_IGN);
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGHUP);
    sigaddset(&handled, SHOAL_HANG_SIGNAL);
    sigprocmask(SIG_BLOCK, &handled, &job.child_sigmask);
    sigfd = signalfd(-1, &handled, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sigfd < 0) {
        sr_msg("signalfd: %s", strerror(errno));
        return 1;
    }
    if (hosts != NULL)
        return sr_remote_run(&opts, hosts, nhosts, sigfd, &job.child_sigmask);

    job.opts = &opts;
    job.npes = opts.npes;
    job.global_npes = job.part ? job.part->global_npes : opts.npes;
    int first_rank = job.part ? job.part->first_rank : 0;
    job.pes = sr_xmalloc((size_t)job.npes * sizeof(*job.pes));
    for (int r = 0; r < job.npes; r++) {
        job.pes[r] = (sr_pe_t){.rank = first_rank + r, .sock = -1};
        sr_stream_init(&job.pes[r].out_stream, -1, STDOUT_FILENO, first_rank + r, false);
        sr_stream_init(&job.pes[r].err_stream, -1, STDERR_FILENO, first_rank + r, false);
    }
    sr_stdin_init(&job.in, -1);
    job.start_time = sr_now();
    /* A host's part ends at the launcher's word, which keeps the job's clock. */
    if (opts.timeout_s > 0 && job.part == NULL)
        job.deadline = job.start_time + opts.timeout_s;

    status = sr_mps_start(&opts, job.npes, &job.child_sigmask) != 0 ? 1 : sr_proc_start(&job);
    if (status != 0)
        sr_job_end(&job, status, SIGTERM, SR_FAILURE_GRACE_S, NULL);
    run(&job, sigfd);
    report_after_finalize(&job);

    for (int r = 0; r < job.npes; r++) {
        sr_stream_read(&job.pes[r].out_stream, true);
        sr_stream_read(&job.pes[r].err_stream, true);
        sr_stream_close(&job.pes[r].out_stream);
        sr_stream_close(&job.pes[r].err_stream);
        sr_server_close(&job, &job.pes[r]);
    }
    sr_mps_stop(); /* after the last PE, however the job ended */
    sr_server_report(&job);
    sr_server_destroy(&job);
    sr_stdin_close(&job.in);
    free(job.pes);
    close(sigfd);
    return job.exit_status;
}
