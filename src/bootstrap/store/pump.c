/*
 * The connection pump of the config store: its state machine and the
 * sides' policies (see store/pump.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/store/pump.h"
#include "bootstrap/store/sockets.h"
#include "util/log.h"

#define CHUNK 16384
#define BIT SHOAL_STORE_MSG_BIT

/* A PE is sent, while joining, the verdict on its HELLO; then the replies
 * to its requests and the end of the job. */
#define PE_RECEIVES                                                                                \
    .may_receive = {                                                                               \
        [SHOAL_STORE_PUMP_JOINING] = BIT(SHOAL_STORE_MSG_WELCOME) | BIT(SHOAL_STORE_MSG_REFUSE),   \
        [SHOAL_STORE_PUMP_JOINED] = BIT(SHOAL_STORE_MSG_VALUE) |                                   \
                                    BIT(SHOAL_STORE_MSG_BARRIER_DONE) |                            \
                                    BIT(SHOAL_STORE_MSG_GATHERED) | BIT(SHOAL_STORE_MSG_ABORT),    \
    }

const shoal_store_policy_t shoal_store_policy_pe = {
    .greets = 1, .read_chunk = CHUNK, .greet_timeout_ms = 10000, PE_RECEIVES};
const shoal_store_policy_t shoal_store_policy_pe_fd = {.read_chunk = CHUNK, PE_RECEIVES};
/* The servers leave what a PE may send to the store's logic (logic.c). */
const shoal_store_policy_t shoal_store_policy_server = {
    .server = 1,
    .greets = 1,
    .read_chunk = CHUNK,
    .greet_timeout_ms = 10000,
    .linger_ms = 2000,
    .accepts_per_round = 64,
    .pending_cap_min = 16,
    .pending_cap_max = 256,
    .backoff_first_ms = 50,
    .backoff_max_ms = 1000,
    .log_window_ms = 1000,
};
const shoal_store_policy_t shoal_store_policy_launcher = {.server = 1, .read_chunk = 64 * 1024};

static int frames_state(const shoal_store_pump_t *p)
{
    return p->state == SHOAL_STORE_PUMP_JOINING || p->state == SHOAL_STORE_PUMP_JOINED;
}

/* The connection failed in its current state: closed, or (a server that
 * refused it) lingering. -1, for the caller to return. */
static int fail(shoal_store_pump_t *p, int end, int linger, uint64_t now_ms)
{
    p->end = end;
    p->ended_in = p->state;
    if (linger && p->policy->server)
        shoal_store_pump_linger(p, now_ms);
    else
        p->state = SHOAL_STORE_PUMP_CLOSED;
    return -1;
}

/* Admission is through: frames. A client's join has its own time
 * (store/join.c); a server's lasts until the logic accepts HELLO. */
static int to_joining(shoal_store_pump_t *p)
{
    p->state = SHOAL_STORE_PUMP_JOINING;
    if (!p->policy->server)
        p->deadline_ms = 0;
    return 0;
}

shoal_status_t shoal_store_pump_open(shoal_store_pump_t *p, const shoal_store_policy_t *policy,
                                     int fd, shoal_store_buf_t *in, shoal_store_buf_t *out,
                                     uint64_t now_ms)
{
    p->policy = policy;
    p->in = in;
    p->out = out;
    p->state = policy->greets ? SHOAL_STORE_PUMP_GREET : SHOAL_STORE_PUMP_JOINING;
    p->deadline_ms = policy->greet_timeout_ms ? now_ms + policy->greet_timeout_ms : 0;
    if (shoal_store_link_tcp_create(fd, &p->link) == SHOAL_OK)
        return SHOAL_OK;
    close(fd);
    p->state = SHOAL_STORE_PUMP_CLOSED;
    return SHOAL_ERR_NOMEM;
}

void shoal_store_pump_close(shoal_store_pump_t *p)
{
    shoal_store_link_destroy(p->link);
    p->link = NULL;
    p->state = SHOAL_STORE_PUMP_CLOSED;
}

