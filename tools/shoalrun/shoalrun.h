/*
 * shoalrun's shared types. The launcher is one process with one poll() loop:
 * main.c owns the loop and the decision of how the job ends, proc.c starts
 * and signals the PEs, server.c serves their bootstrap requests with the
 * config store's logic (bootstrap/store/logic.c, the same protocol as the
 * config store, over each PE's socketpair), forward.c carries their
 * standard streams, and options.c reads the command line.
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

typedef struct {
    int npes;
    bool tag_output;
    double timeout_s; /* 0: no time limit */
    sr_bind_t bind;
    bool report_bindings; /* --report-bindings: print each PE's CPUs at start */
    char **argv;          /* the program and its arguments, NULL-terminated */
} sr_options_t;

/* Returns 0 to run the job, 1 when --help or --version was answered, and -1
 * after printing why the command line is wrong. */
int sr_options_parse(sr_options_t *opts, int argc, char **argv);

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
/* Writes all of buf, waiting in poll() if fd is non-blocking. 0 or -1 (errno). */
int sr_write_all(int fd, const void *buf, size_t len);
int sr_set_nonblocking(int fd);
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

/* ---- the job (main.c) and its PEs ---------------------------------------- */

typedef struct {
    int rank;
    pid_t pid;
    bool running; /* started and not yet reaped */
    int wstatus;  /* from waitpid, once reaped */

    /* The bootstrap connection (server.c). */
    int sock;                   /* -1 once closed */
    shoal_store_peer_t *peer;   /* its side in the store's logic; NULL once closed */
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

typedef struct {
    const sr_options_t *opts;
    int npes;
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
/* The CPU PE `rank` is to be pinned to, or -1 for none. */
int sr_bind_cpu(int rank);
/* --report-bindings: one line per PE on stderr. */
void sr_bind_report(int npes);

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
