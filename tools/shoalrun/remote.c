/*
 * The launching side of a multi-host job (--host or --hostfile), as mpirun
 * does it with an rsh/ssh agent: for each host it runs
 *   AGENT HOST "cd 'CWD' && exec 'SHOALRUN' --internal-host-part=... -- PROGRAM ARGS"
 * and that shoalrun (part.c) runs the host's PEs with the config-store
 * bootstrap. Each agent's stdin is a pipe from here: the first line is the
 * job key (fresh per job, from the store's own generator), so the key is
 * never on a command line; control lines follow (remote.h's SR_CTL_*).
 * PE 0's host is started first and reports the store's port on its stdout
 * (part.c says how it chooses it); the other hosts start after that.
 *
 * The agents' stdout and stderr are forwarded a line at a time (the hosts
 * already put "[PE n] " in front, with global ranks). The job's status is
 * decided as on one host: the first agent that ends with a non-zero status
 * (a host's shoalrun exits with its PEs' status) decides it and is named,
 * and the other hosts are told to end their PEs. The store ends the job
 * with status 1 on every host when a PE leaves it early, so a status-1 host
 * may only be the echo of another host's failure: a host that ends with
 * another status shortly after is named as the cause and decides instead.
 * At --timeout every host is asked for its PEs' hang reports and, after
 * SR_HANG_GRACE_S, told to end them (status 124). SIGINT, SIGTERM and SIGHUP
 * are passed to every host; an agent
 * still running SR_REMOTE_GRACE_S after that is killed (its process group),
 * and its host's shoalrun sees its channel close and ends its PEs.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap/launcher_report.h"
#include "bootstrap/store/link.h"
#include "shoalrun.h"

/* Time a host gets, beyond its own grace for its PEs, to end after it was
 * told to; and the window in which a host's failure is taken as the cause of
 * another host's status 1. */
#define SR_REMOTE_GRACE_S 3.0
#define SR_REMOTE_CAUSE_WINDOW_S 2.0

typedef struct {
    sr_host_t *host;
    pid_t pid;
    bool running;
    int ctl;           /* write end of the agent's stdin; -1 when closed */
    bool port_pending; /* PE 0's host, before it reported the store's port */
    char line[80];     /* the port line, as it arrives */
    size_t line_len;
    sr_stream_t out, err;
} agent_t;

typedef struct {
    const sr_options_t *opts;
    agent_t *agents;
    int nagents, nstarted, nrunning;
    int sigfd;
    const sigset_t *child_mask;
    char key[SR_KEY_HEX_LEN + 2];
    char self[4096];
    char *cwd;
    int port; /* the store's; 0 until PE 0's host reported it */
    double deadline;
    double timeout_asked_at; /* the time was up: when the hosts were asked for reports */
    bool ending;
    int exit_status;
    double end_at, kill_at;
    bool cause_may_follow;
} launch_t;

static void append(sr_buf_t *b, const char *text)
{
    sr_buf_append(b, text, strlen(text));
}

/* Appends `word` quoted for a POSIX shell, and a space. */
static void append_quoted(sr_buf_t *b, const char *word)
{
    append(b, "'");
    for (const char *p = word; *p; p++)
        if (*p == '\'')
            append(b, "'\\''");
        else
            sr_buf_append(b, p, 1);
    append(b, "' ");
}

