/*
 * The PEs as processes: starting them (fork, then exec with the job's
 * environment), signalling them together, and reaping them.
 *
 * All PEs run in one process group of their own, led by PE 0, so that a
 * signal reaches the processes they start as well. Each PE asks the kernel
 * for SIGKILL when shoalrun dies (PR_SET_PDEATHSIG), so that even `kill -9`
 * of the launcher leaves no PE behind. A child that cannot exec (or cannot
 * set itself up) reports the step and errno through a close-on-exec pipe, so
 * that shoalrun names the program and the cause once rather than N times.
 *
 * Every fd shoalrun opens is close-on-exec; a PE inherits only its stdin,
 * stdout and stderr and its end of the launcher socket (SHOAL_LAUNCHER_FD).
 * On one host of a multi-host job (part.c) there is no launcher socket: the
 * PEs get the config store's settings instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shoalrun.h"

/* Set-up steps a child may fail at, as reported through its error pipe. */
typedef enum {
    STEP_EXEC,
    STEP_SETPGID,
    STEP_PDEATHSIG,
    STEP_STDIO,
    STEP_FD,
    STEP_ENV,
    STEP_BIND,
} child_step_t;

static const char *const step_names[] = {
    [STEP_EXEC] = "exec",
    [STEP_SETPGID] = "setpgid",
    [STEP_PDEATHSIG] = "prctl",
    [STEP_STDIO] = "dup2",
    [STEP_FD] = "fcntl",
    [STEP_ENV] = "setenv",
    [STEP_BIND] = "sched_setaffinity (pinning the PE to its CPU)",
};

typedef struct {
    int step;
    int err;
} child_error_t;

/* The fds one child needs; the parent closes the child's ends after fork. */
typedef struct {
    int sock[2]; /* [0] stays with shoalrun, [1] goes to the PE */
    int out[2];  /* stdout pipe: [0] read by shoalrun, [1] the PE's */
    int err[2];
    int in; /* the PE's stdin: PE 0's pipe, or /dev/null */
    int report[2];
} child_fds_t;

/* Kept for sr_proc_emergency_exit(), which runs where no job is at hand. */
static sr_job_t *current_job;
static struct rlimit original_nofile;
static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Closes both ends (those that are open) and keeps errno for the message. */
static void close_pair(int p[2])
{
    int err = errno;
    close_fd(&p[0]);
    close_fd(&p[1]);
    errno = err;
}

static void __attribute__((noreturn)) child_fail(int report_fd, child_step_t step)
{
    child_error_t e = {.step = step, .err = errno};
    ssize_t ignored = write(report_fd, &e, sizeof(e));
    (void)ignored;
    _exit(127);
}

static int set_env_int(const char *name, long value)
{
    char text[32];
    snprintf(text, sizeof(text), "%ld", value);
    return setenv(name, text, 1);
}

/* One host's part of a multi-host job: the config store's bootstrap, with
 * nothing of another bootstrap left for the PE to find first. */
static int set_store_env(sr_job_t *job, const sr_pe_t *pe)
{
    static const char *const others[] = {"SHOAL_LAUNCHER_FD", "SHOAL_JOB_KEY_FILE",
                                         "SHOAL_LOCAL_RANK",  "SHOAL_LOCAL_NPES",
                                         "PMIX_RANK",         "PMIX_NAMESPACE"};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        if (unsetenv(others[i]) != 0)
            return -1;
    return set_env_int("SHOAL_RANK", pe->rank) != 0 ||
                   set_env_int("SHOAL_NPES", job->global_npes) != 0 ||
                   setenv("SHOAL_STORE", job->part->store, 1) != 0 ||
                   setenv("SHOAL_JOB_KEY", job->part->key, 1) != 0 ||
                   setenv("SHOAL_JOB_ID", job->job_id, 1) != 0
               ? -1
               : 0;
}

/* Runs in the child between fork and exec. shoalrun is single-threaded, so
 * setenv and the like are safe here. */
