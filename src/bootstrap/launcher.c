/*
 * The "launcher" bootstrap: a PE started by shoalrun talks to it over the
 * unix socket it inherited (SHOAL_LAUNCHER_FD), in the protocol of
 * launcher_proto.h. Each operation is one blocking request and at most one
 * reply. PUT and EVENT expect no reply, so only sending is serialized for
 * them (send_lock); GET and BARRIER hold `lock` for the whole exchange, so
 * each reply reaches the thread that asked for it.
 *
 * The socket is the PE's lifeline: if shoalrun is gone (EOF, EPIPE) or the
 * stream is broken, nothing the PE could still do would be seen by anyone,
 * so it logs why and exits instead of returning an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/launcher_proto.h"
#include "util/log.h"

typedef struct {
    int fd;
    pthread_mutex_t lock;      /* one request/reply exchange at a time */
    pthread_mutex_t send_lock; /* whole messages; abort needs only this one */
} launcher_t;

static void __attribute__((noreturn)) launcher_gone(const char *op, int err)
{
    if (err == 0)
        SHOAL_ERROR("bootstrap %s: the launcher (shoalrun) went away (connection closed); "
                    "exiting",
                    op);
    else
        SHOAL_ERROR("bootstrap %s: the connection to the launcher (shoalrun) failed: %s; "
                    "exiting",
                    op, strerror(err));
    _exit(1);
}