void shoal_store_pump_linger(shoal_store_pump_t *p, uint64_t now_ms)
{
    if (p->policy->linger_ms == 0) {
        p->state = SHOAL_STORE_PUMP_CLOSED;
        return;
    }
    shutdown(p->link->fd, SHUT_WR);
    p->state = SHOAL_STORE_PUMP_LINGER;
    p->deadline_ms = now_ms + p->policy->linger_ms;
}

void shoal_store_pump_joined(shoal_store_pump_t *p)
{
    p->state = SHOAL_STORE_PUMP_JOINED;
    p->deadline_ms = 0;
}

/* The greeting is through: TLS over the same socket, or frames. */
static int begin_session(shoal_store_pump_t *p, uint64_t now_ms)
{
    if (p->tls != NULL) {
        shoal_store_link_t *tls_link;
        if (shoal_store_link_tls_create(p->tls, p->link->fd, p->peer_host, &tls_link) != SHOAL_OK)
            return fail(p, SHOAL_STORE_IO_ERROR, 0, now_ms);
        p->link->fd = -1; /* the TLS link owns the socket now */
        shoal_store_link_destroy(p->link);
        p->link = tls_link;
        p->state = SHOAL_STORE_PUMP_HANDSHAKE;
        return 0;
    }
    return to_joining(p);
}

/* Reads the greeting (a server) or the answer to it (a client), no more:
 * TLS starts on the socket right after it. 1 once it is whole. */
static int read_greeting(shoal_store_pump_t *p, size_t want, uint64_t now_ms)
{
    long n = shoal_store_link_read(p->link, p->greet + p->greet_have, want - p->greet_have);
    if (n == SHOAL_STORE_IO_EOF || n == SHOAL_STORE_IO_ERROR)
        return fail(p, (int)n, 0, now_ms);
    if (n > 0)
        p->greet_have += (size_t)n;
    return p->greet_have == want;
}

static int greet_client(shoal_store_pump_t *p, uint64_t now_ms)
{
    if (!p->greet_sent) {
        uint8_t hello[SHOAL_STORE_HELLO_BYTES];
        shoal_store_greeting_encode(hello, p->security, p->key_id);
        long n = shoal_store_link_write(p->link, hello, sizeof(hello));
        if (n != (long)sizeof(hello)) /* 16 bytes on a fresh connection */
            return fail(p, n == SHOAL_STORE_IO_EOF ? (int)n : SHOAL_STORE_IO_ERROR, 0, now_ms);
        p->greet_sent = 1;
    }
    int rc = read_greeting(p, SHOAL_STORE_REPLY_BYTES, now_ms);
    if (rc <= 0)
        return rc;
    if (shoal_store_reply_decode(p->greet, &p->peer_version, &p->peer_security, &p->verdict) !=
        SHOAL_OK) {
        snprintf(p->why, sizeof(p->why), "it answered the greeting with something else");
        return fail(p, SHOAL_STORE_END_PROTOCOL, 1, now_ms);
    }
    if (p->peer_version != SHOAL_STORE_PROTO_VERSION || p->verdict != SHOAL_STORE_GREET_OK)
        return fail(p, SHOAL_STORE_END_REFUSED, 1, now_ms);
    return begin_session(p, now_ms);
}

static int greet_server(shoal_store_pump_t *p, uint64_t now_ms)
{
    uint8_t reply[SHOAL_STORE_REPLY_BYTES];
    int rc = read_greeting(p, SHOAL_STORE_HELLO_BYTES, now_ms);
    if (rc <= 0)
        return rc;
    p->verdict = p->judge(p->judge_arg, p, p->greet);
    if (p->verdict == SHOAL_STORE_GREET_GARBAGE)
        return fail(p, SHOAL_STORE_END_PROTOCOL, 1, now_ms);
    shoal_store_reply_encode(reply, p->security, p->verdict);
    long n = shoal_store_link_write(p->link, reply, sizeof(reply));
    if (n != (long)sizeof(reply))
        return fail(p, n == SHOAL_STORE_IO_EOF ? (int)n : SHOAL_STORE_IO_ERROR, 0, now_ms);
    if (p->verdict != SHOAL_STORE_GREET_OK)
        return fail(p, SHOAL_STORE_END_REFUSED, 1, now_ms);
    return begin_session(p, now_ms);
}

