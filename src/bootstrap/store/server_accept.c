/*
 * The config store's door (see store/server_impl.h): accepting connections
 * without letting strangers starve the process that hosts the store.
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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/store/server_impl.h"
#include "util/log.h"

/* How far a connection that has not joined got: 0 nothing shown (no
 * greeting yet, or refused and lingering), 1 greeted (TLS handshake),
 * 2 authenticated without HELLO yet; -1 joined (never closed to make room). */
static int pending_class(const shoal_store_peer_t *p)
{
    const shoal_store_conn_t *c = p->io;
    if (c->gone || p->state != SHOAL_STORE_PEER_NEW)
        return -1;
    if (c->pump.state == SHOAL_STORE_PUMP_GREET || c->pump.state >= SHOAL_STORE_PUMP_LINGER)
        return 0;
    return c->pump.state == SHOAL_STORE_PUMP_HANDSHAKE ? 1 : 2;
}

static int count_pending(shoal_store_host_t *h)
{
    int n = 0;
    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next)
        n += pending_class(p) >= 0;
    return n;
}

/* Closes (at the end of this round) the oldest connection of the earliest
 * class that has been polled at least once, so that a PE whose greeting is
 * on its way is not cut off before the store read it. 0 when none fits. */
static int close_oldest_pending(shoal_store_host_t *h, uint64_t now, const char *why)
{
    shoal_store_peer_t *victim = NULL;
    int victim_class = 3;

    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next) {
        const shoal_store_conn_t *c = p->io;
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
    shoal_store_conn_t *c = victim->io;
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
static int reserve_take(shoal_store_host_t *h)
{
    int whole = 1;
    for (int i = 0; i < RESERVE_FDS; i++) {
        if (h->reserve[i] < 0)
            h->reserve[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
        whole &= h->reserve[i] >= 0;
    }
    return whole;
}

void shoal_store_host_reserve_give_back(shoal_store_host_t *h)
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
static void out_of_fds(shoal_store_host_t *h, uint64_t now, int err)
{
    char cause[96];
    int closed;

    snprintf(cause, sizeof(cause), "%s", strerror(err));
    shoal_store_host_reserve_give_back(h);
    closed = close_oldest_pending(h, now, "to free a descriptor");
    h->backoff_ms = h->backoff_ms == 0                           ? POLICY->backoff_first_ms
                    : h->backoff_ms * 2 > POLICY->backoff_max_ms ? POLICY->backoff_max_ms
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

void shoal_store_host_accept(shoal_store_host_t *h, uint64_t now)
{
    int pending = count_pending(h);

    /* The store accepts only while it can hold its reserve: it never takes
     * the last descriptors this process has. */
    if (!reserve_take(h)) {
        out_of_fds(h, now, EMFILE);
        return;
    }

    for (int i = 0; i < POLICY->accepts_per_round; i++) {
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
                h->listen_paused_until = now + POLICY->backoff_first_ms;
                SHOAL_LOG_LIMITED(&h->limit[LIMIT_ACCEPT], now,
                                  "config store at %s: accept failed: %s; not accepting for "
                                  "%llu ms",
                                  h->where, strerror(err),
                                  (unsigned long long)POLICY->backoff_first_ms);
            }
            return;
        }
        h->backoff_ms = 0;
        shoal_store_tune_socket(fd);
        shoal_store_sockaddr_format(&sa, addr, sizeof(addr));
        shoal_store_conn_t *c = calloc(1, sizeof(*c));
        shoal_store_peer_t *p = c ? shoal_store_server_peer_new(h->srv, addr) : NULL;
        if (p == NULL) {
            free(c);
            close(fd);
            continue;
        }
        c->pump.tls = h->tls;
        c->pump.security = (uint8_t)h->security;
        c->pump.judge = shoal_store_host_judge;
        c->pump.judge_arg = h;
        c->peer = p;
        c->since_ms = now;
        p->io = c;
        if (shoal_store_pump_open(&c->pump, POLICY, fd, &p->in, &p->out, now) != SHOAL_OK) {
            c->gone = 1; /* dropped at the end of the round */
            continue;
        }
        /* At the cap, a new connection takes the place of the oldest one
         * (closed only now, so none is closed while nobody else waits). */
        if (++pending > h->pending_cap &&
            close_oldest_pending(h, now, "to make room for new connections"))
            pending--;
    }
}

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
void shoal_store_host_limits_init(shoal_store_host_t *h)
{
    struct rlimit rl;
    unsigned long long nofile = 1024;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        nofile = rl.rlim_cur == RLIM_INFINITY ? ~0ull : (unsigned long long)rl.rlim_cur;
    h->nofile = nofile;
    unsigned long long cap_max = (unsigned)POLICY->pending_cap_max;
    unsigned long long cap_min = (unsigned)POLICY->pending_cap_min;
    h->pending_cap = (int)(nofile / 8 > cap_max   ? cap_max
                           : nofile / 8 < cap_min ? cap_min
                                                  : nofile / 8);
    for (int i = 0; i < RESERVE_FDS; i++)
        h->reserve[i] = -1;
    reserve_take(h);
    for (int i = 0; i < LIMIT_COUNT; i++)
        shoal_log_limit_init(&h->limit[i], SHOAL_LOG_WARN, SHOAL_LOG_LIMIT_BURST,
                             POLICY->log_window_ms, "config store");
}

void shoal_store_host_limits_name(shoal_store_host_t *h)
{
    for (int i = 0; i < LIMIT_COUNT; i++)
        snprintf(h->limit[i].what, sizeof(h->limit[i].what), "config store at %.96s: %.50s",
                 h->where, limit_names[i]);
}