/* The command the agent runs on the host: that host's part of the job. */
static char *remote_command(const launch_t *L, const agent_t *a)
{
    const sr_options_t *o = L->opts;
    sr_buf_t b = {0};
    char part[600], num[64];

    append(&b, "cd ");
    append_quoted(&b, L->cwd);
    append(&b, "&& exec ");
    append_quoted(&b, L->self);
    snprintf(part, sizeof(part), "%s=%d,%d,%d,%s,%d,%s", SR_HOST_PART_OPTION, a->host->first_rank,
             a->host->npes, o->npes, L->agents[0].host->name, L->port, a->host->name);
    append_quoted(&b, part);
    if (o->tag_output)
        append(&b, "-t ");
    if (o->bind == SR_BIND_CORE)
        append(&b, "--bind-to core ");
    else if (o->bind == SR_BIND_NONE)
        append(&b, "--bind-to none ");
    if (o->report_bindings)
        append(&b, "--report-bindings ");
    if (o->mps == SR_MPS_ON) /* each host decides for its own PEs (mps.c) */
        append(&b, "--mps on ");
    else if (o->mps == SR_MPS_OFF)
        append(&b, "--mps off ");
    if (o->timeout_s > 0) { /* for the host's messages: the time is kept here */
        snprintf(num, sizeof(num), "--timeout=%.17g", o->timeout_s);
        append_quoted(&b, num);
    }
    for (int i = 0; i < o->nexports; i++) {
        append(&b, "-x ");
        append_quoted(&b, o->exports[i]);
    }
    append(&b, "-- ");
    append_quoted(&b, o->program);
    for (int i = 1; o->argv[i] != NULL; i++)
        append_quoted(&b, o->argv[i]);
    sr_buf_append(&b, "", 1);
    return b.data;
}

/* The agent's words (split at white space, as mpirun splits plm_rsh_agent),
 * the host, the command. */
static char **agent_argv(const launch_t *L, const agent_t *a, char *cmd, char **words_p)
{
    const char *agent = L->opts->launch_agent ? L->opts->launch_agent : "ssh";
    char *words = strdup(agent);
    char **argv = sr_xmalloc((strlen(agent) / 2 + 4) * sizeof(char *));
    int n = 0;
    char *save = NULL;

    if (words == NULL) {
        sr_msg("out of memory");
        exit(1);
    }
    *words_p = words;
    for (char *w = strtok_r(words, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
    argv[n++] = a->host->name;
    argv[n++] = cmd;
    argv[n] = NULL;
    return argv;
}

static void __attribute__((noreturn))
agent_exec(const launch_t *L, char **argv, int in, int out, int err)
{
    signal(SIGPIPE, SIG_DFL);
    signal(SIGTTIN, SIG_DFL);
    signal(SIGTTOU, SIG_DFL);
    sigprocmask(SIG_SETMASK, L->child_mask, NULL);
    /* A group of its own: a terminal's ^C reaches shoalrun, which tells the
     * hosts; and the agent dies with shoalrun. */
    (void)setpgid(0, 0);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(err, STDERR_FILENO) < 0)
        _exit(127);
    execvp(argv[0], argv);
    dprintf(STDERR_FILENO, "shoalrun: cannot run the launch agent '%s': %s\n", argv[0],
            strerror(errno));
    _exit(127);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Starts the agent of host `a` and gives it the key. 0, or -1 after printing why. */
static int start_agent(launch_t *L, agent_t *a)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};

    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        sr_msg("cannot start host %s: pipe: %s", a->host->name, strerror(errno));
        goto fail;
    }
    char *cmd = remote_command(L, a);
    char *words;
    char **argv = agent_argv(L, a, cmd, &words);
    pid_t pid = fork();
    if (pid == 0)
        agent_exec(L, argv, in[0], out[1], err[1]);
    int fork_errno = errno;
    free(words);
    free(argv);
    free(cmd);
    if (pid < 0) {
        sr_msg("cannot start host %s: fork: %s", a->host->name, strerror(fork_errno));
        goto fail;
    }
    (void)setpgid(pid, pid);
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&err[1]);
    a->pid = pid;
    a->running = true;
    a->ctl = in[1];
    L->nstarted++;
    L->nrunning++;
    (void)sr_set_nonblocking(out[0]);
    (void)sr_set_nonblocking(err[0]);
    (void)sr_set_nonblocking(a->ctl);
    sr_stream_init(&a->out, out[0], STDOUT_FILENO, 0, false);
    sr_stream_init(&a->err, err[0], STDERR_FILENO, 0, false);
    char line[SR_KEY_HEX_LEN + 4];
    snprintf(line, sizeof(line), "%s\n", L->key);
    (void)sr_write_all(a->ctl, line, strlen(line)); /* a dead agent is judged by its status */
    return 0;

fail:
    for (int i = 0; i < 2; i++) {
        close_fd(&in[i]);
        close_fd(&out[i]);
        close_fd(&err[i]);
    }
    return -1;
}

