/*
 * The thread that hosts the config store (see store/host.h). One poll loop
 * serves every connection through these phases:
 *   GREET      read the client's 16-byte greeting, answer with the verdict
 *              (a wrong version, security mode or job secret is refused
 *              here, by name, before any TLS);
 *   HANDSHAKE  TLS 1.3 (skipped when TLS is off);
 *   FRAMES     frames go to the store's logic, its replies go back;
 *   LINGER     after a refusal: stop writing, discard input until the
 *              client closes, so the refusal is not lost to a reset.
 * A connection must greet, authenticate and send HELLO within
 * GREET_TIMEOUT_MS; one that breaks the protocol is closed and the store
 * carries on. The logic runs under `lock`, so other threads of this
 * process (exit handler, abort) can look at it.
 *
 * The store runs inside PE 0, so anyone who can reach its port must not be
 * able to take PE 0's file descriptors or flood its log:
 *   - connections that have not joined (no HELLO accepted yet) are capped
 *     well below RLIMIT_NOFILE (pending_cap); at the cap the oldest of them
 *     in the earliest phase (no greeting yet first) is closed to make room,
 *     once it has had a round of the loop to show its greeting;
 *   - when accept fails for want of descriptors (EMFILE, ENFILE), the store
 *     closes the oldest such connection, gives back the descriptors it holds
 *     in reserve, and stops polling the listener for a while (doubling up
 *     to a second): never a spin;
 *   - every warning an outsider can trigger is rate-limited per kind
 *     (util/log_limit.h).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/store/host.h"
#include "bootstrap/store/logic.h"
#include "util/log.h"
#include "util/log_limit.h"
#include "util/thread.h"

#define GREET_TIMEOUT_MS 10000
#define LINGER_MS 2000
#define READ_CHUNK 16384
#define ACCEPTS_PER_ROUND 64
/* Connections not joined yet: at most 1/8 of RLIMIT_NOFILE, within these. */
#define PENDING_CAP_MIN 16
#define PENDING_CAP_MAX 256
/* Descriptors held for the process, given back when accept hits EMFILE. */
#define RESERVE_FDS 4
#define BACKOFF_FIRST_MS 50
#define BACKOFF_MAX_MS 1000

/* Rate-limited kinds of warning (host_t.limit). */
enum {
    LIMIT_ACCEPT,
    LIMIT_CROWD,
    LIMIT_GREETING,
    LIMIT_HANDSHAKE,
    LIMIT_CONN_FAILED,
    LIMIT_TIMEOUT,
    LIMIT_COUNT
};

typedef enum { PHASE_GREET, PHASE_HANDSHAKE, PHASE_FRAMES, PHASE_LINGER } phase_t;

typedef struct {
    int fd;
    shoal_store_link_t *link; /* owns fd once set */
    phase_t phase;
    uint8_t greet[SHOAL_STORE_HELLO_BYTES];
    size_t greet_have;
    int read_wants_write; /* TLS needs to write before it can read */
    int gone;
    int polled;           /* has been through a poll: it had its chance to speak */
    uint64_t since_ms;    /* accepted at */
    uint64_t deadline_ms; /* 0: none */
} conn_t;

typedef struct {
    shoal_store_server_t *srv;
    shoal_store_tls_t *tls;
    shoal_store_security_t security;
    uint8_t key_id[SHOAL_STORE_KEY_ID_BYTES];
    int listen_fd, wake_fd;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* broadcast after every round of the loop */
    int stop;
    uint64_t join_timeout_ms;
    char where[SHOAL_STORE_ADDR_TEXT];
    pid_t pid;                    /* the process the thread runs in */
    int pending_cap;              /* connections not joined yet, at most */
    unsigned long long nofile;    /* RLIMIT_NOFILE at the start, for messages */
    int reserve[RESERVE_FDS];     /* -1: given back */
    uint64_t listen_paused_until; /* after EMFILE: the listener is not polled till then */
    uint64_t backoff_ms;          /* the next pause; 0 after an accept that worked */
    uint64_t crowd_closed;        /* connections closed to make room, in all */
    shoal_log_limit_t limit[LIMIT_COUNT];
} host_t;

