/*
 * An MPS control daemon for the job (--mps auto|on|off). Several processes
 * on one GPU without MPS are time-sliced by the driver: a kernel that waits
 * for another PE keeps the GPU until its slice (about 1 ms) ends, so every
 * hand-off between two PEs of one GPU costs about a slice. Under MPS their
 * kernels run at once, each on a share of the SMs.
 *
 * So when more PEs of this host than it has GPUs will start, and
 * nvidia-cuda-mps-control is in PATH, and no MPS daemon serves this user
 * already (CUDA_MPS_PIPE_DIRECTORY set, or a live control pipe in the
 * default /tmp/nvidia-mps: then the PEs use that one), shoalrun starts a
 * daemon of the job's own: pipe and log folders in a private folder under
 * $TMPDIR (or /tmp), CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY set
 * for the PEs, `nvidia-cuda-mps-control -d` before the first PE starts, and
 * `quit` on its control command once the last PE is gone -- however the
 * job ended (atexit covers the launcher's own emergency exit) -- and the
 * folders removed. On several hosts each host's shoalrun decides for its
 * own PEs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shoalrun.h"
#include "util/log.h"

#define MPS_CONTROL "nvidia-cuda-mps-control"
#define MPS_DEFAULT_PIPE_DIR "/tmp/nvidia-mps"
/* How long the control command may take to start or stop the daemon. */
#define MPS_COMMAND_LIMIT_S 10.0

static struct {
    bool started;  /* our daemon runs: quit it at the end */
    char *control; /* the control command's path */
    char dir[256]; /* the private folder: dir/pipe, dir/log */
    char pipe_dir[300];
    char log_dir[300];
    const sigset_t *child_mask;
} mps;

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
    if (shoal_log_level < SHOAL_LOG_INFO)
        return;
    va_list ap;
    va_start(ap, fmt);
    sr_vmsg(fmt, ap);
    va_end(ap);
}

/* Whether `path` is a control pipe a daemon listens on: a socket that
 * accepts a connection, or a FIFO with a reader. */
static bool control_is_live(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    if (S_ISFIFO(st.st_mode)) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return false; /* ENXIO: nobody reads it */
        close(fd);
        return true;
    }
    if (!S_ISSOCK(st.st_mode) || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        return false;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    bool live = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    close(fd);
    return live;
}

/* The GPUs the PEs of this host may use: CUDA_VISIBLE_DEVICES' entries
 * (at most the GPUs there are), else the GPUs nvidia-smi -L lists, else
 * /proc/driver/nvidia/gpus; -1 when nothing tells. */
static int count_gpus(void)
{
    int present = -1;
    FILE *f = popen("nvidia-smi -L 2>/dev/null", "r");
    if (f != NULL) {
        char line[512];
        int n = 0;
        while (fgets(line, sizeof(line), f) != NULL)
            n += strncmp(line, "GPU ", 4) == 0;
        if (pclose(f) == 0)
            present = n;
    }
    if (present < 0) {
        DIR *d = opendir("/proc/driver/nvidia/gpus");
        if (d != NULL) {
            struct dirent *e;
            present = 0;
            while ((e = readdir(d)) != NULL)
                present += e->d_name[0] != '.';
            closedir(d);
        }
    }
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    if (visible == NULL)
        return present;
    /* Entries up to the first invalid one count (as the driver reads them). */
    int n = 0;
    for (const char *p = visible; *p != '\0';) {
        while (*p == ' ')
            p++;
        if (*p == '\0' || *p == ',' || (p[0] == '-' && p[1] == '1'))
            break;
        n++;
        p = strchr(p, ',');
        if (p == NULL)
            break;
        p++;
    }
    return present >= 0 && present < n ? present : n;
}

/* Runs the control command with `arg` (or "quit" on its stdin when arg is
 * NULL), its output into the log folder's shoalrun.log; its exit status,
 * or -1 after saying why. */