/* Sends a control line to every host still running. */
static void tell_all(launch_t *L, const char *line)
{
    for (int k = 0; k < L->nstarted; k++)
        if (L->agents[k].running && L->agents[k].ctl >= 0)
            (void)sr_write_all(L->agents[k].ctl, line, strlen(line));
}

static void kill_all(launch_t *L)
{
    for (int k = 0; k < L->nstarted; k++)
        if (L->agents[k].running) {
            (void)kill(-L->agents[k].pid, SIGKILL);
            (void)kill(L->agents[k].pid, SIGKILL);
            close_fd(&L->agents[k].ctl);
        }
}

/* Decides the job's status (the first decision stands), prints `why`, and
 * sends `line` to every host. */
static bool end_job(launch_t *L, int status, const char *line, double grace_s, const char *why, ...)
    __attribute__((format(printf, 5, 6)));
static bool end_job(launch_t *L, int status, const char *line, double grace_s, const char *why, ...)
{
    if (L->ending)
        return false;
    L->ending = true;
    L->exit_status = status;
    L->end_at = sr_now();
    va_list ap;
    va_start(ap, why);
    sr_vmsg(why, ap);
    va_end(ap);
    tell_all(L, line);
    L->kill_at = L->end_at + grace_s + SR_REMOTE_GRACE_S;
    return true;
}

static void end_by_signal(launch_t *L, int sig)
{
    char line[32];
    snprintf(line, sizeof(line), "signal %d\n", sig);
    end_job(L, 128 + sig, line, SR_SIGNAL_GRACE_S, "received SIG%s; ending the job on every host",
            sigabbrev_np(sig));
}

static void describe(const agent_t *a, char *text, size_t size)
{
    const sr_host_t *h = a->host;
    if (h->npes == 1)
        snprintf(text, size, "host %s (PE %d)", h->name, h->first_rank);
    else
        snprintf(text, size, "host %s (PEs %d-%d)", h->name, h->first_rank,
                 h->first_rank + h->npes - 1);
}

static void on_agent_exit(launch_t *L, agent_t *a, int wstatus)
{
    char who[320];
    int code = WIFSIGNALED(wstatus) ? 128 + WTERMSIG(wstatus) : WEXITSTATUS(wstatus);

    a->running = false;
    L->nrunning--;
    close_fd(&a->ctl);
    sr_stream_read(&a->err, true); /* its last words before our verdict */
    describe(a, who, sizeof(who));
    if (code == 0 && a->port_pending)
        code = 1;
    if (code == 0)
        return;
    if (!L->ending) {
        const char *ending = L->nrunning > 0 ? "; ending the job" : "";
        if (a->port_pending)
            end_job(L, code, "signal 15\n", SR_FAILURE_GRACE_S,
                    "%s ended with status %d before its shoalrun reported the config store's "
                    "port (is shoalrun at %s there, and does '%s HOST' work?)%s",
                    who, code, L->self, L->opts->launch_agent ? L->opts->launch_agent : "ssh",
                    ending);
        else if (WIFSIGNALED(wstatus))
            end_job(L, code, "signal 15\n", SR_FAILURE_GRACE_S,
                    "the launch agent of %s was killed by signal %d (%s)%s", who, WTERMSIG(wstatus),
                    strsignal(WTERMSIG(wstatus)), ending);
        else
            end_job(L, code, "signal 15\n", SR_FAILURE_GRACE_S, "%s ended with status %d%s", who,
                    code, ending);
        L->cause_may_follow = code == 1;
    } else if (L->cause_may_follow && code != 1 && code != 128 + SIGTERM &&
               sr_now() <= L->end_at + SR_REMOTE_CAUSE_WINDOW_S) {
        sr_msg("%s ended with status %d, the likely cause of the others' status 1", who, code);
        L->exit_status = code;
        L->cause_may_follow = false;
    }
}

static void reap(launch_t *L)
{
    for (;;) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, WNOHANG);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        for (int k = 0; k < L->nstarted; k++)
            if (L->agents[k].running && L->agents[k].pid == pid)
                on_agent_exit(L, &L->agents[k], wstatus);
    }
}

