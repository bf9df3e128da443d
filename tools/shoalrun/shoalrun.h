/*
 * shoalrun's shared types. The launcher is one process with one poll() loop:
 * main.c owns the loop and the decision of how the job ends, proc.c starts
 * and signals the PEs, server.c serves their bootstrap requests with the
 * config store's logic (bootstrap/store/logic.c, the same protocol as the
 * config store, over each PE's socketpair), forward.c carries their
 * standard streams, and options.c reads the command line. Across hosts
 * (--host, --hostfile) hosts.c places the PEs, remote.c runs shoalrun on
 * each host through the launch agent, and there part.c makes it run its
 * share of the PEs with the config store's bootstrap instead of server.c.
 */
#ifndef SHOALRUN_H
#define SHOALRUN_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bootstrap/store/logic.h"
#include "bootstrap/store/pump.h"

#define SR_MAX_NPES 4096

/* How long PEs get between SIGTERM and SIGKILL when the job is ended because
 * a PE failed, and when shoalrun itself was asked to stop by a signal. */
#define SR_FAILURE_GRACE_S 0.3
#define SR_SIGNAL_GRACE_S 1.0

/* ---- options.c ------------------------------------------------------------ */

typedef enum {
    SR_BIND_AUTO, /* default: one PE per free CPU when they fit (bind.c) */
    SR_BIND_CORE, /* --bind-to core: PE i runs on the i % n-th allowed CPU */
    SR_BIND_NONE, /* --bind-to none */
} sr_bind_t;

typedef enum {
    SR_MPS_AUTO, /* default: a daemon for the job where PEs share a GPU and it is safe (mps.c) */
    SR_MPS_ON,   /* --mps on: a daemon for the job unless one serves already */
    SR_MPS_OFF,  /* --mps off */
} sr_mps_t;

/* The internal option that runs shoalrun as one host's part of a multi-host
 * job (remote.c); not in --help. */
#define SR_HOST_PART_OPTION "--internal-host-part"

/* A host of a multi-host job (hosts.c): from --host or --hostfile. */
typedef struct {
    char *name;
    int slots;      /* what the list gave (1 when it named none) */
    int first_rank; /* the PEs placed on it: first_rank .. first_rank + npes - 1 */
    int npes;
} sr_host_t;

typedef struct {
    int npes;
    bool npes_given;    /* -n was given (else: one per slot, or -N per host) */
    int npernode;       /* -N/--npernode: PEs per host; 0 when not given */
    bool oversubscribe; /* more PEs than slots is allowed */
    bool tag_output;
    double timeout_s; /* 0: no time limit */
    sr_bind_t bind;
    bool report_bindings; /* --report-bindings: print each PE's CPUs at start */
    sr_mps_t mps;         /* --mps */
    char *host_list;      /* every --host/-H value, joined with ','; NULL: none */
    const char *hostfile;
    const char *launch_agent; /* --launch-agent or --mca plm_rsh_agent; NULL: ssh */
    const char *host_part;    /* the internal per-host mode (remote.c); NULL: none */
    const char **exports;     /* -x VAR=VALUE as given (VAR alone: with its value), for
                               * the shoalrun of each host */
    int nexports;
    const char *program; /* the program found by sr_options_find_program */
    char **argv;         /* the program and its arguments, NULL-terminated */
} sr_options_t;

/* Returns 0 to run the job, 1 when --help or --version was answered, and -1
 * after printing why the command line is wrong. */
int sr_options_parse(sr_options_t *opts, int argc, char **argv);
/* Looks argv[0] up as mpirun does: a name with a '/' is used as it is, any
 * other in PATH, then in the current folder. Sets opts->program. Returns 0,
 * or 127 after printing that it is nowhere. */
int sr_options_find_program(sr_options_t *opts);

/* ---- util.c --------------------------------------------------------------- */

/* A byte buffer; data[off..len) is what is still to be used. */
typedef struct {
    char *data;
    size_t off;
    size_t len;
    size_t cap;
} sr_buf_t;

