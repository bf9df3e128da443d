/*
 * The thread that hosts the config store (see store/server_thread.h). One
 * poll loop serves every connection on the pump (store/pump.c: greeting,
 * TLS handshake, frames, lingering after a refusal) with the server's
 * policy, hands the frames to the store's logic and sends its replies. A
 * connection must greet, authenticate and send HELLO within the policy's
 * greet_timeout_ms; one that breaks the protocol is closed and the store
 * carries on. The logic runs under `lock`, so other threads of this
 * process (exit handler, abort) can look at it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/store/server_impl.h"
#include "util/log.h"
#include "util/log_limit.h"
#include "util/thread.h"

static pthread_mutex_t host_start_lock = PTHREAD_MUTEX_INITIALIZER;
static shoal_store_host_t *the_host;
static int local_pe_finalized; /* shoal_store_host_note_finalized */

int shoal_store_host_running(void)
{
    pthread_mutex_lock(&host_start_lock);
    int running = the_host != NULL;
    pthread_mutex_unlock(&host_start_lock);
    return running;
}

/* ---- connections --------------------------------------------------------- */

static void conn_drop(shoal_store_host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    shoal_store_conn_t *c = p->io;
    shoal_store_pump_close(&c->pump);
    free(c);
    p->io = NULL;
    shoal_store_server_peer_gone(h->srv, p, now);
}