static void __attribute__((noreturn))
child_exec(sr_job_t *job, sr_pe_t *pe, const child_fds_t *fds, pid_t launcher)
{
    int report = fds->report[1];

    signal(SIGPIPE, SIG_DFL);
    signal(SIGTTIN, SIG_DFL);
    signal(SIGTTOU, SIG_DFL);
    sigprocmask(SIG_SETMASK, &job->child_sigmask, NULL);

    if (setpgid(0, job->pgid) != 0)
        child_fail(report, STEP_SETPGID);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        child_fail(report, STEP_PDEATHSIG);
    if (getppid() != launcher)
        _exit(1); /* shoalrun died before the request took effect */

    if (dup2(fds->in, STDIN_FILENO) < 0 || dup2(fds->out[1], STDOUT_FILENO) < 0 ||
        dup2(fds->err[1], STDERR_FILENO) < 0)
        child_fail(report, STEP_STDIO);
    if (job->part != NULL) {
        if (set_store_env(job, pe) != 0)
            child_fail(report, STEP_ENV);
    } else {
        if (fcntl(fds->sock[1], F_SETFD, 0) != 0)
            child_fail(report, STEP_FD);
        if (set_env_int("SHOAL_LAUNCHER_FD", fds->sock[1]) != 0 ||
            set_env_int("SHOAL_RANK", pe->rank) != 0 || set_env_int("SHOAL_NPES", job->npes) != 0 ||
            set_env_int("SHOAL_LOCAL_RANK", pe->rank) != 0 ||
            set_env_int("SHOAL_LOCAL_NPES", job->npes) != 0 ||
            setenv("SHOAL_JOB_ID", job->job_id, 1) != 0)
            child_fail(report, STEP_ENV);
    }

    int cpu = sr_bind_cpu((int)(pe - job->pes));
    if (cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (sched_setaffinity(0, sizeof(one), &one) != 0)
            child_fail(report, STEP_BIND);
    }

    (void)setrlimit(RLIMIT_NOFILE, &original_nofile);
    execvp(job->opts->program, job->opts->argv);
    child_fail(report, STEP_EXEC);
}

/* Opens the fds of one PE, all close-on-exec; the parent's ends non-blocking. */
static int open_child_fds(child_fds_t *fds, int rank, bool pipe_in, bool launcher_sock, int devnull,
                          int *stdin_writer_p)
{
    int in[2] = {-1, -1};

    fds->sock[0] = fds->sock[1] = -1;
    if (launcher_sock && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds->sock) != 0)
        goto fail;
    if (pipe2(fds->out, O_CLOEXEC) != 0)
        goto close_sock;
    if (pipe2(fds->err, O_CLOEXEC) != 0)
        goto close_out;
    if (pipe2(fds->report, O_CLOEXEC) != 0)
        goto close_err;
    if (pipe_in && pipe2(in, O_CLOEXEC) != 0)
        goto close_report;
    if ((launcher_sock && sr_set_nonblocking(fds->sock[0]) != 0) ||
        sr_set_nonblocking(fds->out[0]) != 0 || sr_set_nonblocking(fds->err[0]) != 0 ||
        (pipe_in && sr_set_nonblocking(in[1]) != 0))
        goto close_in;
    fds->in = pipe_in ? in[0] : devnull;
    *stdin_writer_p = in[1];
    return 0;

close_in:
    close_pair(in);
close_report:
    close_pair(fds->report);
close_err:
    close_pair(fds->err);
close_out:
    close_pair(fds->out);
close_sock:
    close_pair(fds->sock);
fail:
    sr_msg("cannot start PE %d: creating its sockets and pipes: %s", rank, strerror(errno));
    return -1;
}

/* Makes sure shoalrun may hold the fds of `npes` PEs and remembers the limit
 * the PEs should get back. */
static int raise_fd_limit(int npes)
{
    rlim_t needed = 4 * (rlim_t)npes + 32;
    struct rlimit raised;

    if (getrlimit(RLIMIT_NOFILE, &original_nofile) != 0)
        return 0; /* nothing known; try anyway */
    if (original_nofile.rlim_cur >= needed)
        return 0;
    if (original_nofile.rlim_max < needed) {
        sr_msg("-n %d needs about %lu open files, but the limit is %lu; raise it with "
               "'ulimit -n' or start fewer PEs",
               npes, (unsigned long)needed, (unsigned long)original_nofile.rlim_max);
        return -1;
    }
    raised = original_nofile;
    raised.rlim_cur = needed;
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) {
        sr_msg("cannot raise the open-file limit to %lu: %s", (unsigned long)needed,
               strerror(errno));
        return -1;
    }
    return 0;
}

static void make_job_id(sr_job_t *job)
{
    uint32_t r;

    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
        r = (uint32_t)time(NULL) ^ (uint32_t)getpid() * 2654435761u;
    snprintf(job->job_id, sizeof(job->job_id), "%ld-%08x", (long)getpid(), r);
}

/* Reads each child's error pipe: EOF means its exec succeeded. Reports the
 * first failure and returns the job's exit status for it, or 0. */
