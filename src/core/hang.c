/*
 * Hang diagnosis, the recording side and the watchdog (see hang.h).
 *
 * A thread takes one of its PE's SHOAL_HANG_THREADS records the first time
 * one of its waits goes past the first check, and gives it back when it
 * exits (a thread-specific key's destructor). Writing a record is a
 * sequence-counted burst of stores, so a reader in another process copies
 * it consistently without any lock.
 *
 * The watchdog is one thread per PE, started at the end of shmem_init and
 * stopped at the start of shmem_finalize's teardown. It sleeps in poll() on
 * a pipe: SIGUSR1's handler writes one byte there (write(2) is
 * async-signal-safe, the report is not, so the report is made in the
 * thread). With SHOAL_HANG_TIMEOUT it also wakes every second or so, and the
 * lowest PE of each host checks every record of its host; when one has been
 * blocked longer than the timeout it asks the host's PEs for their reports
 * (SIGUSR1 to their pids), prints the host's verdict and, unless
 * SHOAL_HANG_ABORT=0, ends the job with status 124. The job's end reaches
 * the other PEs through the bootstrap; where it cannot (this host is cut off
 * from the config store's), the host's other PEs see the mark the lowest
 * left in its record and end themselves once it is gone, so the timeout
 * holds on every host. The handler is installed
 * only where SIGUSR1 still has its default action, so a program's own
 * handler wins, and only the watchdog thread takes the signal (the
 * program's sleeps and reads are not cut short); it stays installed after
 * finalize, since a launcher's request may arrive while the PE is finishing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/launcher_report.h"
#include "core/flight.h"
#include "core/hang.h"
#include "core/state.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/log.h"
#include "util/thread.h"

/* This thread's record, the library generation it was taken in, and the
 * record of its wait in progress (NULL: none, or no record). Initial-exec
 * TLS: one %fs-relative access instead of a __tls_get_addr call each time
 * a wait publishes (24 bytes of the static TLS surplus when libshoal is
 * loaded by dlopen, as from Python). */
typedef struct {
    shoal_hang_rec_t *rec;
    shoal_hang_rec_t *current;
    unsigned generation;
    int looked; /* a record was looked for in this generation (rec may be NULL) */
} thread_hang_t;
static _Thread_local thread_hang_t mine __attribute__((tls_model("initial-exec")));

static pthread_key_t release_key;
static pthread_once_t release_once = PTHREAD_ONCE_INIT;

static int wake_pipe[2] = {-1, -1}; /* made once, kept for the process's life */
static pthread_t watchdog;
static int watchdog_running;

shoal_hang_pe_t *shoal_hang_pe(int pe)
{
    if (shoal.internal == NULL || pe < 0 || pe >= SHOAL_NPES)
        return NULL;
    if (pe == SHOAL_MY_PE)
        return &shoal.internal->hang;
    shoal_internal_t *peer = shoal_internal_of(pe);
    return peer ? &peer->hang : NULL;
}

/* ---- taking and giving back a record ---- */

static void release_record(void *arg)
{
    /* At thread exit: give the record back if the library it was taken in
     * is still up (after a finalize the records are gone with the heap). */
    unsigned generation = (unsigned)(uintptr_t)arg;
    if (mine.rec != NULL && shoal.internal != NULL && generation == shoal.generation)
        __atomic_store_n(&mine.rec->owner, 0, __ATOMIC_RELEASE);
    mine.rec = NULL;
}

static void make_release_key(void)
{
    pthread_key_create(&release_key, release_record);
}