static pthread_mutex_t host_start_lock = PTHREAD_MUTEX_INITIALIZER;
static host_t *the_host;
static int local_pe_finalized; /* shoal_store_host_note_finalized */

int shoal_store_host_running(void)
{
    pthread_mutex_lock(&host_start_lock);
    int running = the_host != NULL;
    pthread_mutex_unlock(&host_start_lock);
    return running;
}

static void wake(host_t *h)
{
    uint64_t one = 1;
    ssize_t ignored = write(h->wake_fd, &one, sizeof(one));
    (void)ignored;
}

/* ---- connections --------------------------------------------------------- */

static void conn_drop(host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    conn_t *c = p->io;
    if (c->link != NULL)
        shoal_store_link_destroy(c->link);
    else
        close(c->fd);
    free(c);
    p->io = NULL;
    shoal_store_server_peer_gone(h->srv, p, now);
}

static void linger(conn_t *c, uint64_t now)
{
    shutdown(c->fd, SHUT_WR);
    c->phase = PHASE_LINGER;
    c->deadline_ms = now + LINGER_MS;
}

/* How far a connection that has not joined got: 0 nothing shown (no
 * greeting yet, or refused and lingering), 1 greeted (TLS handshake),
 * 2 authenticated without HELLO yet; -1 joined (never closed to make room). */
static int pending_class(const shoal_store_peer_t *p)
{
    const conn_t *c = p->io;
    if (c->gone || p->state != SHOAL_STORE_PEER_NEW)
        return -1;
    if (c->phase == PHASE_GREET || c->phase == PHASE_LINGER)
        return 0;
    return c->phase == PHASE_HANDSHAKE ? 1 : 2;
}

static int count_pending(host_t *h)
{
    int n = 0;
    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next)
        n += pending_class(p) >= 0;
    return n;
}

/* Closes (at the end of this round) the oldest connection of the earliest
 * class that has been polled at least once, so that a PE whose greeting is
 * on its way is not cut off before the store read it. 0 when none fits. */
static int close_oldest_pending(host_t *h, uint64_t now, const char *why)
{
    shoal_store_peer_t *victim = NULL;
    int victim_class = 3;

    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next) {
        const conn_t *c = p->io;
        int k = pending_class(p);
        if (k < 0 || !c->polled)
            continue;
        /* The list runs newest first: a later one of the same class is older. */
        if (k <= victim_class) {
            victim = p;
            victim_class = k;
        }
    }
    if (victim == NULL)
        return 0;
    conn_t *c = victim->io;
    c->gone = 1;
    h->crowd_closed++;
    SHOAL_LOG_LIMITED(&h->limit[LIMIT_CROWD], now,
                      "config store at %s: closed the connection from %s (open %.1f s, %s) %s; "
                      "%llu closed so. Many connections that do not join are an attack or a "
                      "misbehaving client: find and stop it",
                      h->where, victim->addr, (double)(now - c->since_ms) / 1000.0,
                      victim_class == 0   ? "no greeting"
                      : victim_class == 1 ? "in the TLS handshake"
                                          : "no HELLO",
                      why, (unsigned long long)h->crowd_closed);
    return 1;
}

/* Fills the reserve; 0 when the process lacks the descriptors to. */
static int reserve_take(host_t *h)
{
    int whole = 1;
    for (int i = 0; i < RESERVE_FDS; i++) {
        if (h->reserve[i] < 0)
            h->reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        whole &= h->reserve[i] >= 0;
    }
    return whole;
}

static void reserve_give_back(host_t *h)
{
    for (int i = 0; i < RESERVE_FDS; i++) {
        if (h->reserve[i] >= 0)
            close(h->reserve[i]);
        h->reserve[i] = -1;
    }
}

/* The process is out of descriptors (accept said so, or the reserve cannot
 * be filled). Spinning on the listener would help nobody: give the reserve
 * back for the process's own needs, close the oldest connection that has
 * not joined, and stop listening a while. */