static int collect_exec_reports(sr_job_t *job, int *report_fds, int nstarted)
{
    int status = 0;

    for (int r = 0; r < nstarted; r++) {
        child_error_t e;
        ssize_t n;

        do
            n = read(report_fds[r], &e, sizeof(e));
        while (n < 0 && errno == EINTR);
        close(report_fds[r]);
        if (n != (ssize_t)sizeof(e) || status != 0)
            continue;
        if (e.step == STEP_EXEC) {
            sr_msg("cannot run '%s': %s", job->opts->argv[0], strerror(e.err));
            status = e.err == ENOENT ? 127 : 126;
        } else {
            sr_msg("cannot start PE %d: %s: %s", job->pes[r].rank, step_names[e.step],
                   strerror(e.err));
            status = 1;
        }
    }
    return status;
}

int sr_proc_start(sr_job_t *job)
{
    pid_t launcher = getpid();
    int devnull, status = 0;
    int *report_fds;
    int r;

    current_job = job;
    make_job_id(job);
    if (job->part == NULL && sr_server_create(job) != 0)
        return 1;
    if (raise_fd_limit(job->npes) != 0)
        return 1;
    if (sr_bind_plan(job->opts, job->npes) != 0)
        return 1;
    if (job->opts->report_bindings)
        sr_bind_report(job);
    devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) {
        sr_msg("cannot open /dev/null: %s", strerror(errno));
        return 1;
    }
    report_fds = sr_xmalloc((size_t)job->npes * sizeof(*report_fds));

    for (r = 0; r < job->npes; r++) {
        sr_pe_t *pe = &job->pes[r];
        child_fds_t fds;
        int stdin_writer = -1;
        bool pipe_in = r == 0 && job->part == NULL; /* PE 0 reads our stdin */

        if (open_child_fds(&fds, pe->rank, pipe_in, job->part == NULL, devnull, &stdin_writer) !=
            0) {
            status = 1;
            break;
        }
        pid_t pid = fork();
        if (pid == 0)
            child_exec(job, pe, &fds, launcher);
        if (pid < 0) {
            sr_msg("cannot start PE %d: fork: %s", pe->rank, strerror(errno));
            close_fd(&fds.sock[0]);
            close(fds.out[0]);
            close(fds.err[0]);
            close(fds.report[0]);
            close_fd(&stdin_writer);
        }
        close_fd(&fds.sock[1]);
        close(fds.out[1]);
        close(fds.err[1]);
        close(fds.report[1]);
        if (pipe_in)
            close(fds.in);
        if (pid < 0) {
            status = 1;
            break;
        }

        if (r == 0)
            job->pgid = pid;
        (void)setpgid(pid, job->pgid); /* also here: no race with the child */
        pe->pid = pid;
        pe->running = true;
        if (job->part == NULL)
            sr_server_attach(job, pe, fds.sock[0]);
        sr_stream_init(&pe->out_stream, fds.out[0], STDOUT_FILENO, pe->rank, job->opts->tag_output);
        sr_stream_init(&pe->err_stream, fds.err[0], STDERR_FILENO, pe->rank, job->opts->tag_output);
        if (pipe_in)
            sr_stdin_init(&job->in, stdin_writer);
        report_fds[r] = fds.report[0];
        job->nrunning++;
    }
    close(devnull);

    int exec_status = collect_exec_reports(job, report_fds, r);
    free(report_fds);
    return status != 0 ? status : exec_status;
}

void sr_proc_signal_all(sr_job_t *job, int sig)
{
    bool group_alive = false;

    /* The group, which reaches the PEs' own children too; and any PE that
     * has left the group, by itself. An unreaped member keeps the group's id
     * from being reused, so the group signal cannot hit a stranger. */
    for (int r = 0; r < job->npes; r++) {
        sr_pe_t *pe = &job->pes[r];
        if (!pe->running)
            continue;
        if (getpgid(pe->pid) == job->pgid)
            group_alive = true;
        else
            (void)kill(pe->pid, sig);
    }
    if (group_alive)
        (void)kill(-job->pgid, sig);
}

sr_pe_t *sr_proc_reap(sr_job_t *job)
{
    for (;;) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);

        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return NULL;
        for (int r = 0; r < job->npes; r++) {
            sr_pe_t *pe = &job->pes[r];
            if (pe->running && pe->pid == pid) {
                pe->running = false;
                pe->wstatus = wstatus;
                job->nrunning--;
                return pe;
            }
        }
    }
}

void sr_proc_emergency_exit(void)
{
    sr_job_t *job = current_job;

    if (job != NULL) {
        sr_proc_signal_all(job, SIGKILL);
        for (int r = 0; r < job->npes; r++)
            if (job->pes[r].running)
                while (waitpid(job->pes[r].pid, NULL, 0) < 0 && errno == EINTR)
                    ;
    }
    exit(1);
}