static shoal_hang_rec_t *take_record(void)
{
    if (mine.looked && mine.generation == shoal.generation)
        return mine.rec;
    mine.rec = NULL;
    if (shoal.internal == NULL)
        return NULL;
    mine.looked = 1;
    mine.generation = shoal.generation;
    uint32_t tid = (uint32_t)syscall(SYS_gettid);
    shoal_hang_pe_t *h = &shoal.internal->hang;
    for (int i = 0; i < SHOAL_HANG_THREADS; i++) {
        uint32_t free_owner = 0;
        if (__atomic_compare_exchange_n(&h->thread[i].owner, &free_owner, tid, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            mine.rec = &h->thread[i];
            pthread_once(&release_once, make_release_key);
            pthread_setspecific(release_key, (void *)(uintptr_t)shoal.generation);
            return mine.rec;
        }
    }
    __atomic_fetch_add(&h->untracked, 1, __ATOMIC_RELAXED); /* counted once per thread */
    return NULL;
}

/* A record's fields are written with relaxed atomic stores and read the
 * same way by shoal_hang_read on another thread or process (plain moves on
 * x86; the seqlock decides which copy is whole). */
#define SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

/* Opens a record for writing (seq odd); NULL when this thread has none. */
static shoal_hang_rec_t *begin(shoal_hang_kind_t kind, const char *fn)
{
    shoal_hang_rec_t *r = take_record();
    if (r == NULL) {
        mine.current = NULL;
        return NULL;
    }
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&r->kind, kind, __ATOMIC_RELAXED);
    __atomic_store_n(&r->since_ns, 0, __ATOMIC_RELAXED);
    size_t len = strnlen(fn, SHOAL_HANG_FN_MAX - 1);
    for (size_t i = 0; i <= len; i++)
        __atomic_store_n(&r->fn[i], i < len ? fn[i] : '\0', __ATOMIC_RELAXED);
    return r;
}

static void publish(shoal_hang_rec_t *r)
{
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
    mine.current = r;
}

void shoal_hang_enter(const shoal_hang_what_t *w, uint64_t now)
{
    shoal_hang_rec_t *r = begin(w->kind, w->fn);
    if (r == NULL)
        return;
    __atomic_store_n(&r->since_ns, now, __ATOMIC_RELAXED);
    SET(r->addr, (uintptr_t)w->addr);
    SET(r->value, w->value);
    SET(r->cmp, w->cmp);
    SET(r->dt_size, w->dt.size);
    SET(r->dt_signed, w->dt.is_signed);
    SET(r->mode, (uint8_t)w->mode);
    SET(r->nelems, w->nelems);
    SET(r->status, (uintptr_t)w->status);
    SET(r->values, (uintptr_t)w->values);
    SET(r->set_start, w->set_start);
    SET(r->set_stride, w->set_stride);
    SET(r->set_size, w->set_size);
    SET(r->set_index, w->set_index);
    SET(r->psync, (uintptr_t)w->psync);
    SET(r->round, w->word);
    SET(r->root, w->root);
    publish(r);
}

void shoal_hang_simple(shoal_hang_kind_t kind, const char *fn)
{
    shoal_hang_rec_t *r = begin(kind, fn);
    if (r == NULL)
        return;
    if (kind == SHOAL_HANG_FINALIZE) {
        /* The whole job, in the bootstrap's barrier (which does not back off here). */
        __atomic_store_n(&r->since_ns, shoal_clock_ns(), __ATOMIC_RELAXED);
        SET(r->set_start, 0);
        SET(r->set_stride, 1);
        SET(r->set_size, SHOAL_NPES);
        SET(r->set_index, SHOAL_MY_PE);
        SET(r->psync, 0);
        SET(r->root, -1);
    }
    publish(r);
}

void shoal_hang_leave(void)
{
    shoal_hang_rec_t *r = mine.current;
    if (r == NULL)
        return;
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&r->kind, SHOAL_HANG_NONE, __ATOMIC_RELAXED);
    __atomic_store_n(&r->since_ns, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
    mine.current = NULL;
}

void shoal_hang_lock_taken(const long *lock, uint64_t ticket)
{
    if (shoal.internal == NULL)
        return;
    shoal_hang_pe_t *h = &shoal.internal->hang;
    __atomic_store_n(&h->lock_ticket, ticket, __ATOMIC_RELAXED);
    __atomic_store_n(&h->lock_held, (uintptr_t)lock, __ATOMIC_RELEASE);
}

void shoal_hang_lock_released(const long *lock)
{
    if (shoal.internal == NULL)
        return;
    uint64_t expected = (uintptr_t)lock;
    __atomic_compare_exchange_n(&shoal.internal->hang.lock_held, &expected, 0, 0, __ATOMIC_RELEASE,
                                __ATOMIC_RELAXED);
}