static void out_of_fds(host_t *h, uint64_t now, int err)
{
    char cause[96];
    int closed;

    snprintf(cause, sizeof(cause), "%s", strerror(err));
    reserve_give_back(h);
    closed = close_oldest_pending(h, now, "to free a descriptor");
    h->backoff_ms = h->backoff_ms == 0                   ? BACKOFF_FIRST_MS
                    : h->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS
                                                         : h->backoff_ms * 2;
    h->listen_paused_until = now + h->backoff_ms;
    SHOAL_LOG_LIMITED(&h->limit[LIMIT_ACCEPT], now,
                      "config store at %s: cannot accept connections: %s (this process may "
                      "open %llu files, RLIMIT_NOFILE; the store keeps at most %d connections "
                      "that have not joined); %s, not accepting for %llu ms. Raise the limit "
                      "(ulimit -n) or find what holds so many descriptors or connections",
                      h->where, cause, h->nofile, h->pending_cap,
                      closed ? "closed the oldest connection that has not joined"
                             : "no connection to close",
                      (unsigned long long)h->backoff_ms);
}

static void accept_all(host_t *h, uint64_t now)
{
    int pending = count_pending(h);

    /* The store accepts only while it can hold its reserve: it never takes
     * the last descriptors this process has. */
    if (!reserve_take(h)) {
        out_of_fds(h, now, EMFILE);
        return;
    }

    for (int i = 0; i < ACCEPTS_PER_ROUND; i++) {
        shoal_store_sockaddr_t sa = {.len = sizeof(sa.ss)};
        char addr[SHOAL_STORE_ADDR_TEXT];
        if (pending > h->pending_cap) {
            /* Over the cap: none could be closed last time (all too new to
             * judge); this round has polled them. */
            if (!close_oldest_pending(h, now, "to make room for new connections"))
                return;
            pending--;
        }
        int fd =
            accept4(h->listen_fd, (struct sockaddr *)&sa.ss, &sa.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE) {
                out_of_fds(h, now, errno);
            } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
                       errno != ECONNABORTED) {
                /* ENOBUFS, ENOMEM and the like: do not spin on them either. */
                int err = errno;
                h->listen_paused_until = now + BACKOFF_FIRST_MS;
                SHOAL_LOG_LIMITED(&h->limit[LIMIT_ACCEPT], now,
                                  "config store at %s: accept failed: %s; not accepting for "
                                  "%d ms",
                                  h->where, strerror(err), BACKOFF_FIRST_MS);
            }
            return;
        }
        h->backoff_ms = 0;
        shoal_store_tune_socket(fd);
        shoal_store_sockaddr_format(&sa, addr, sizeof(addr));
        conn_t *c = calloc(1, sizeof(*c));
        shoal_store_peer_t *p = c ? shoal_store_server_peer_new(h->srv, addr) : NULL;
        if (p == NULL) {
            free(c);
            close(fd);
            continue;
        }
        c->fd = fd;
        c->phase = PHASE_GREET;
        c->since_ms = now;
        c->deadline_ms = now + GREET_TIMEOUT_MS;
        p->io = c;
        /* At the cap, a new connection takes the place of the oldest one
         * (closed only now, so none is closed while nobody else waits). */
        if (++pending > h->pending_cap &&
            close_oldest_pending(h, now, "to make room for new connections"))
            pending--;
    }
}