/* PE 0's host: reads its first line, the store's port, a byte at a time (its
 * PEs' output follows it in the same pipe). Then starts the other hosts. */
static void read_port_line(launch_t *L, agent_t *a)
{
    char c;
    ssize_t n;

    while ((n = read(a->out.fd, &c, 1)) == 1 && c != '\n')
        if (a->line_len + 1 < sizeof(a->line))
            a->line[a->line_len++] = c;
    if (n == 0) {
        sr_stream_close(&a->out); /* judged when the agent exits */
        return;
    }
    if (n < 0)
        return; /* EAGAIN: more later */
    a->line[a->line_len] = '\0';
    int port = 0, used = 0;
    if (sscanf(a->line, SR_PORT_LINE " %d%n", &port, &used) != 1 || a->line[used] != '\0' ||
        port < 1 || port > 65535) {
        char who[320];
        describe(a, who, sizeof(who));
        end_job(L, 1, "signal 15\n", SR_FAILURE_GRACE_S,
                "%s: expected '%s PORT' from shoalrun there, got '%s'; ending the job", who,
                SR_PORT_LINE, a->line);
        a->port_pending = false;
        return;
    }
    a->port_pending = false;
    L->port = port;
    for (int k = 1; k < L->nagents && !L->ending; k++)
        if (start_agent(L, &L->agents[k]) != 0)
            end_job(L, 1, "signal 15\n", SR_FAILURE_GRACE_S, "ending the job");
}