/* Prints "shoalrun: <message>\n" to stderr in one write. */
void sr_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sr_vmsg(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Replaces "shoalrun" in front of the messages (a host's part of a job). */
void sr_msg_set_name(const char *name);
/* Writes all of buf, waiting in poll() if fd is non-blocking. 0 or -1 (errno). */
int sr_write_all(int fd, const void *buf, size_t len);
int sr_set_nonblocking(int fd);
/* The first executable regular file called `name` in PATH's folders, then
 * in the current folder when then_cwd: a malloc'd path, or NULL; then
 * *present_p (when not NULL) gets the first such file that is not
 * executable (malloc'd), or NULL. */
char *sr_which(const char *name, bool then_cwd, char **present_p);
double sr_now(void);
void *sr_xmalloc(size_t size);
void *sr_xrealloc(void *ptr, size_t size);
void sr_buf_reserve(sr_buf_t *buf, size_t extra);
void sr_buf_append(sr_buf_t *buf, const void *data, size_t len);
void sr_buf_free(sr_buf_t *buf);

/* ---- forward.c ------------------------------------------------------------ */

/* One of a PE's output streams, forwarded to ours a whole line at a time. */
typedef struct {
    int fd;        /* read end of the PE's pipe; -1 once it reached EOF */
    int dest;      /* STDOUT_FILENO or STDERR_FILENO */
    int rank;      /* for the --tag-output prefix */
    bool tag;      /* prefix each line with "[PE n] " */
    bool mid_line; /* part of an over-long line has been written already */
    size_t len;    /* bytes of an unfinished line held in buf */
    size_t cap;
    char *buf;
} sr_stream_t;

/* Standard input, forwarded to PE 0. */
typedef struct {
    int src;  /* our stdin; -1 once it reached EOF or PE 0 stopped reading */
    int dest; /* write end of PE 0's stdin pipe; -1 once closed */
    sr_buf_t pending;
} sr_stdin_t;

void sr_stream_init(sr_stream_t *s, int fd, int dest, int rank, bool tag);
/* Reads what is available (once, or until EOF/EAGAIN when `drain`), writes the
 * complete lines, and at EOF the unfinished one; closes fd at EOF. */
void sr_stream_read(sr_stream_t *s, bool drain);
void sr_stream_close(sr_stream_t *s);

void sr_stdin_init(sr_stdin_t *in, int dest);
bool sr_stdin_wants_input(const sr_stdin_t *in);
bool sr_stdin_wants_output(const sr_stdin_t *in);
void sr_stdin_read(sr_stdin_t *in);
void sr_stdin_write(sr_stdin_t *in);
void sr_stdin_close(sr_stdin_t *in);

/* ---- hosts.c -------------------------------------------------------------- */

/* Reads the hosts of --host or --hostfile and places the PEs on them
 * (setting opts->npes when -n was not given). 0, or -1 after printing why. */
int sr_hosts_load(sr_options_t *opts, sr_host_t **hosts_p, int *nhosts_p);

/* ---- remote.c: the launching side of a multi-host job ---------------------- */

/* Runs the job on the hosts through the launch agent, with shoalrun's
 * signals arriving at `sigfd` (`child_mask`: the mask before they were
 * blocked); returns shoalrun's exit status. */
int sr_remote_run(const sr_options_t *opts, sr_host_t *hosts, int nhosts, int sigfd,
                  const sigset_t *child_mask);

/* ---- part.c: one host's part of a multi-host job ---------------------------- */

#define SR_KEY_HEX_LEN 64                  /* the job key: 32 random bytes in hex */
#define SR_PORT_LINE "shoalrun-store-port" /* host 0's first line: the store's port */

typedef struct {
    int first_rank;  /* the global rank of this host's first PE */
    int npes;        /* PEs on this host */
    int global_npes; /* PEs in the job */
    char name[256];  /* this host, as the launcher named it */
    char store[300]; /* SHOAL_STORE for the PEs: PE 0's host and port */
    char key[SR_KEY_HEX_LEN + 2];
    int port_fd; /* host 0: the socket holding the store's port; else -1 */
    int ctl_fd;  /* the launcher's control lines (stdin); -1 after EOF */
    char ctl_buf[64];
    size_t ctl_len;
} sr_part_t;

typedef enum {
    SR_CTL_NONE,    /* nothing (more) to act on now */
    SR_CTL_SIGNAL,  /* end the PEs with this signal, as if shoalrun received it */
    SR_CTL_TIMEOUT, /* the job's time is up: hang reports, then end with 124 */
    SR_CTL_HANG,    /* ask the PEs for hang reports (SIGUSR1 to the launcher) */
    SR_CTL_EOF,     /* the launcher is gone */
} sr_control_t;

/* Parses the SR_HOST_PART_OPTION value, reads the job key from stdin and,
 * on PE 0's host, chooses the store's port and reports it on stdout. 0, or
 * -1 after printing why. */
int sr_part_setup(sr_part_t *part, const char *spec);
/* The next control from the launcher (reads what is there; non-blocking). */
sr_control_t sr_part_control(sr_part_t *part, int *sig_p);

/* ---- the job (main.c) and its PEs ---------------------------------------- */

typedef struct {
    int rank;
    pid_t pid;
    bool running; /* started and not yet reaped */
    int wstatus;  /* from waitpid, once reaped */

    /* The bootstrap connection (server.c). */
    int sock;                   /* -1 once closed */
    shoal_store_peer_t *peer;   /* its side in the store's logic; NULL once closed */
    shoal_store_pump_t pump;    /* between sock (its link) and peer's buffers */
    bool in_shmem;              /* between EVENT initialized and EVENT finalized */
    bool finalized;             /* EVENT finalized was its last event */
    bool failed_after_finalize; /* exited non-zero or by a signal after finalizing */

    sr_stream_t out_stream;
    sr_stream_t err_stream;
} sr_pe_t;

typedef enum {
    SR_JOB_RUNNING, /* no decision yet */
    SR_JOB_ENDING,  /* outcome decided; the PEs are being ended */
} sr_job_state_t;

typedef struct sr_job {
    const sr_options_t *opts;
    sr_part_t *part; /* a host's part of a multi-host job; NULL: the whole job */
    int npes;        /* PEs of this shoalrun: ranks pes[0].rank .. + npes - 1 */
    int global_npes; /* PEs of the job */
    sr_pe_t *pes;
    int nrunning;
    pid_t pgid; /* the PEs' process group (PE 0's pid) */
    char job_id[64];
    sigset_t child_sigmask; /* shoalrun's signal mask before it blocked any */
    sr_stdin_t in;

    shoal_store_server_t *store; /* the bootstrap service (server.c) */
    bool store_end_seen;         /* the store's end of the job was acted on */
    int nexited;                 /* PEs reaped so far */
    bool judging_exit;           /* reading an exited PE's last input: judge it first */

    double start_time;
    double deadline; /* when the time is up (--timeout, or the launcher said so); 0: never */
    sr_job_state_t state;
    int exit_status;
    double kill_at; /* when ENDING: time to send SIGKILL; 0 once sent */
    /* The job ended for a PE's failure that may be the consequence of another
     * PE's death (its connection to that PE went): until `end_at` +
     * SR_CAUSE_WINDOW_S, a PE found killed by a signal shoalrun did not send
     * is named as the cause and its status becomes the job's. */
    bool cause_may_follow;
    double end_at;        /* when the job's end was decided */
    double hang_asked_at; /* --timeout passed: when the PEs were asked for hang reports */
} sr_job_t;

/* Decides the job's exit status (the first decision wins: false when one was
 * taken already), prints `why` to stderr when it is non-NULL, and ends the PEs
 * still running: `sig` now, SIGKILL after `grace_s`. */
bool sr_job_end(sr_job_t *job, int exit_status, int sig, double grace_s, const char *why, ...)
    __attribute__((format(printf, 5, 6)));
/* Ends the job for a PE that exited by a signal or with a non-zero status,
 * naming it and its status. */
void sr_job_end_by_pe(sr_job_t *job, const sr_pe_t *pe);
/* Reaps and judges every PE that has exited (on SIGCHLD). */
void sr_job_reap(sr_job_t *job);
#define SR_CAUSE_WINDOW_S 0.5

/* ---- bind.c --------------------------------------------------------------- */

/* Chooses (and claims) the PEs' CPUs before any PE starts. 0, or -1 after
 * printing why. */
int sr_bind_plan(const sr_options_t *opts, int npes);
/* The CPU the i-th PE of this shoalrun is to be pinned to, or -1 for none. */
int sr_bind_cpu(int i);
/* --report-bindings: one line per PE on stderr. */
struct sr_job;
void sr_bind_report(const struct sr_job *job);

/* ---- mps.c --------------------------------------------------------------- */

/* Before the PEs start: decides whether this host's `npes` PEs get an MPS
 * daemon of the job's own (--mps) and starts it, setting
 * CUDA_MPS_PIPE_DIRECTORY and CUDA_MPS_LOG_DIRECTORY for them. 0 (also
 * when none is started), or -1 after printing why the job cannot start. */
int sr_mps_start(const sr_options_t *opts, int npes, const sigset_t *child_mask);
/* Stops the job's daemon, if one was started, and removes its folders
 * (also run at exit). */
void sr_mps_stop(void);

/* ---- proc.c --------------------------------------------------------------- */

/* Starts all PEs. Returns 0, or -1 after printing why (PEs already started are
 * still running and must be ended and reaped by the caller). */
int sr_proc_start(sr_job_t *job);
void sr_proc_signal_all(sr_job_t *job, int sig);
/* Returns a PE that has exited (its wstatus set, running cleared), or NULL. */
sr_pe_t *sr_proc_reap(sr_job_t *job);
/* Last resort after a fatal launcher error: SIGKILL, reap, exit(1). */
void sr_proc_emergency_exit(void) __attribute__((noreturn));

/* ---- hang.c --------------------------------------------------------------- */

/* How long a job that timed out waits for the PEs' hang reports. */
#define SR_HANG_GRACE_S 3.0

/* Sends SIGUSR1 to every process of the job that catches it (the PEs in
 * Shoal) and forgets earlier reports; returns how many were asked. */
int sr_hang_ask(sr_job_t *job);
/* forward.c passes every line a PE writes: notes the ends of reports. */
void sr_hang_note_line(const char *line, size_t len);
/* Whether every PE still running in Shoal has ended a report since the ask. */
bool sr_hang_all_reported(const sr_job_t *job);

/* ---- server.c ------------------------------------------------------------- */

/* Creates the store for the job (after its id is made). 0, or -1 after
 * printing why. */
int sr_server_create(sr_job_t *job);
/* Serves PE `pe` over `sock` (non-blocking), bound to its rank. */
void sr_server_attach(sr_job_t *job, sr_pe_t *pe, int sock);
/* Reads and answers what the PE sent (until EAGAIN). At EOF closes the
 * connection. */
void sr_server_read(sr_job_t *job, sr_pe_t *pe);
/* Sends queued replies that did not fit into the socket earlier. */
void sr_server_write(sr_job_t *job, sr_pe_t *pe);
/* Whether replies wait to be sent to the PE. */
bool sr_server_wants_write(const sr_pe_t *pe);
/* After a PE exited: ends the job when others wait on it in vain. */
void sr_server_check_stuck(sr_job_t *job);
/* The same question without ending the job. */
bool sr_server_is_stuck(sr_job_t *job);
/* At info level (SHOAL_LOG_LEVEL >= 2): how many requests the store served. */
void sr_server_report(const sr_job_t *job);
void sr_server_close(sr_job_t *job, sr_pe_t *pe);
/* Frees the store (after every connection is closed). */
void sr_server_destroy(sr_job_t *job);

#endif