int shoal_hang_read(const shoal_hang_rec_t *src, shoal_hang_rec_t *copy)
{
    for (int tries = 0; tries < 100; tries++) {
        uint32_t seq = __atomic_load_n(&src->seq, __ATOMIC_ACQUIRE);
        if (seq & 1) {
            sched_yield();
            continue;
        }
        const uint64_t *from = (const uint64_t *)src;
        uint64_t *to = (uint64_t *)copy;
        for (size_t i = 0; i < sizeof(*copy) / sizeof(uint64_t); i++)
            to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&src->seq, __ATOMIC_RELAXED) == seq) {
            copy->fn[SHOAL_HANG_FN_MAX - 1] = '\0';
            return 0;
        }
    }
    return -1;
}

/* ---- the watchdog ---- */

static void on_sigusr1(int sig)
{
    (void)sig;
    int saved = errno;
    int fd = __atomic_load_n(&wake_pipe[1], __ATOMIC_RELAXED);
    if (fd >= 0) {
        ssize_t ignored = write(fd, "D", 1);
        (void)ignored;
    }
    errno = saved;
}

/* 1 while SIGUSR1 is ours and blocked in the thread that called shmem_init,
 * so that only the watchdog takes it. */
static int steered;

static void set_blocked(int how)
{
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, SHOAL_HANG_SIGNAL);
    pthread_sigmask(how, &one, NULL);
}

/* A child forked by the program runs with the mask of the thread that
 * forked; SIGUSR1 is given back to it (and to what it executes). */
static void unblock_in_child(void)
{
    if (steered)
        set_blocked(SIG_UNBLOCK);
}

static void register_atfork(void)
{
    pthread_atfork(NULL, NULL, unblock_in_child);
}

/* Installs the handler where SIGUSR1 has its default action (a program's
 * own handler wins), and steers the signal to the watchdog: a request for a
 * report must not interrupt the program's sleep, nanosleep or read (which
 * return early with EINTR even under SA_RESTART). The mask is set in the
 * thread calling shmem_init, so the threads it starts later inherit it and
 * the kernel delivers a process-directed SIGUSR1 to the watchdog, the one
 * thread taking it; threads started before shmem_init can still take it. */
static void install_handler(void)
{
    struct sigaction old, sa;
    if (sigaction(SHOAL_HANG_SIGNAL, NULL, &old) != 0)
        return;
    if (old.sa_handler != on_sigusr1) {
        if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO)) {
            SHOAL_DEBUG("SIGUSR1 has a handler of the program's; hang reports on demand are off");
            return;
        }
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_sigusr1;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SHOAL_HANG_SIGNAL, &sa, NULL);
    }
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    pthread_once(&atfork_once, register_atfork);
    set_blocked(SIG_BLOCK);
    steered = 1;
}

/* The lowest PE of each host watches every record of its host. A record
 * whose sequence number has not moved while it says "blocked" belongs to
 * one wait that is still going on; the watchdog notes when it first saw
 * each, so waits that never back off through shoal_backoff (the network's
 * quiet) are timed too. */
typedef struct {
    uint32_t seq;
    uint64_t first_seen_ns;
} seen_t;
static seen_t *seen; /* [npes * SHOAL_HANG_THREADS] */

static int any_blocked_longer(uint64_t limit_ns, int *pe_p)
{
    const uint64_t now = shoal_clock_ns();
    int found = 0;
    for (int pe = 0; pe < SHOAL_NPES; pe++) {
        if (!shoal_pe_on_host(pe))
            continue;
        shoal_hang_pe_t *h = shoal_hang_pe(pe);
        if (h == NULL)
            continue;
        for (int t = 0; t < SHOAL_HANG_THREADS; t++) {
            const shoal_hang_rec_t *r = &h->thread[t];
            seen_t *e = &seen[(size_t)pe * SHOAL_HANG_THREADS + t];
            uint32_t seq = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
            int blocked = __atomic_load_n(&r->kind, __ATOMIC_RELAXED) != SHOAL_HANG_NONE;
            if (!blocked || (seq & 1)) {
                e->first_seen_ns = 0;
                continue;
            }
            if (e->first_seen_ns == 0 || e->seq != seq) {
                e->seq = seq;
                e->first_seen_ns = now;
            }
            uint64_t since = __atomic_load_n(&r->since_ns, __ATOMIC_RELAXED);
            uint64_t start = since != 0 && since < e->first_seen_ns ? since : e->first_seen_ns;
            if (!found && now - start > limit_ns) {
                *pe_p = pe;
                found = 1;
            }
        }
    }
    return found;
}