/* The verdict on a greeting, logged when it is a refusal. */
static uint8_t judge_greeting(host_t *h, shoal_store_peer_t *p)
{
    conn_t *c = p->io;
    uint8_t version, security, key_id[SHOAL_STORE_KEY_ID_BYTES];

    uint64_t now = shoal_store_now_ms();
    shoal_log_limit_t *limit = &h->limit[LIMIT_GREETING];

    if (shoal_store_greeting_decode(c->greet, &version, &security, key_id) != SHOAL_OK) {
        SHOAL_LOG_LIMITED(
            limit, now,
            "config store at %s: closed a connection from %s: it did not start with a "
            "Shoal greeting (not a Shoal PE of this version, or a client that starts "
            "TLS without the greeting)",
            h->where, p->addr);
        return SHOAL_STORE_GREET_GARBAGE;
    }
    if (version != SHOAL_STORE_PROTO_VERSION) {
        SHOAL_LOG_LIMITED(limit, now,
                          "config store at %s: refused a PE connecting from %s: it speaks protocol "
                          "version %u, this store version %u; every PE of a job must run the same "
                          "Shoal version",
                          h->where, p->addr, version, SHOAL_STORE_PROTO_VERSION);
        return SHOAL_STORE_GREET_VERSION;
    }
    if (security != h->security) {
        SHOAL_LOG_LIMITED(limit, now,
                          "config store at %s: refused a PE connecting from %s: it uses %s, this "
                          "store %s; SHOAL_STORE_TLS (or shmemx_set_conf_store_tls) and "
                          "SHOAL_STORE_TLS_INFO must agree on every PE",
                          h->where, p->addr, shoal_store_security_name(security),
                          shoal_store_security_name(h->security));
        return SHOAL_STORE_GREET_SECURITY;
    }
    if (security == SHOAL_STORE_SEC_PSK && memcmp(key_id, h->key_id, sizeof(key_id)) != 0) {
        SHOAL_LOG_LIMITED(limit, now,
                          "config store at %s: refused a PE connecting from %s: it presented a "
                          "different job secret (a PE of another job, or a wrong SHOAL_JOB_KEY / "
                          "SHOAL_JOB_KEY_FILE / unique ID)",
                          h->where, p->addr);
        return SHOAL_STORE_GREET_WRONG_SECRET;
    }
    if (shoal_store_server_over(h->srv))
        return SHOAL_STORE_GREET_CLOSED;
    return SHOAL_STORE_GREET_OK;
}

static void do_greet(host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    conn_t *c = p->io;
    uint8_t reply[SHOAL_STORE_REPLY_BYTES], verdict;
    ssize_t n = recv(c->fd, c->greet + c->greet_have, sizeof(c->greet) - c->greet_have, 0);

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        c->gone = 1;
        return;
    }
    if (n < 0)
        return;
    c->greet_have += (size_t)n;
    if (c->greet_have < sizeof(c->greet))
        return;
    verdict = judge_greeting(h, p);
    if (verdict == SHOAL_STORE_GREET_GARBAGE) {
        linger(c, now);
        return;
    }
    shoal_store_reply_encode(reply, (uint8_t)h->security, verdict);
    if (send(c->fd, reply, sizeof(reply), MSG_NOSIGNAL) != (ssize_t)sizeof(reply)) {
        c->gone = 1;
        return;
    }
    if (verdict != SHOAL_STORE_GREET_OK) {
        linger(c, now);
        return;
    }
    shoal_status_t status = h->security == SHOAL_STORE_SEC_PLAIN
                                ? shoal_store_link_tcp_create(c->fd, &c->link)
                                : shoal_store_link_tls_create(h->tls, c->fd, NULL, &c->link);
    if (status != SHOAL_OK) {
        c->gone = 1;
        return;
    }
    c->phase = h->security == SHOAL_STORE_SEC_PLAIN ? PHASE_FRAMES : PHASE_HANDSHAKE;
}

static void do_handshake(host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    conn_t *c = p->io;
    int rc = shoal_store_link_handshake(c->link);

    if (rc == 0) {
        c->phase = PHASE_FRAMES;
        c->read_wants_write = 0;
        return;
    }
    if (rc == SHOAL_STORE_IO_WANT_READ || rc == SHOAL_STORE_IO_WANT_WRITE) {
        c->read_wants_write = rc == SHOAL_STORE_IO_WANT_WRITE;
        return;
    }
    SHOAL_LOG_LIMITED(&h->limit[LIMIT_HANDSHAKE], now,
                      "config store at %s: TLS handshake with %s failed: %s; a PE with other "
                      "certificates or another job's secret?",
                      h->where, p->addr,
                      rc == SHOAL_STORE_IO_EOF ? "the client closed the connection"
                                               : c->link->error);
    /* Linger, so the TLS alert reaches the client rather than a reset. */
    linger(c, now);
}