static int handshake(shoal_store_pump_t *p, uint64_t now_ms)
{
    int rc = shoal_store_link_handshake(p->link);
    p->wants_write = rc == SHOAL_STORE_IO_WANT_WRITE;
    if (rc == SHOAL_STORE_IO_WANT_READ || rc == SHOAL_STORE_IO_WANT_WRITE)
        return 0;
    /* A server lingers, so that the TLS alert reaches the client. */
    return rc != 0 ? fail(p, rc, 1, now_ms) : to_joining(p);
}

static int ended(shoal_store_pump_t *p, long rc)
{
    return fail(p, (int)rc, 0, 0);
}

int shoal_store_pump_flush(shoal_store_pump_t *p)
{
    while (frames_state(p) && shoal_store_buf_unread(p->out) > 0) {
        long n = shoal_store_link_write(p->link, shoal_store_buf_head(p->out),
                                        shoal_store_buf_unread(p->out));
        if (n > 0)
            shoal_store_buf_consume(p->out, (size_t)n);
        else if (n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE)
            return 0;
        else
            return ended(p, n);
    }
    return p->state == SHOAL_STORE_PUMP_CLOSED ? -1 : 0;
}

static int frames(shoal_store_pump_t *p)
{
    if (shoal_store_pump_flush(p) != 0)
        return -1;
    if (shoal_store_buf_reserve(p->in, p->policy->read_chunk) != SHOAL_OK) {
        snprintf(p->link->error, sizeof(p->link->error), "out of memory");
        p->link->sys_errno = ENOMEM;
        return ended(p, SHOAL_STORE_IO_ERROR);
    }
    long n = shoal_store_link_read(p->link, p->in->data + p->in->len, p->in->cap - p->in->len);
    p->wants_write = n == SHOAL_STORE_IO_WANT_WRITE;
    if (n > 0)
        p->in->len += (size_t)n;
    else if (n == SHOAL_STORE_IO_EOF || n == SHOAL_STORE_IO_ERROR)
        return ended(p, n);
    return n > 0;
}