/* Another PE of this host that can be asked for a report: its record, and
 * its pid in *pid_p; NULL for this PE, PEs of other hosts and PEs gone. */
static shoal_hang_pe_t *host_peer(int pe, pid_t *pid_p)
{
    if (pe == SHOAL_MY_PE || !shoal_pe_on_host(pe))
        return NULL;
    shoal_hang_pe_t *h = shoal_hang_pe(pe);
    *pid_p = h ? (pid_t)__atomic_load_n(&h->pid, __ATOMIC_RELAXED) : 0;
    return *pid_p > 0 ? h : NULL;
}

/* Asks the other PEs of this host for their reports. */
static void ask_host_peers(void)
{
    pid_t pid;
    for (int pe = 0; pe < SHOAL_NPES; pe++)
        if (host_peer(pe, &pid) != NULL)
            kill(pid, SHOAL_HANG_SIGNAL);
}

/* Waits until every PE asked at `asked_ns` printed its report (or is
 * gone), at most `max_ms`: a loaded host may take longer than a fixed
 * moment, and a report cut off by the job's end is what a person reads
 * first. */
static void await_peer_reports(uint64_t asked_ns, int max_ms)
{
    for (int waited = 0; waited < max_ms; waited += 10) {
        int pending = 0;
        pid_t pid;
        for (int pe = 0; pe < SHOAL_NPES && !pending; pe++) {
            shoal_hang_pe_t *h = host_peer(pe, &pid);
            pending = h != NULL && __atomic_load_n(&h->reported_ns, __ATOMIC_ACQUIRE) < asked_ns &&
                      kill(pid, 0) == 0;
        }
        if (!pending)
            return;
        struct timespec step = {0, 10 * 1000000L};
        nanosleep(&step, NULL);
    }
}

static void on_timeout(int pe)
{
    const unsigned s = shoal_env.hang_timeout;
    const uint64_t asked_ns = shoal_clock_ns();
    ask_host_peers();
    shoal_hang_report(SHOAL_HANG_TIMEOUT, 1);
    if (!shoal_env.hang_abort)
        return;
    await_peer_reports(asked_ns, 5000); /* theirs, before the job ends */
    char msg[256];
    snprintf(msg, sizeof(msg),
             "shoal[PE %d] hang: PE %d has been blocked for more than SHOAL_HANG_TIMEOUT=%u s; "
             "ending the job (status 124; SHOAL_HANG_ABORT=0 keeps it waiting)",
             SHOAL_MY_PE, pe, s);
    fflush(NULL);
    __atomic_store_n(&shoal.internal->hang.ended_ns, shoal_clock_ns(), __ATOMIC_RELEASE);
    shoal.bs.ops->abort(&shoal.bs, 124, msg);
    _exit(124);
}

/* How long the host's other PEs wait for the job's end through the
 * bootstrap after the lowest PE ended it for a hang and exited: the
 * store's ABORT normally arrives within milliseconds. */
#define HANG_END_GRACE_NS 1000000000ull
/* ... and at most this long while it is still trying to reach the store. */
#define HANG_END_MAX_NS 10000000000ull

/* A PE other than the host's lowest: when the lowest ended the job for a
 * hang but the end did not reach this PE (the bootstrap could not carry
 * it: a cut link to the store's host), this PE ends itself the same way. */