static void do_frames(host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    conn_t *c = p->io;

    while (!p->closing) {
        if (shoal_store_buf_reserve(&p->in, READ_CHUNK) != SHOAL_OK) {
            c->gone = 1;
            return;
        }
        long n = shoal_store_link_read(c->link, p->in.data + p->in.len, p->in.cap - p->in.len);
        if (n > 0) {
            p->in.len += (size_t)n;
            if (shoal_store_server_input(h->srv, p, now) != SHOAL_OK) {
                c->gone = 1;
                return;
            }
            continue;
        }
        c->read_wants_write = n == SHOAL_STORE_IO_WANT_WRITE;
        if (n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE)
            return;
        if (n == SHOAL_STORE_IO_ERROR && shoal_store_errno_unreachable(c->link->sys_errno))
            p->unreachable = 1; /* the store's message names the host (logic.c) */
        else if (n == SHOAL_STORE_IO_ERROR)
            SHOAL_LOG_LIMITED(&h->limit[LIMIT_CONN_FAILED], now,
                              "config store at %s: connection from %s (PE %d) failed: %s", h->where,
                              p->addr, p->rank, c->link->error);
        c->gone = 1;
        return;
    }
}

static void do_linger(conn_t *c)
{
    char discard[4096];
    ssize_t n = recv(c->fd, discard, sizeof(discard), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        c->gone = 1;
}

static void flush(shoal_store_peer_t *p)
{
    conn_t *c = p->io;

    if (c->phase != PHASE_FRAMES || c->gone)
        return;
    while (shoal_store_buf_unread(&p->out) > 0) {
        long n = shoal_store_link_write(c->link, shoal_store_buf_head(&p->out),
                                        shoal_store_buf_unread(&p->out));
        if (n > 0) {
            shoal_store_buf_consume(&p->out, (size_t)n);
            continue;
        }
        if (n != SHOAL_STORE_IO_WANT_READ && n != SHOAL_STORE_IO_WANT_WRITE) {
            p->unreachable =
                n == SHOAL_STORE_IO_ERROR && shoal_store_errno_unreachable(c->link->sys_errno);
            c->gone = 1;
        }
        return;
    }
}

static void progress(host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    conn_t *c = p->io;
    if (c->gone)
        return; /* closed to make room; dropped at the end of the round */
    if (c->phase == PHASE_GREET)
        do_greet(h, p, now);
    if (!c->gone && c->phase == PHASE_HANDSHAKE)
        do_handshake(h, p, now);
    if (!c->gone && c->phase == PHASE_FRAMES)
        do_frames(h, p, now);
    else if (!c->gone && c->phase == PHASE_LINGER)
        do_linger(c);
}

/* Ends connections that are done, refused, silent too long or lingering. */
static void sweep(host_t *h, uint64_t now)
{
    shoal_store_peer_t *p = shoal_store_server_peers(h->srv), *next;
    for (; p != NULL; p = next) {
        conn_t *c = p->io;
        next = p->next;
        if (c->phase == PHASE_FRAMES && p->closing && shoal_store_buf_unread(&p->out) == 0)
            linger(c, now);
        if (c->phase == PHASE_FRAMES && p->state != SHOAL_STORE_PEER_NEW)
            c->deadline_ms = 0;
        if (!c->gone && c->deadline_ms != 0 && now >= c->deadline_ms) {
            if (c->phase != PHASE_LINGER)
                SHOAL_LOG_LIMITED(&h->limit[LIMIT_TIMEOUT], now,
                                  "config store at %s: closed the connection from %s: no "
                                  "greeting, handshake and HELLO within %d s",
                                  h->where, p->addr, GREET_TIMEOUT_MS / 1000);
            c->gone = 1;
        }
        if (c->gone)
            conn_drop(h, p, now);
    }
}

static void *host_main(void *arg)
{
    host_t *h = arg;
    shoal_thread_name("shoal-storehost");
    struct pollfd *fds = NULL;
    shoal_store_peer_t **who = NULL;
    size_t cap = 0;
    sigset_t pipe_set;

    /* OpenSSL writes with write(2): a peer gone must not kill the process. */
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);

    pthread_mutex_lock(&h->lock);
    while (!h->stop) {
        size_t n = (size_t)shoal_store_server_npeers(h->srv) + 2, k = 2;
        uint64_t now = shoal_store_now_ms(), next;
        if (n > cap) {
            struct pollfd *f = realloc(fds, n * sizeof(*fds));
            shoal_store_peer_t **w = f ? realloc(who, n * sizeof(*who)) : NULL;
            if (f != NULL)
                fds = f;
            if (w == NULL) {
                /* Out of memory: wait for connections to go away. */
                pthread_mutex_unlock(&h->lock);
                poll(NULL, 0, 100);
                pthread_mutex_lock(&h->lock);
                continue;
            }
            who = w;
            cap = n;
        }
        fds[0] = (struct pollfd){.fd = h->wake_fd, .events = POLLIN};
        /* A negative fd is left out of the poll: the listener rests after EMFILE. */
        fds[1] = (struct pollfd){.fd = now < h->listen_paused_until ? -1 : h->listen_fd,
                                 .events = POLLIN};
        next = shoal_store_server_tick(h->srv, now);
        if (now < h->listen_paused_until && h->listen_paused_until < next)
            next = h->listen_paused_until;
        for (int i = 0; i < LIMIT_COUNT; i++) {
            uint64_t due = shoal_log_limit_flush(&h->limit[i], now);
            if (due < next)
                next = due;
        }
        for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next) {
            conn_t *c = p->io;
            short events = POLLIN;
            if (c->read_wants_write ||
                (c->phase == PHASE_FRAMES && shoal_store_buf_unread(&p->out) > 0))
                events |= POLLOUT;
            fds[k] = (struct pollfd){.fd = c->fd, .events = events};
            who[k++] = p;
            if (c->deadline_ms != 0 && c->deadline_ms < next)
                next = c->deadline_ms;
        }
        int timeout = next == UINT64_MAX ? -1 : next <= now ? 0 : (int)(next - now);
        pthread_cond_broadcast(&h->cond);
        pthread_mutex_unlock(&h->lock);
        int rc = poll(fds, (nfds_t)k, timeout);
        pthread_mutex_lock(&h->lock);
        if (h->stop)
            break;
        now = shoal_store_now_ms();
        if (rc > 0 && (fds[0].revents & POLLIN)) {
            uint64_t v;
            ssize_t ignored = read(h->wake_fd, &v, sizeof(v));
            (void)ignored;
        }
        for (size_t i = 2; rc >= 0 && i < k; i++) {
            ((conn_t *)who[i]->io)->polled = 1;
            if (fds[i].revents != 0)
                progress(h, who[i], now);
        }
        /* After the greetings that came are read, so that making room
         * closes only connections that have had their chance. */
        if (rc > 0 && (fds[1].revents & POLLIN))
            accept_all(h, now);
        /* Handling one peer's frame may queue output for others. */
        for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next)
            flush(p);
        shoal_store_server_tick(h->srv, now);
        sweep(h, now);
    }
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
    free(fds);
    free(who);
    return NULL;
}