/* Sends one whole message; the caller holds send_lock. Returns 0 or errno. */
static int send_msg(launcher_t *l, uint32_t type, int32_t arg, const void *key, uint32_t key_len,
                    const void *value, uint32_t value_len)
{
    shoal_launcher_msg_t h = {.type = type, .arg = arg, .key_len = key_len, .value_len = value_len};
    struct iovec iov[3] = {
        {.iov_base = &h, .iov_len = sizeof(h)},
        {.iov_base = (void *)key, .iov_len = key_len},
        {.iov_base = (void *)value, .iov_len = value_len},
    };
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 3};

    while (m.msg_iovlen > 0) {
        ssize_t n = sendmsg(l->fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        /* Skip what was sent, including empty iovecs. */
        while (m.msg_iovlen > 0 && (size_t)n >= m.msg_iov->iov_len) {
            n -= (ssize_t)m.msg_iov->iov_len;
            m.msg_iov++;
            m.msg_iovlen--;
        }
        if (m.msg_iovlen > 0) {
            m.msg_iov->iov_base = (char *)m.msg_iov->iov_base + n;
            m.msg_iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* Sends one message under send_lock; a failure ends the PE. */
static void send_locked(launcher_t *l, const char *op, uint32_t type, int32_t arg, const void *key,
                        uint32_t key_len, const void *value, uint32_t value_len)
{
    pthread_mutex_lock(&l->send_lock);
    int err = send_msg(l, type, arg, key, key_len, value, value_len);
    pthread_mutex_unlock(&l->send_lock);
    if (err != 0)
        launcher_gone(op, err);
}

/* Receives exactly len bytes (into buf, or discarded when buf is NULL). */
static void recv_all(launcher_t *l, const char *op, void *buf, size_t len)
{
    char discard[4096];

    while (len > 0) {
        void *dest = buf ? buf : discard;
        size_t want = buf ? len : (len < sizeof(discard) ? len : sizeof(discard));
        ssize_t n = recv(l->fd, dest, want, 0);
        if (n == 0)
            launcher_gone(op, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            launcher_gone(op, errno);
        }
        if (buf)
            buf = (char *)buf + n;
        len -= (size_t)n;
    }
}

static void recv_header(launcher_t *l, const char *op, uint32_t expected, shoal_launcher_msg_t *h)
{
    recv_all(l, op, h, sizeof(*h));
    uint32_t max = expected == SHOAL_LAUNCHER_MSG_GATHERED ? SHOAL_LAUNCHER_MAX_GATHERED
                                                           : SHOAL_LAUNCHER_MAX_VALUE;
    if (h->type != expected || h->key_len != 0 || h->value_len > max) {
        SHOAL_ERROR("bootstrap %s: unexpected reply from the launcher (type %u, key %u bytes, "
                    "value %u bytes); the connection is out of step, exiting",
                    op, h->type, h->key_len, h->value_len);
        _exit(1);
    }
}

static shoal_status_t check_key(const char *op, const char *key, size_t *len_p)
{
    size_t len = key ? strlen(key) : 0;

    if (len == 0 || len > SHOAL_LAUNCHER_MAX_KEY) {
        SHOAL_ERROR("bootstrap %s: key '%s' must have 1 to %d characters", op, key ? key : "",
                    SHOAL_LAUNCHER_MAX_KEY);
        return SHOAL_ERR_INVALID;
    }
    *len_p = len;
    return SHOAL_OK;
}

/* A key and the value published under it (put, allgather). */
static shoal_status_t check_entry(const char *op, const char *key, size_t value_len,
                                  size_t *key_len_p)
{
    if (check_key(op, key, key_len_p) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (value_len > SHOAL_LAUNCHER_MAX_VALUE) {
        SHOAL_ERROR("bootstrap %s: value of key '%s' has %zu bytes; the launcher takes at "
                    "most %u",
                    op, key, value_len, SHOAL_LAUNCHER_MAX_VALUE);
        return SHOAL_ERR_INVALID;
    }
    return SHOAL_OK;
}

static shoal_status_t launcher_put(shoal_bootstrap_t *bs, const char *key, const void *value,
                                   size_t len)
{
    size_t key_len;

    if (check_entry("put", key, len, &key_len) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    send_locked(bs->priv, "put", SHOAL_LAUNCHER_MSG_PUT, 0, key, (uint32_t)key_len, value,
                (uint32_t)len);
    return SHOAL_OK;
}

static shoal_status_t launcher_get(shoal_bootstrap_t *bs, int pe, const char *key, void *value,
                                   size_t max_len, size_t *len_p)
{
    launcher_t *l = bs->priv;
    shoal_launcher_msg_t h;
    size_t key_len;
    shoal_status_t status = SHOAL_OK;

    if (check_key("get", key, &key_len) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (pe < 0 || pe >= bs->npes) {
        SHOAL_ERROR("bootstrap get: PE %d is outside the job (0 to %d)", pe, bs->npes - 1);
        return SHOAL_ERR_INVALID;
    }

    pthread_mutex_lock(&l->lock);
    send_locked(l, "get", SHOAL_LAUNCHER_MSG_GET, pe, key, (uint32_t)key_len, NULL, 0);
    recv_header(l, "get", SHOAL_LAUNCHER_MSG_VALUE, &h);
    if (h.value_len > max_len) {
        recv_all(l, "get", NULL, h.value_len);
        status = SHOAL_ERR_TRUNCATED;
    } else {
        recv_all(l, "get", value, h.value_len);
    }
    pthread_mutex_unlock(&l->lock);

    if (status != SHOAL_OK) {
        SHOAL_ERROR("bootstrap get: value of key '%s' from PE %d has %u bytes, more than the "
                    "%zu expected",
                    key, pe, h.value_len, max_len);
        return status;
    }
    if (len_p)
        *len_p = h.value_len;
    return SHOAL_OK;
}

/* PUTs are sent right away, and shoalrun handles each PE's messages in
 * order, so there is nothing to commit. */
static shoal_status_t launcher_fence(shoal_bootstrap_t *bs)
{
    (void)bs;
    return SHOAL_OK;
}

static shoal_status_t launcher_barrier(shoal_bootstrap_t *bs)
{
    launcher_t *l = bs->priv;
    shoal_launcher_msg_t h;

    pthread_mutex_lock(&l->lock);
    send_locked(l, "barrier", SHOAL_LAUNCHER_MSG_BARRIER, 0, NULL, 0, NULL, 0);
    recv_header(l, "barrier", SHOAL_LAUNCHER_MSG_BARRIER_DONE, &h);
    recv_all(l, "barrier", NULL, h.value_len);
    pthread_mutex_unlock(&l->lock);
    return SHOAL_OK;
}

/* One request; the reply holds every PE's value (launcher_proto.h). */
static shoal_status_t launcher_allgather(shoal_bootstrap_t *bs, const char *key, const void *value,
                                         size_t len, shoal_bootstrap_gather_t *all_p)
{
    launcher_t *l = bs->priv;
    shoal_launcher_msg_t h;
    shoal_bootstrap_gather_t all = {.npes = bs->npes};
    uint8_t *reply;
    size_t key_len;

    if (check_entry("allgather", key, len, &key_len) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    pthread_mutex_lock(&l->lock);
    send_locked(l, "allgather", SHOAL_LAUNCHER_MSG_ALLGATHER, 0, key, (uint32_t)key_len, value,
                (uint32_t)len);
    recv_header(l, "allgather", SHOAL_LAUNCHER_MSG_GATHERED, &h);
    reply = malloc(h.value_len ? h.value_len : 1);
    if (reply == NULL) {
        recv_all(l, "allgather", NULL, h.value_len);
        pthread_mutex_unlock(&l->lock);
        SHOAL_ERROR("bootstrap allgather '%s': out of memory for %u bytes", key, h.value_len);
        return SHOAL_ERR_NOMEM;
    }
    recv_all(l, "allgather", reply, h.value_len);
    pthread_mutex_unlock(&l->lock);

    /* Unpack in place: each value moves down over the lengths before it
     * (used <= at always), so `reply` becomes the packed data. */
    all.off = malloc(sizeof(*all.off) * ((size_t)bs->npes + 1));
    all.data = reply;
    size_t at = 0, used = 0;
    for (int pe = 0; all.off != NULL && pe < bs->npes; pe++) {
        uint32_t n;
        if (h.value_len - at < sizeof(n))
            goto malformed;
        memcpy(&n, reply + at, sizeof(n));
        at += sizeof(n);
        if (n > h.value_len - at)
            goto malformed;
        all.off[pe] = used;
        memmove(all.data + used, reply + at, n);
        at += n;
        used += n;
    }
    if (all.off == NULL) {
        SHOAL_ERROR("bootstrap allgather '%s': out of memory", key);
        shoal_bootstrap_gather_free(&all);
        return SHOAL_ERR_NOMEM;
    }
    all.off[bs->npes] = used;
    *all_p = all;
    return SHOAL_OK;
malformed:
    shoal_bootstrap_gather_free(&all); /* frees reply, which all.data is */
    SHOAL_ERROR("bootstrap allgather '%s': the launcher's answer (%u bytes) does not hold %d "
                "values; exiting",
                key, h.value_len, bs->npes);
    _exit(1);
}

static void launcher_notify(shoal_bootstrap_t *bs, shoal_bootstrap_event_t event)
{
    send_locked(bs->priv, "notify", SHOAL_LAUNCHER_MSG_EVENT, (int32_t)event, NULL, 0, NULL, 0);
}

static void __attribute__((noreturn))
launcher_abort(shoal_bootstrap_t *bs, int status, const char *msg)
{
    launcher_t *l = bs->priv;
    size_t len = msg ? strlen(msg) : 0;
    int err;

    if (len > SHOAL_LAUNCHER_MAX_VALUE)
        len = SHOAL_LAUNCHER_MAX_VALUE;
    /* Our output first: shoalrun signals every PE, this one too, on ABORT. */
    fflush(NULL);
    /* Not `lock`: another thread may hold it while it waits for a reply. */
    pthread_mutex_lock(&l->send_lock);
    err = send_msg(l, SHOAL_LAUNCHER_MSG_ABORT, status, NULL, 0, msg, (uint32_t)len);
    pthread_mutex_unlock(&l->send_lock);
    if (err != 0)
        SHOAL_ERROR("bootstrap abort: cannot reach the launcher (%s) to end the job; the "
                    "message was: %s",
                    strerror(err), len ? msg : "(none)");
    _exit(status);
}

static void launcher_finalize(shoal_bootstrap_t *bs)
{
    launcher_t *l = bs->priv;

    if (l == NULL)
        return;
    close(l->fd);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->send_lock);
    free(l);
    bs->priv = NULL;
}

static const shoal_bootstrap_ops_t launcher_ops = {
    .version = SHOAL_BOOTSTRAP_VERSION,
    .name = "launcher",
    .put = launcher_put,
    .get = launcher_get,
    .fence = launcher_fence,
    .barrier = launcher_barrier,
    .notify = launcher_notify,
    .abort = launcher_abort,
    .finalize = launcher_finalize,
    .allgather = launcher_allgather,
};

/* Reads a non-negative decimal environment variable set by shoalrun. */
static shoal_status_t env_int(const char *name, int *value_p)
{
    const char *text = getenv(name);
    char *end;
    long v;

    errno = 0;
    v = text ? strtol(text, &end, 10) : -1;
    if (text == NULL || *text == '\0' || *end != '\0' || errno != 0 || v < 0 || v > INT_MAX) {
        SHOAL_ERROR("%s='%s' is missing or not a number; it should have been set by shoalrun "
                    "(SHOAL_LAUNCHER_FD is set)",
                    name, text ? text : "");
        return SHOAL_ERR_INVALID;
    }
    *value_p = (int)v;
    return SHOAL_OK;
}

shoal_status_t shoal_bootstrap_launcher_init(shoal_bootstrap_t *bs)
{
    const char *job_id = getenv("SHOAL_JOB_ID");
    launcher_t *l;
    int fd;

    if (getenv("SHOAL_LAUNCHER_FD") == NULL)
        return SHOAL_ERR_NOT_FOUND;

    memset(bs, 0, sizeof(*bs));
    if (env_int("SHOAL_LAUNCHER_FD", &fd) != SHOAL_OK ||
        env_int("SHOAL_RANK", &bs->rank) != SHOAL_OK ||
        env_int("SHOAL_NPES", &bs->npes) != SHOAL_OK ||
        env_int("SHOAL_LOCAL_RANK", &bs->local_rank) != SHOAL_OK ||
        env_int("SHOAL_LOCAL_NPES", &bs->local_npes) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (bs->npes < 1 || bs->rank >= bs->npes || bs->local_npes < 1 ||
        bs->local_rank >= bs->local_npes) {
        SHOAL_ERROR("inconsistent job from shoalrun: SHOAL_RANK=%d SHOAL_NPES=%d "
                    "SHOAL_LOCAL_RANK=%d SHOAL_LOCAL_NPES=%d",
                    bs->rank, bs->npes, bs->local_rank, bs->local_npes);
        return SHOAL_ERR_INVALID;
    }
    if (job_id == NULL || *job_id == '\0' || strlen(job_id) >= sizeof(bs->job_id)) {
        SHOAL_ERROR("SHOAL_JOB_ID='%s' is missing or longer than %zu characters",
                    job_id ? job_id : "", sizeof(bs->job_id) - 1);
        return SHOAL_ERR_INVALID;
    }
    /* A child of a PE inherits the variable but not the fd (it is
     * close-on-exec from here on), and the number may since name another file. */
    int type = 0;
    socklen_t type_len = sizeof(type);
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_len) != 0 || type != SOCK_STREAM) {
        SHOAL_ERROR("SHOAL_LAUNCHER_FD=%d is not the launcher's socket (%s); was this program "
                    "started by shoalrun? (a child of a PE is not a PE)",
                    fd, type ? "not a stream socket" : strerror(errno));
        return SHOAL_ERR_INVALID;
    }
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0) {
        int err = errno;
        SHOAL_ERROR("fcntl(SHOAL_LAUNCHER_FD=%d, FD_CLOEXEC) failed: %s", fd, strerror(err));
        return SHOAL_ERR_INVALID;
    }

    l = malloc(sizeof(*l));
    if (l == NULL) {
        SHOAL_ERROR("bootstrap init: out of memory");
        return SHOAL_ERR_NOMEM;
    }
    l->fd = fd;
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->send_lock, NULL);
    strcpy(bs->job_id, job_id);
    bs->ops = &launcher_ops;
    bs->priv = l;
    return SHOAL_OK;
}