static void follow_host_end(int leader)
{
    shoal_hang_pe_t *h = shoal_hang_pe(leader);
    uint64_t ended = h ? __atomic_load_n(&h->ended_ns, __ATOMIC_ACQUIRE) : 0;
    static uint64_t leader_gone_ns;
    if (ended == 0)
        return;
    const uint64_t now = shoal_clock_ns();
    pid_t pid = (pid_t)__atomic_load_n(&h->pid, __ATOMIC_RELAXED);
    if (leader_gone_ns == 0 && (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH)))
        leader_gone_ns = now;
    if (!(leader_gone_ns != 0 && now - leader_gone_ns >= HANG_END_GRACE_NS) &&
        now - ended < HANG_END_MAX_NS)
        return;
    SHOAL_ERROR("PE %d ended the job for a hang (SHOAL_HANG_TIMEOUT=%u s), but the end did not "
                "reach this PE through the bootstrap (is the config store's host unreachable "
                "from here?); exiting with status 124",
                leader, shoal_env.hang_timeout);
    fflush(NULL);
    _exit(124);
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    shoal_thread_name("shoal-hang");
    if (steered)
        set_blocked(SIG_UNBLOCK);
    const unsigned s = shoal_env.hang_timeout;
    const int leader = shoal.node[SHOAL_MY_PE] == SHOAL_MY_PE;
    /* Check about four times per timeout, at most once a second. */
    int tick_ms = s == 0 ? -1 : s >= 4 ? 1000 : (int)(s * 250);
    int reported = 0; /* a timeout report was made and nothing has been unblocked since */
    for (;;) {
        struct pollfd p = {.fd = wake_pipe[0], .events = POLLIN};
        int n = poll(&p, 1, tick_ms);
        int dump = 0, quit = 0;
        if (n > 0) {
            char buf[64];
            ssize_t got;
            while ((got = read(wake_pipe[0], buf, sizeof(buf))) > 0)
                for (ssize_t i = 0; i < got; i++) {
                    quit |= buf[i] == 'Q';
                    dump |= buf[i] == 'D';
                }
        }
        if (dump) { /* a request that came before finalize is still answered */
            shoal_hang_report(SHOAL_HANG_ASKED, leader);
            __atomic_store_n(&shoal.internal->hang.reported_ns, shoal_clock_ns(), __ATOMIC_RELEASE);
        }
        if (quit)
            return NULL;
        if (s != 0 && leader && seen != NULL) {
            int pe = -1;
            int hung = any_blocked_longer((uint64_t)s * 1000000000u, &pe);
            if (hung && !reported) {
                on_timeout(pe);
                reported = 1;
            } else if (!hung) {
                reported = 0;
            }
        }
        if (s != 0 && !leader && shoal_env.hang_abort)
            follow_host_end(shoal.node[SHOAL_MY_PE]);
    }
}

void shoal_hang_start(void)
{
    shoal_hang_pe_t *h = &shoal.internal->hang;
    memset(h, 0, sizeof(*h));
    h->pid = (uint64_t)getpid();
    for (int r = 0; r < 2; r++) {
        h->row_base[r] = shoal.route.row[r].base;
        h->row_size[r] = shoal.route.row[r].size;
    }
    /* The ring follows the team slots (shmem_init sized the area for it). */
    __atomic_store_n(&h->flight_off, shoal_flight_start(shoal_internal_size(shoal_env.teams_max)),
                     __ATOMIC_RELEASE);
    if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        SHOAL_WARN("hang diagnosis is off: pipe2 failed: %m");
        return;
    }
    char buf[64];
    while (read(wake_pipe[0], buf, sizeof(buf)) > 0) {
    } /* requests made while no watchdog ran */
    install_handler();
    free(seen);
    seen = shoal_env.hang_timeout ? calloc((size_t)SHOAL_NPES * SHOAL_HANG_THREADS, sizeof(*seen))
                                  : NULL;
    /* The watchdog takes no signal of the program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&watchdog, NULL, watchdog_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        unblock_in_child(); /* no watchdog to take it */
        steered = 0;
        SHOAL_WARN("hang diagnosis is off: pthread_create failed: %s", strerror(rc));
        return;
    }
    watchdog_running = 1;
}

void shoal_hang_stop(void)
{
    shoal_flight_stop();
    if (!watchdog_running)
        return;
    ssize_t ignored = write(wake_pipe[1], "Q", 1);
    (void)ignored;
    pthread_join(watchdog, NULL);
    watchdog_running = 0;
    if (steered) { /* a late request lands on this thread again */
        set_blocked(SIG_UNBLOCK);
        steered = 0;
    }
    mine.current = NULL;
}