/* ---- exit ---------------------------------------------------------------- */

/* Waits (lock held) until `done` or the deadline; 1 when done. */
static int wait_until(host_t *h, int (*done)(host_t *), uint64_t deadline_ms)
{
    while (!done(h) && !h->stop) {
        uint64_t now = shoal_store_now_ms();
        if (now >= deadline_ms)
            return 0;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t wait_ms = deadline_ms - now < 200 ? deadline_ms - now : 200;
        ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        ts.tv_sec += (time_t)(wait_ms / 1000) + ts.tv_nsec / 1000000000L;
        ts.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&h->cond, &h->lock, &ts);
    }
    return done(h);
}

/* Every other PE has closed its connection (clients that never joined do
 * not count: an idle stranger must not hold up the end of the job). */
static int others_gone(host_t *h)
{
    int joined = 0;
    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next)
        joined += p->rank >= 0;
    return joined <= 1;
}

static int job_finished(host_t *h)
{
    return shoal_store_server_finished(h->srv);
}

/* Every frame queued for a peer is sent and every refused peer has read its
 * refusal and closed: cutting a lingering connection at exit can reset it
 * before the peer reads why it was refused. */
static int all_delivered(host_t *h)
{
    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next) {
        const conn_t *c = p->io;
        if (c->phase == PHASE_LINGER ||
            (c->phase == PHASE_FRAMES && shoal_store_buf_unread(&p->out) > 0))
            return 0;
    }
    return 1;
}

