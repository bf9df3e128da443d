/*
 * The connection pump of the config store and the sides' policies (see
 * store/pump.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/store/pump.h"
#include "bootstrap/store/sockets.h"
#include "util/log.h"

#define CHUNK 16384

/* What a PE may be sent: while joining, the verdict on its HELLO; then the
 * replies to its requests and the end of the job. */
const shoal_store_policy_t shoal_store_policy_join = {
    .name = "PE",
    .read_chunk = CHUNK,
    .greet_timeout_ms = 10000,
    .may_receive =
        SHOAL_STORE_MSG_BIT(SHOAL_STORE_MSG_WELCOME) | SHOAL_STORE_MSG_BIT(SHOAL_STORE_MSG_REFUSE),
};
const shoal_store_policy_t shoal_store_policy_client = {
    .name = "PE",
    .read_chunk = CHUNK,
    .may_receive = SHOAL_STORE_MSG_BIT(SHOAL_STORE_MSG_VALUE) |
                   SHOAL_STORE_MSG_BIT(SHOAL_STORE_MSG_BARRIER_DONE) |
                   SHOAL_STORE_MSG_BIT(SHOAL_STORE_MSG_GATHERED) |
                   SHOAL_STORE_MSG_BIT(SHOAL_STORE_MSG_ABORT),
};
/* The servers leave what a PE may send to the store's logic (logic.c). */
const shoal_store_policy_t shoal_store_policy_server = {
    .name = "config store",
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
const shoal_store_policy_t shoal_store_policy_launcher = {
    .name = "shoalrun",
    .read_chunk = 64 * 1024,
};

static int ended(shoal_store_pump_t *p, long rc)
{
    p->end = (int)rc;
    return (int)rc;
}

int shoal_store_pump_flush(shoal_store_pump_t *p)
{
    while (shoal_store_buf_unread(p->out) > 0) {
        long n = shoal_store_link_write(p->link, shoal_store_buf_head(p->out),
                                        shoal_store_buf_unread(p->out));
        if (n > 0)
            shoal_store_buf_consume(p->out, (size_t)n);
        else if (n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE)
            return 0;
        else
            return ended(p, n);
    }
    return 0;
}

static long read_some(shoal_store_pump_t *p, size_t max)
{
    if (shoal_store_buf_reserve(p->in, p->policy->read_chunk) != SHOAL_OK) {
        snprintf(p->link->error, sizeof(p->link->error), "out of memory");
        p->link->sys_errno = ENOMEM;
        return ended(p, SHOAL_STORE_IO_ERROR);
    }
    size_t room = p->in->cap - p->in->len;
    long n = shoal_store_link_read(p->link, p->in->data + p->in->len,
                                   max != 0 && max < room ? max : room);
    p->wants_write = n == SHOAL_STORE_IO_WANT_WRITE;
    if (n > 0)
        p->in->len += (size_t)n;
    else if (n == SHOAL_STORE_IO_EOF || n == SHOAL_STORE_IO_ERROR)
        return ended(p, n);
    return n;
}

long shoal_store_pump_fill(shoal_store_pump_t *p)
{
    long n = read_some(p, 0);
    return n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE ? 0 : n;
}

short shoal_store_pump_events(const shoal_store_pump_t *p)
{
    return (short)(POLLIN | (p->wants_write || shoal_store_buf_unread(p->out) > 0 ? POLLOUT : 0));
}

const char *shoal_store_pump_cause(const shoal_store_pump_t *p, const char *eof)
{
    return p->end == SHOAL_STORE_IO_ERROR ? p->link->error : eof;
}

int shoal_store_pump_unreachable(const shoal_store_pump_t *p)
{
    return p->end == SHOAL_STORE_IO_ERROR && shoal_store_errno_unreachable(p->link->sys_errno);
}

int shoal_store_pump_frame(shoal_store_pump_t *p, shoal_store_msg_t *m, size_t *len_p, char *why,
                           size_t why_size)
{
    const char *bad = NULL;
    shoal_status_t status = shoal_store_frame_peek(shoal_store_buf_head(p->in),
                                                   shoal_store_buf_unread(p->in), len_p, &bad);
    if (status == SHOAL_ERR_NOT_FOUND)
        return 0;
    if (status == SHOAL_OK)
        status = shoal_store_decode(shoal_store_buf_head(p->in), *len_p, m, &bad);
    if (status != SHOAL_OK) {
        snprintf(why, why_size, "it sent a malformed frame (%s)", bad);
        return -1;
    }
    if (p->policy->may_receive != 0 && !(p->policy->may_receive & SHOAL_STORE_MSG_BIT(m->type))) {
        snprintf(why, why_size, "it sent an unexpected %s", shoal_store_msg_name(m->type));
        return -1;
    }
    return 1;
}

/* Waits for what the link asked for; -1 with `why` once the deadline passed. */
static int wait_link(shoal_store_pump_t *p, long rc, uint64_t deadline_ms, const char *late,
                     char *why, size_t why_size)
{
    if (shoal_store_wait_fd(p->link->fd, rc == SHOAL_STORE_IO_WANT_WRITE ? POLLOUT : POLLIN,
                            deadline_ms))
        return 0;
    snprintf(why, why_size, "%s", late);
    return -1;
}

int shoal_store_pump_send_all(shoal_store_pump_t *p, uint64_t deadline_ms, char *why,
                              size_t why_size)
{
    while (shoal_store_buf_unread(p->out) > 0) {
        long n = shoal_store_link_write(p->link, shoal_store_buf_head(p->out),
                                        shoal_store_buf_unread(p->out));
        if (n > 0) {
            shoal_store_buf_consume(p->out, (size_t)n);
        } else if (n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE) {
            if (wait_link(p, n, deadline_ms, "it stopped answering (timed out)", why, why_size))
                return -1;
        } else {
            ended(p, n);
            snprintf(why, why_size, "%s", shoal_store_pump_cause(p, "it closed the connection"));
            return -1;
        }
    }
    return 0;
}

int shoal_store_pump_recv(shoal_store_pump_t *p, size_t max, uint64_t deadline_ms, char *why,
                          size_t why_size)
{
    for (;;) {
        long n = read_some(p, max);
        if (n > 0)
            return 0;
        if (n == SHOAL_STORE_IO_EOF || n == SHOAL_STORE_IO_ERROR) {
            snprintf(why, why_size, "%s", shoal_store_pump_cause(p, "it closed the connection"));
            return -1;
        }
        if (wait_link(p, n, deadline_ms, "no answer (timed out)", why, why_size) != 0)
            return -1;
    }
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