uint8_t shoal_store_host_judge(void *arg, shoal_store_pump_t *pump,
                               const uint8_t greeting[SHOAL_STORE_HELLO_BYTES])
{
    shoal_store_host_t *h = arg;
    const shoal_store_peer_t *p = ((shoal_store_conn_t *)pump)->peer;
    uint8_t version, security, key_id[SHOAL_STORE_KEY_ID_BYTES];
    uint64_t now = shoal_store_now_ms();
    shoal_log_limit_t *limit = &h->limit[LIMIT_GREETING];

    if (shoal_store_greeting_decode(greeting, &version, &security, key_id) != SHOAL_OK) {
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

/* The pump ended the connection, or began to linger after a refusal:
 * logs what the operator should know (a refused greeting is logged by its
 * judge). */
static void note_end(shoal_store_host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    shoal_store_conn_t *c = p->io;
    const shoal_store_pump_t *pump = &c->pump;

    if (pump->end == SHOAL_STORE_END_TIMEOUT)
        SHOAL_LOG_LIMITED(&h->limit[LIMIT_TIMEOUT], now,
                          "config store at %s: closed the connection from %s: no greeting, "
                          "handshake and HELLO within %d s",
                          h->where, p->addr, (int)(POLICY->greet_timeout_ms / 1000));
    else if (pump->ended_in == SHOAL_STORE_PUMP_HANDSHAKE)
        SHOAL_LOG_LIMITED(&h->limit[LIMIT_HANDSHAKE], now,
                          "config store at %s: TLS handshake with %s failed: %s; a PE with "
                          "other certificates or another job's secret?",
                          h->where, p->addr,
                          shoal_store_pump_cause(pump, "the client closed the connection"));
    else if (shoal_store_pump_unreachable(pump))
        p->unreachable = 1; /* the store's message names the host (logic.c) */
    else if (pump->end == SHOAL_STORE_IO_ERROR && pump->ended_in != SHOAL_STORE_PUMP_GREET)
        SHOAL_LOG_LIMITED(&h->limit[LIMIT_CONN_FAILED], now,
                          "config store at %s: connection from %s (PE %d) failed: %s", h->where,
                          p->addr, p->rank, pump->link->error);
    c->gone |= pump->state == SHOAL_STORE_PUMP_CLOSED;
}

/* Moves a connection on: the frames that came go to the logic. */
static void progress(shoal_store_host_t *h, shoal_store_peer_t *p, uint64_t now)
{
    shoal_store_conn_t *c = p->io;
    int rc = 0;

    if (c->gone)
        return; /* closed to make room; dropped at the end of the round */
    /* A refused peer's frames are not read, but its lingering is. */
    while ((!p->closing || c->pump.state == SHOAL_STORE_PUMP_LINGER) &&
           (rc = shoal_store_pump_step(&c->pump, now)) > 0) {
        if (shoal_store_server_input(h->srv, p, now) != SHOAL_OK) {
            c->gone = 1;
            return;
        }
    }
    if (rc < 0)
        note_end(h, p, now);
}

static void flush(shoal_store_peer_t *p)
{
    shoal_store_conn_t *c = p->io;

    if (c->gone || shoal_store_pump_flush(&c->pump) == 0)
        return;
    p->unreachable = shoal_store_pump_unreachable(&c->pump);
    c->gone = 1;
}

/* Ends connections that are done, refused, silent too long or lingering. */
static void sweep(shoal_store_host_t *h, uint64_t now)
{
    shoal_store_peer_t *p = shoal_store_server_peers(h->srv), *next;
    for (; p != NULL; p = next) {
        shoal_store_conn_t *c = p->io;
        shoal_store_pump_t *pump = &c->pump;
        next = p->next;
        if (pump->state == SHOAL_STORE_PUMP_JOINING && p->state != SHOAL_STORE_PEER_NEW)
            shoal_store_pump_joined(pump);
        if (p->closing && pump->state <= SHOAL_STORE_PUMP_JOINED &&
            pump->state >= SHOAL_STORE_PUMP_JOINING && shoal_store_buf_unread(&p->out) == 0)
            shoal_store_pump_linger(pump, now);
        /* The pump's time (admission, lingering) runs out only when it is stepped. */
        if (!c->gone && pump->deadline_ms != 0 && now >= pump->deadline_ms &&
            shoal_store_pump_step(pump, now) < 0)
            note_end(h, p, now);
        if (c->gone || pump->state == SHOAL_STORE_PUMP_CLOSED)
            conn_drop(h, p, now);
    }
}

static void *host_main(void *arg)
{
    shoal_store_host_t *h = arg;
    shoal_thread_name("shoal-storehost");
    struct pollfd *fds = NULL;
    shoal_store_peer_t **who = NULL;
    size_t cap = 0;

    shoal_store_block_sigpipe();

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
            shoal_store_conn_t *c = p->io;
            fds[k] = (struct pollfd){.fd = c->pump.link->fd,
                                     .events = shoal_store_pump_events(&c->pump)};
            who[k++] = p;
            if (c->pump.deadline_ms != 0 && c->pump.deadline_ms < next)
                next = c->pump.deadline_ms;
        }
        int timeout = next == UINT64_MAX ? -1 : next <= now ? 0 : (int)(next - now);
        pthread_cond_broadcast(&h->cond);
        pthread_mutex_unlock(&h->lock);
        int rc = poll(fds, (nfds_t)k, timeout);
        pthread_mutex_lock(&h->lock);
        if (h->stop)
            break;
        now = shoal_store_now_ms();
        if (rc > 0 && (fds[0].revents & POLLIN))
            shoal_store_wake_drain(h->wake_fd);
        for (size_t i = 2; rc >= 0 && i < k; i++) {
            ((shoal_store_conn_t *)who[i]->io)->polled = 1;
            if (fds[i].revents != 0)
                progress(h, who[i], now);
        }
        /* After the greetings that came are read, so that making room
         * closes only connections that have had their chance. */
        if (rc > 0 && (fds[1].revents & POLLIN))
            shoal_store_host_accept(h, now);
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
static int wait_until(shoal_store_host_t *h, int (*done)(shoal_store_host_t *),
                      uint64_t deadline_ms)
{
    while (!done(h) && !h->stop)
        if (!shoal_store_cond_wait(&h->cond, &h->lock, deadline_ms))
            return 0;
    return done(h);
}

/* Every other PE has closed its connection (clients that never joined do
 * not count: an idle stranger must not hold up the end of the job). */
static int others_gone(shoal_store_host_t *h)
{
    int joined = 0;
    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next)
        joined += p->rank >= 0;
    return joined <= 1;
}

static int job_finished(shoal_store_host_t *h)
{
    return shoal_store_server_finished(h->srv);
}

/* Every frame queued for a peer is sent and every refused peer has read its
 * refusal and closed: cutting a lingering connection at exit can reset it
 * before the peer reads why it was refused. */
static int all_delivered(shoal_store_host_t *h)
{
    for (shoal_store_peer_t *p = shoal_store_server_peers(h->srv); p != NULL; p = p->next) {
        const shoal_store_conn_t *c = p->io;
        if (c->pump.state == SHOAL_STORE_PUMP_LINGER ||
            (c->pump.state != SHOAL_STORE_PUMP_CLOSED && shoal_store_buf_unread(&p->out) > 0))
            return 0;
    }
    return 1;
}

/* From another thread of the host's process: waits (bounded) for `done`. */
static void host_wait_for(int (*done)(shoal_store_host_t *), uint64_t timeout_ms)
{
    shoal_store_host_t *h = the_host;
    if (h == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    shoal_store_wake(h->wake_fd);
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
    shoal_store_host_t *h = arg;
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
        shoal_store_wake(h->wake_fd);
        wait_until(h, others_gone, start + POLICY->linger_ms);
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
    wait_until(h, all_delivered, shoal_store_now_ms() + POLICY->linger_ms);
    if (shoal_store_server_started(h->srv))
        shoal_store_server_report(h->srv);
    /* What the rate limits left out in their last window is said now. */
    for (int i = 0; i < LIMIT_COUNT; i++)
        shoal_log_limit_flush(&h->limit[i], UINT64_MAX);
    shoal_store_server_flush_logs(h->srv);
    h->stop = 1;
    shoal_store_wake(h->wake_fd);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
}

/* ---- start --------------------------------------------------------------- */

shoal_status_t shoal_store_host_start(const shoal_store_host_conf_t *conf,
                                      shoal_store_sockaddr_t *bound_p)
{
    shoal_store_server_conf_t sconf = {.npes = conf->npes,
                                       .join_timeout_ms = conf->join_timeout_ms};
    uint8_t job_nonce[8];
    shoal_status_t status;
    shoal_store_host_t *h;

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
    shoal_store_host_limits_init(h);
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
    shoal_store_host_limits_name(h);
    sconf.where = h->where;
    status = shoal_store_server_create(&sconf, &h->srv);
    if (status != SHOAL_OK)
        goto out_listen;
    h->wake_fd = shoal_store_wake_create("config store");
    if (h->wake_fd < 0) {
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
    shoal_store_host_reserve_give_back(h);
    free(h);
out:
    pthread_mutex_unlock(&host_start_lock);
    return status;
}