/* From another thread of the host's process: waits (bounded) for `done`. */
static void host_wait_for(int (*done)(host_t *), uint64_t timeout_ms)
{
    host_t *h = the_host;
    if (h == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    wake(h);
    wait_until(h, done, shoal_store_now_ms() + timeout_ms);
    pthread_mutex_unlock(&h->lock);
}

void shoal_store_host_drain(uint64_t timeout_ms)
{
    host_wait_for(others_gone, timeout_ms);
}

void shoal_store_host_deliver(uint64_t timeout_ms)
{
    host_wait_for(all_delivered, timeout_ms);
}

void shoal_store_host_note_finalized(int finalized)
{
    __atomic_store_n(&local_pe_finalized, finalized, __ATOMIC_RELEASE);
}

/*
 * At exit, the store must outlive the job it serves: with status 0, or
 * after this process's PE finalized (whatever the status: a PE that has
 * finalized is on its own, and the others may still be finishing their
 * own work), this waits until every PE has finalized (bounded by the join
 * timeout while the job has not started); with another status before
 * finalize it ends the job, so no PE waits for a store that is gone.
 */
static void host_at_exit(int status, void *arg)
{
    host_t *h = arg;
    uint64_t start = shoal_store_now_ms();

    if (getpid() != h->pid)
        return; /* a forked child: the store is its parent's */
    if (__atomic_load_n(&local_pe_finalized, __ATOMIC_ACQUIRE))
        status = 0; /* the exit status is the program's own business now */
    pthread_mutex_lock(&h->lock);
    if (status != 0 && !shoal_store_server_finished(h->srv) &&
        shoal_store_server_npeers(h->srv) > 0) {
        char msg[SHOAL_STORE_ADDR_TEXT + 200];
        snprintf(msg, sizeof(msg),
                 "the process hosting the config store at %s (pid %ld) exited with status %d "
                 "before the job finished; ending the job",
                 h->where, (long)getpid(), status);
        SHOAL_ERROR("%s", msg);
        shoal_store_server_abort(h->srv, status, SHOAL_STORE_NO_ORIGIN, msg);
        wake(h);
        wait_until(h, others_gone, start + LINGER_MS);
    } else if (status == 0 && !job_finished(h)) {
        if (!shoal_store_server_started(h->srv))
            wait_until(h, job_finished, start + h->join_timeout_ms);
        if (!job_finished(h) && shoal_store_server_started(h->srv) &&
            !wait_until(h, job_finished, shoal_store_now_ms() + 2000)) {
            SHOAL_WARN("config store at %s: this process is done, but %d PE(s) have not "
                       "finalized yet; it hosts their store, so it waits for them",
                       h->where, shoal_store_server_unfinished(h->srv));
            wait_until(h, job_finished, UINT64_MAX);
        }
    }
    wait_until(h, all_delivered, shoal_store_now_ms() + LINGER_MS);
    if (shoal_store_server_started(h->srv))
        shoal_store_server_report(h->srv);
    /* What the rate limits left out in their last window is said now. */
    for (int i = 0; i < LIMIT_COUNT; i++)
        shoal_log_limit_flush(&h->limit[i], UINT64_MAX);
    shoal_store_server_flush_logs(h->srv);
    h->stop = 1;
    wake(h);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
}

/* ---- start --------------------------------------------------------------- */

static const char *const limit_names[LIMIT_COUNT] = {
    [LIMIT_ACCEPT] = "accept failures",
    [LIMIT_CROWD] = "connections closed to make room",
    [LIMIT_GREETING] = "connections refused at the greeting",
    [LIMIT_HANDSHAKE] = "failed TLS handshakes",
    [LIMIT_CONN_FAILED] = "failed connections",
    [LIMIT_TIMEOUT] = "connections closed for not joining in time",
};

/* The cap on connections that have not joined, from RLIMIT_NOFILE; the
 * reserve; the log limits (named once the address is known). */
static void host_limits_init(host_t *h)
{
    struct rlimit rl;
    unsigned long long nofile = 1024;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        nofile = rl.rlim_cur == RLIM_INFINITY ? ~0ull : (unsigned long long)rl.rlim_cur;
    h->nofile = nofile;
    h->pending_cap = nofile / 8 > PENDING_CAP_MAX   ? PENDING_CAP_MAX
                     : nofile / 8 < PENDING_CAP_MIN ? PENDING_CAP_MIN
                                                    : (int)(nofile / 8);
    for (int i = 0; i < RESERVE_FDS; i++)
        h->reserve[i] = -1;
    reserve_take(h);
    for (int i = 0; i < LIMIT_COUNT; i++)
        shoal_log_limit_init(&h->limit[i], SHOAL_LOG_WARN, SHOAL_LOG_LIMIT_BURST, 1000,
                             "config store");
}

shoal_status_t shoal_store_host_start(const shoal_store_host_conf_t *conf,
                                      shoal_store_sockaddr_t *bound_p)
{
    shoal_store_server_conf_t sconf = {.npes = conf->npes,
                                       .join_timeout_ms = conf->join_timeout_ms};
    uint8_t job_nonce[8];
    shoal_status_t status;
    host_t *h;

    pthread_mutex_lock(&host_start_lock);
    if (the_host != NULL) {
        pthread_mutex_unlock(&host_start_lock);
        SHOAL_ERROR("config store: this process already hosts a store; one job per process");
        return SHOAL_ERR_INVALID;
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out;
    }
    h->security = conf->security;
    h->join_timeout_ms = conf->join_timeout_ms;
    h->wake_fd = -1;
    host_limits_init(h);
    status = shoal_store_random(job_nonce, sizeof(job_nonce));
    if (status != SHOAL_OK)
        goto out_free;
    snprintf(sconf.job_id, sizeof(sconf.job_id), "st%02x%02x%02x%02x%02x%02x%02x%02x", job_nonce[0],
             job_nonce[1], job_nonce[2], job_nonce[3], job_nonce[4], job_nonce[5], job_nonce[6],
             job_nonce[7]);
    if (conf->security == SHOAL_STORE_SEC_PSK &&
        (status = shoal_store_key_id(conf->secret, h->key_id)) != SHOAL_OK)
        goto out_free;
    if (conf->security != SHOAL_STORE_SEC_PLAIN &&
        (status = shoal_store_tls_create(1, conf->security, conf->secret, conf->certs, &h->tls)) !=
            SHOAL_OK)
        goto out_free;
    status = shoal_store_listen(&conf->listen, &h->listen_fd, bound_p);
    if (status != SHOAL_OK)
        goto out_tls;
    shoal_store_sockaddr_format(bound_p, h->where, sizeof(h->where));
    for (int i = 0; i < LIMIT_COUNT; i++)
        snprintf(h->limit[i].what, sizeof(h->limit[i].what), "config store at %.96s: %.50s",
                 h->where, limit_names[i]);
    sconf.where = h->where;
    status = shoal_store_server_create(&sconf, &h->srv);
    if (status != SHOAL_OK)
        goto out_listen;
    h->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (h->wake_fd < 0) {
        SHOAL_ERROR("config store: eventfd failed: %m");
        status = SHOAL_ERR_SYSTEM;
        goto out_server;
    }
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->cond, NULL);
    if (pthread_create(&h->thread, NULL, host_main, h) != 0) {
        SHOAL_ERROR("config store: cannot start its thread: %m");
        status = SHOAL_ERR_SYSTEM;
        goto out_wake;
    }
    h->pid = getpid();
    on_exit(host_at_exit, h);
    the_host = h;
    SHOAL_DEBUG("config store listening on %s (%s)", h->where,
                shoal_store_security_name((uint8_t)conf->security));
    pthread_mutex_unlock(&host_start_lock);
    return SHOAL_OK;

out_wake:
    pthread_cond_destroy(&h->cond);
    pthread_mutex_destroy(&h->lock);
    close(h->wake_fd);
out_server:
    shoal_store_server_destroy(h->srv);
out_listen:
    close(h->listen_fd);
out_tls:
    shoal_store_tls_destroy(h->tls);
out_free:
    reserve_give_back(h);
    free(h);
out:
    pthread_mutex_unlock(&host_start_lock);
    return status;
}