/* Reads and drops what the refused peer still sends, until it closes. */
static int linger(shoal_store_pump_t *p)
{
    char discard[4096];
    ssize_t n = recv(p->link->fd, discard, sizeof(discard), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        p->state = SHOAL_STORE_PUMP_CLOSED;
    return 0;
}

static int step_state(shoal_store_pump_t *p, uint64_t now_ms)
{
    switch (p->state) {
    case SHOAL_STORE_PUMP_GREET:
        return p->policy->server ? greet_server(p, now_ms) : greet_client(p, now_ms);
    case SHOAL_STORE_PUMP_HANDSHAKE:
        return handshake(p, now_ms);
    case SHOAL_STORE_PUMP_JOINING:
    case SHOAL_STORE_PUMP_JOINED:
        return frames(p);
    case SHOAL_STORE_PUMP_LINGER:
        return linger(p);
    default:
        return 0;
    }
}

int shoal_store_pump_step(shoal_store_pump_t *p, uint64_t now_ms)
{
    if (p->deadline_ms != 0 && now_ms >= p->deadline_ms) {
        if (p->state == SHOAL_STORE_PUMP_LINGER) {
            p->state = SHOAL_STORE_PUMP_CLOSED;
            return 0;
        }
        if (p->state != SHOAL_STORE_PUMP_CLOSED)
            return ended(p, SHOAL_STORE_END_TIMEOUT);
    }
    /* Greeting, handshake and frames follow each other in one call. */
    for (;;) {
        shoal_store_pump_state_t was = p->state;
        int rc = step_state(p, now_ms);
        if (rc != 0 || p->state == was ||
            (!frames_state(p) && p->state != SHOAL_STORE_PUMP_HANDSHAKE))
            return rc;
    }
}

short shoal_store_pump_events(const shoal_store_pump_t *p)
{
    switch (p->state) {
    case SHOAL_STORE_PUMP_HANDSHAKE:
        return (short)(POLLIN | (p->wants_write ? POLLOUT : 0));
    case SHOAL_STORE_PUMP_JOINING:
    case SHOAL_STORE_PUMP_JOINED:
        return (short)(POLLIN |
                       (p->wants_write || shoal_store_buf_unread(p->out) > 0 ? POLLOUT : 0));
    case SHOAL_STORE_PUMP_CLOSED:
        return 0;
    default:
        return POLLIN;
    }
}

int shoal_store_pump_wait(const shoal_store_pump_t *p, uint64_t deadline_ms)
{
    if (p->deadline_ms != 0 && p->deadline_ms < deadline_ms)
        deadline_ms = p->deadline_ms;
    return shoal_store_wait_fd(p->link->fd, shoal_store_pump_events(p), deadline_ms);
}

const char *shoal_store_pump_cause(const shoal_store_pump_t *p, const char *eof)
{
    if (p->end == SHOAL_STORE_END_PROTOCOL)
        return p->why;
    if (p->end == SHOAL_STORE_END_TIMEOUT)
        return "it stopped answering (timed out)";
    return p->end == SHOAL_STORE_IO_ERROR ? p->link->error : eof;
}

int shoal_store_pump_unreachable(const shoal_store_pump_t *p)
{
    return p->end == SHOAL_STORE_IO_ERROR && shoal_store_errno_unreachable(p->link->sys_errno);
}

int shoal_store_pump_frame(shoal_store_pump_t *p, shoal_store_msg_t *m, size_t *len_p)
{
    const char *bad = NULL;
    shoal_status_t status = shoal_store_frame_peek(shoal_store_buf_head(p->in),
                                                   shoal_store_buf_unread(p->in), len_p, &bad);
    uint32_t allowed = p->policy->may_receive[p->state];
    if (status == SHOAL_ERR_NOT_FOUND)
        return 0;
    if (status == SHOAL_OK)
        status = shoal_store_decode(shoal_store_buf_head(p->in), *len_p, m, &bad);
    if (status != SHOAL_OK) {
        snprintf(p->why, sizeof(p->why), "it sent a malformed frame (%s)", bad);
        return -1;
    }
    if (allowed != 0 && !(allowed & SHOAL_STORE_MSG_BIT(m->type))) {
        snprintf(p->why, sizeof(p->why), "it sent an unexpected %s", shoal_store_msg_name(m->type));
        return -1;
    }
    return 1;
}
/* ---- what the I/O threads share ------------------------------------------ */

void shoal_store_block_sigpipe(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int shoal_store_wake_create(const char *who)
{
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0)
        SHOAL_ERROR("%s: eventfd failed: %m", who);
    return fd;
}

void shoal_store_wake(int fd)
{
    uint64_t one = 1;
    ssize_t ignored = write(fd, &one, sizeof(one));
    (void)ignored;
}

void shoal_store_wake_drain(int fd)
{
    uint64_t v;
    ssize_t ignored = read(fd, &v, sizeof(v));
    (void)ignored;
}

int shoal_store_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock, uint64_t deadline_ms)
{
    uint64_t now = shoal_store_now_ms();
    if (now >= deadline_ms)
        return 0;
    uint64_t wait_ms = deadline_ms - now < 50 ? deadline_ms - now : 50;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)wait_ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(cond, lock, &ts);
    return 1;
}