static int run_control(const char *arg)
{
    int in[2];
    if (pipe2(in, O_CLOEXEC) != 0) {
        sr_msg("--mps: pipe: %s", strerror(errno));
        return -1;
    }
    char log[400];
    snprintf(log, sizeof(log), "%s/shoalrun.log", mps.log_dir);
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, mps.child_mask, NULL);
        int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        if (out < 0)
            out = open("/dev/null", O_WRONLY);
        if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
            dup2(out, STDERR_FILENO) < 0)
            _exit(127);
        if (arg != NULL)
            execl(mps.control, MPS_CONTROL, arg, (char *)NULL);
        else
            execl(mps.control, MPS_CONTROL, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    if (pid < 0) {
        sr_msg("--mps: fork: %s", strerror(errno));
        close(in[1]);
        return -1;
    }
    if (arg == NULL) {
        static const char quit[] = "quit\n";
        (void)sr_write_all(in[1], quit, sizeof(quit) - 1);
    }
    close(in[1]);
    double until = sr_now() + MPS_COMMAND_LIMIT_S;
    int wstatus;
    for (;;) {
        pid_t r = waitpid(pid, &wstatus, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            sr_msg("--mps: waitpid: %s", strerror(errno));
            return -1;
        }
        if (sr_now() > until) {
            kill(pid, SIGKILL);
            waitpid(pid, &wstatus, 0);
            sr_msg("--mps: '%s %s' did not finish in %g s; killed it (its output: %s)", mps.control,
                   arg ? arg : "<<< quit", MPS_COMMAND_LIMIT_S, log);
            return -1;
        }
        nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
    }
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* Removes the private folder and what is in it (two levels: pipe/, log/). */
static void remove_dirs(void)
{
    const char *subs[] = {mps.pipe_dir, mps.log_dir};
    for (int i = 0; i < 2; i++) {
        DIR *d = opendir(subs[i]);
        if (d == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                (void)unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
        (void)rmdir(subs[i]);
    }
    (void)rmdir(mps.dir);
}

/* Makes the private folders and sets the variables the PEs inherit. */
static int make_dirs(void)
{
    const char *tmp = getenv("TMPDIR");
    /* The control socket's path must fit a sockaddr_un (108 bytes). */
    if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > 60)
        tmp = "/tmp";
    snprintf(mps.dir, sizeof(mps.dir), "%s/shoalrun-mps-XXXXXX", tmp);
    if (mkdtemp(mps.dir) == NULL) {
        sr_msg("--mps: cannot make a folder for the MPS daemon under %s: %s", tmp, strerror(errno));
        return -1;
    }
    snprintf(mps.pipe_dir, sizeof(mps.pipe_dir), "%s/pipe", mps.dir);
    snprintf(mps.log_dir, sizeof(mps.log_dir), "%s/log", mps.dir);
    if (mkdir(mps.pipe_dir, 0700) != 0 || mkdir(mps.log_dir, 0700) != 0) {
        sr_msg("--mps: cannot make %s/{pipe,log}: %s", mps.dir, strerror(errno));
        remove_dirs();
        return -1;
    }
    if (setenv("CUDA_MPS_PIPE_DIRECTORY", mps.pipe_dir, 1) != 0 ||
        setenv("CUDA_MPS_LOG_DIRECTORY", mps.log_dir, 1) != 0) {
        sr_msg("--mps: setenv: %s", strerror(errno));
        remove_dirs();
        return -1;
    }
    return 0;
}

static void forget_dirs(void)
{
    unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    unsetenv("CUDA_MPS_LOG_DIRECTORY");
    remove_dirs();
}

void sr_mps_stop(void)
{
    if (!mps.started)
        return;
    mps.started = false;
    int rc = run_control(NULL);
    if (rc != 0)
        sr_msg("--mps: stopping the job's MPS daemon ('echo quit | %s') failed%s", mps.control,
               rc > 0 ? " (non-zero status)" : "");
    else
        info("MPS: stopped the job's daemon (%s)", mps.pipe_dir);
    /* The daemon removes its pipes as it exits: give it a moment. */
    char control[400];
    snprintf(control, sizeof(control), "%s/control", mps.pipe_dir);
    for (double until = sr_now() + 2.0; access(control, F_OK) == 0 && sr_now() < until;)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    forget_dirs();
}

static void stop_at_exit(void)
{
    sr_mps_stop();
}

int sr_mps_start(const sr_options_t *opts, int npes, const sigset_t *child_mask)
{
    if (opts->mps == SR_MPS_OFF) {
        info("MPS: --mps off: %d PEs on this host use the GPUs as the driver shares them", npes);
        return 0;
    }
    const char *how = opts->mps == SR_MPS_ON ? "--mps on" : "--mps auto";
    const char *pipe_env = getenv("CUDA_MPS_PIPE_DIRECTORY");
    if (pipe_env != NULL && pipe_env[0] != '\0') {
        info("MPS: %s: CUDA_MPS_PIPE_DIRECTORY=%s names a daemon already; the PEs use it", how,
             pipe_env);
        return 0;
    }
    if (control_is_live(MPS_DEFAULT_PIPE_DIR "/control")) {
        info("MPS: %s: an MPS daemon serves %s already; the PEs use it", how, MPS_DEFAULT_PIPE_DIR);
        return 0;
    }
    mps.control = sr_which(MPS_CONTROL, false, NULL);
    if (mps.control == NULL) {
        if (opts->mps == SR_MPS_ON) {
            sr_msg("--mps on: %s is not in PATH, so shoalrun cannot start an MPS daemon for the "
                   "job; install the CUDA driver's MPS tools, put them in PATH, or run with "
                   "--mps auto or off",
                   MPS_CONTROL);
            return -1;
        }
        info("MPS: --mps auto: no %s in PATH; PEs sharing a GPU are time-sliced", MPS_CONTROL);
        return 0;
    }
    if (opts->mps == SR_MPS_AUTO) {
        int gpus = count_gpus();
        if (gpus <= 0 || npes <= gpus) {
            info("MPS: --mps auto: %d PEs on this host and %s GPU%s: no daemon needed", npes,
                 gpus < 0    ? "no known"
                 : gpus == 0 ? "no"
                             : "enough",
                 gpus == 1 ? "" : "s");
            free(mps.control);
            mps.control = NULL;
            return 0;
        }
        info("MPS: --mps auto: %d PEs share %d GPU%s on this host: starting a daemon for the "
             "job",
             npes, gpus, gpus == 1 ? "" : "s");
    }
    mps.child_mask = child_mask;
    if (make_dirs() != 0)
        return opts->mps == SR_MPS_ON ? -1 : 0;
    int rc = run_control("-d");
    if (rc != 0) {
        char first[200] = "";
        char log[400];
        snprintf(log, sizeof(log), "%s/shoalrun.log", mps.log_dir);
        FILE *f = fopen(log, "r");
        if (f != NULL) {
            if (fgets(first, sizeof(first), f) != NULL)
                first[strcspn(first, "\n")] = '\0';
            fclose(f);
        }
        sr_msg("%s: '%s -d' failed%s%s%s%s", how, mps.control, rc > 0 ? " (non-zero status)" : "",
               first[0] ? ": " : "", first,
               opts->mps == SR_MPS_ON ? "" : "; the PEs run without MPS (time-sliced)");
        forget_dirs();
        return opts->mps == SR_MPS_ON ? -1 : 0;
    }
    mps.started = true;
    atexit(stop_at_exit);
    info("MPS: started a daemon for the job: CUDA_MPS_PIPE_DIRECTORY=%s, "
         "CUDA_MPS_LOG_DIRECTORY=%s",
         mps.pipe_dir, mps.log_dir);
    return 0;
}