static void on_signals(launch_t *L)
{
    struct signalfd_siginfo info;

    while (read(L->sigfd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
        int sig = (int)info.ssi_signo;
        if (sig == SIGCHLD) {
            reap(L);
        } else if (sig == SHOAL_HANG_SIGNAL) {
            sr_msg("received SIG%s; asking every host's PEs for their hang reports",
                   sigabbrev_np(sig));
            tell_all(L, "hang\n");
        } else if (!L->ending) {
            end_by_signal(L, sig);
        } else if (L->kill_at > 0) {
            sr_msg("received SIG%s while ending the job; killing the hosts' agents now",
                   sigabbrev_np(sig));
            kill_all(L);
            L->kill_at = 0;
        }
    }
}

static void on_deadlines(launch_t *L)
{
    double now = sr_now();

    /* First every host's PEs say where they are, while every PE still runs
     * (a host that ended its PEs first would make the store end the rest);
     * SR_HANG_GRACE_S later every host ends its PEs. */
    if (!L->ending && L->deadline > 0 && now >= L->deadline && L->timeout_asked_at == 0) {
        sr_msg("timeout after %g s; asking every host's PEs for their hang reports",
               L->opts->timeout_s);
        tell_all(L, "hang\n");
        L->timeout_asked_at = now;
    }
    if (!L->ending && L->timeout_asked_at > 0 && now >= L->timeout_asked_at + SR_HANG_GRACE_S)
        end_job(L, 124, "timeout\n", SR_FAILURE_GRACE_S,
                "timeout after %g s; ending the job on every host", L->opts->timeout_s);
    if (L->ending && L->kill_at > 0 && now >= L->kill_at) {
        sr_msg("hosts still running %g s after they were told to end; killing their agents",
               now - L->end_at);
        kill_all(L);
        L->kill_at = 0;
    }
}

static int poll_timeout_ms(const launch_t *L)
{
    double next;
    if (!L->ending && L->timeout_asked_at > 0)
        next = L->timeout_asked_at + SR_HANG_GRACE_S;
    else if (!L->ending && L->deadline > 0)
        next = L->deadline;
    else if (L->ending && L->kill_at > 0)
        next = L->kill_at;
    else
        return -1;
    double ms = (next - sr_now()) * 1000.0 + 1.0;
    return ms < 0 ? 0 : ms > 1e9 ? 1000000000 : (int)ms;
}

static void loop(launch_t *L)
{
    size_t max = 1 + 2 * (size_t)L->nagents;
    struct pollfd *fds = sr_xmalloc(max * sizeof(*fds));
    int *who = sr_xmalloc(max * sizeof(*who)); /* 2k: agent k's stdout, 2k+1: its stderr */

    for (;;) {
        int n = 0;
        bool streams = false;
        fds[n] = (struct pollfd){.fd = L->sigfd, .events = POLLIN};
        who[n++] = -1;
        for (int k = 0; k < L->nstarted; k++) {
            agent_t *a = &L->agents[k];
            if (a->out.fd >= 0) {
                fds[n] = (struct pollfd){.fd = a->out.fd, .events = POLLIN};
                who[n++] = 2 * k;
            }
            if (a->err.fd >= 0) {
                fds[n] = (struct pollfd){.fd = a->err.fd, .events = POLLIN};
                who[n++] = 2 * k + 1;
            }
            streams = streams || a->out.fd >= 0 || a->err.fd >= 0;
        }
        if (L->nrunning == 0 && !streams)
            break;
        int ready = poll(fds, (nfds_t)n, poll_timeout_ms(L));
        if (ready < 0 && errno != EINTR) {
            sr_msg("poll: %s", strerror(errno));
            kill_all(L);
            exit(1);
        }
        for (int i = 0; ready > 0 && i < n; i++) {
            if (fds[i].revents == 0)
                continue;
            if (who[i] < 0) {
                on_signals(L);
                continue;
            }
            agent_t *a = &L->agents[who[i] / 2];
            if (who[i] % 2 == 1 && a->err.fd == fds[i].fd)
                sr_stream_read(&a->err, false);
            else if (who[i] % 2 == 0 && a->out.fd == fds[i].fd && a->port_pending)
                read_port_line(L, a);
            else if (who[i] % 2 == 0 && a->out.fd == fds[i].fd)
                sr_stream_read(&a->out, false);
        }
        /* An agent that exited with its pipes still open elsewhere (a
         * stray child of the agent): its streams end with the job. */
        if (L->nrunning == 0 && L->ending && L->kill_at == 0)
            break;
        on_deadlines(L);
    }
    free(fds);
    free(who);
}

static int make_key(char *key)
{
    uint8_t bytes[SR_KEY_HEX_LEN / 2];
    if (shoal_store_random(bytes, sizeof(bytes)) != SHOAL_OK) {
        sr_msg("cannot make the job key");
        return -1;
    }
    for (size_t i = 0; i < sizeof(bytes); i++)
        snprintf(key + 2 * i, 3, "%02x", bytes[i]);
    return 0;
}

int sr_remote_run(const sr_options_t *opts, sr_host_t *hosts, int nhosts, int sigfd,
                  const sigset_t *child_mask)
{
    launch_t L = {.opts = opts, .nagents = nhosts, .sigfd = sigfd, .child_mask = child_mask};
    ssize_t len = readlink("/proc/self/exe", L.self, sizeof(L.self) - 1);

    if (len <= 0 || len >= (ssize_t)sizeof(L.self) - 1) {
        sr_msg("cannot find shoalrun's own path (/proc/self/exe): %s", strerror(errno));
        return 1;
    }
    L.self[len] = '\0';
    L.cwd = getcwd(NULL, 0);
    if (L.cwd == NULL) {
        sr_msg("cannot find the current folder: %s", strerror(errno));
        return 1;
    }
    if (make_key(L.key) != 0)
        return 1;
    L.agents = sr_xmalloc((size_t)nhosts * sizeof(*L.agents));
    for (int k = 0; k < nhosts; k++) {
        L.agents[k] = (agent_t){.host = &hosts[k], .ctl = -1};
        sr_stream_init(&L.agents[k].out, -1, STDOUT_FILENO, 0, false);
        sr_stream_init(&L.agents[k].err, -1, STDERR_FILENO, 0, false);
    }
    if (opts->timeout_s > 0)
        L.deadline = sr_now() + opts->timeout_s;

    L.agents[0].port_pending = true;
    if (start_agent(&L, &L.agents[0]) != 0)
        return 1;
    loop(&L);

    for (int k = 0; k < L.nstarted; k++) {
        sr_stream_close(&L.agents[k].out);
        sr_stream_close(&L.agents[k].err);
    }
    memset(L.key, 0, sizeof(L.key));
    free(L.agents);
    free(L.cwd);
    return L.ending ? L.exit_status : 0;
}
