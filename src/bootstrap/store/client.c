/*
 * The "store" bootstrap: a PE's side of the config store. One I/O thread per
 * PE owns the connection (store/client_io.c; so TLS is used from one thread
 * only, with SIGPIPE blocked): it joins the job (store/join.c), then sends
 * what the bootstrap calls queue and delivers what the store sends. The calling thread of
 * shoal_bootstrap_store_init waits for the join to end either way.
 *
 * A request that needs a reply (GET, BARRIER, ALLGATHER) holds req_lock until the
 * reply came, so replies need no tags. ABORT from the store ends the
 * process with the job's status, even while it computes. If the store goes
 * away before this PE finalized, the job cannot go on: the PE says so and
 * exits; after shmem_finalize it is the normal end of the job.
 *
 * Under shoalrun the same client talks to the same store logic over the
 * socketpair the PE inherited (shoal_bootstrap_store_attach, called by
 * launcher.c): plain frames, no greeting, no TLS, no join timeout. The
 * launcher shows an ABORT's message and ends the PEs itself, so this PE
 * only sends it and exits.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/store/store.h"
#include "bootstrap/store/client_impl.h"
#include "bootstrap/store/server_thread.h"
#include "util/log.h"

#define FLUSH_TIMEOUT_MS 10000
#define ABORT_WAIT_MS 3000

/* ---- the bootstrap operations -------------------------------------------- */

/* Queues a message; the lock is held. */
static shoal_status_t queue(client_t *c, const shoal_store_msg_t *m, const char *op)
{
    if (c->dead) {
        SHOAL_ERROR("bootstrap %s: the config store at %s has closed (the job ended)", op,
                    c->where);
        return SHOAL_ERR_IO;
    }
    if (shoal_store_encode(&c->out, m) != SHOAL_OK) {
        SHOAL_ERROR("bootstrap %s: out of memory", op);
        return SHOAL_ERR_NOMEM;
    }
    shoal_store_wake(c->wake_fd);
    return SHOAL_OK;
}

/* Sends a request and waits for its reply (left in c->reply). */
static shoal_status_t request(client_t *c, const shoal_store_msg_t *m, int expect, const char *op)
{
    shoal_status_t status;

    pthread_mutex_lock(&c->req_lock);
    pthread_mutex_lock(&c->lock);
    c->expect = expect;
    c->reply_ready = 0;
    status = queue(c, m, op);
    while (status == SHOAL_OK && !c->reply_ready && !c->dead)
        pthread_cond_wait(&c->cond, &c->lock);
    if (status == SHOAL_OK && !c->reply_ready) {
        SHOAL_ERROR("bootstrap %s: the config store at %s closed before it answered", op, c->where);
        status = SHOAL_ERR_IO;
    }
    c->expect = 0;
    pthread_mutex_unlock(&c->lock);
    /* req_lock stays held until the caller has taken the reply. */
    if (status != SHOAL_OK)
        pthread_mutex_unlock(&c->req_lock);
    return status;
}

/* Waits until everything queued is handed to the kernel; lock held. */
static void wait_flushed(client_t *c, uint64_t timeout_ms)
{
    uint64_t deadline = shoal_store_now_ms() + timeout_ms;
    while (shoal_store_buf_unread(&c->out) > 0 && !c->dead && !c->stop &&
           shoal_store_cond_wait(&c->cond, &c->lock, deadline))
        ;
}

static shoal_status_t check_key(const char *op, const char *key, size_t *len_p)
{
    size_t len = key ? strlen(key) : 0;
    if (len == 0 || len > SHOAL_STORE_MAX_KEY) {
        SHOAL_ERROR("bootstrap %s: key '%s' must have 1 to %d characters", op, key ? key : "",
                    SHOAL_STORE_MAX_KEY);
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
    if (value_len > SHOAL_STORE_MAX_VALUE) {
        SHOAL_ERROR("bootstrap %s: value of key '%s' has %zu bytes; the config store takes at "
                    "most %u",
                    op, key, value_len, SHOAL_STORE_MAX_VALUE);
        return SHOAL_ERR_INVALID;
    }
    return SHOAL_OK;
}

static shoal_status_t store_put(shoal_bootstrap_t *bs, const char *key, const void *value,
                                size_t len)
{
    client_t *c = bs->priv;
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_PUT};
    size_t key_len;
    shoal_status_t status;

    if (check_entry("put", key, len, &key_len) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    m.u.put.key = shoal_store_span(key, key_len);
    m.u.put.value = shoal_store_span(value, len);
    pthread_mutex_lock(&c->lock);
    status = queue(c, &m, "put");
    pthread_mutex_unlock(&c->lock);
    return status;
}

static shoal_status_t store_get(shoal_bootstrap_t *bs, int pe, const char *key, void *value,
                                size_t max_len, size_t *len_p)
{
    client_t *c = bs->priv;
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_GET};
    size_t key_len, got;
    shoal_status_t status;

    if (check_key("get", key, &key_len) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (pe < 0 || pe >= bs->npes) {
        SHOAL_ERROR("bootstrap get: PE %d is outside the job (0 to %d)", pe, bs->npes - 1);
        return SHOAL_ERR_INVALID;
    }
    m.u.get.pe = (uint32_t)pe;
    m.u.get.key = shoal_store_span(key, key_len);
    status = request(c, &m, SHOAL_STORE_MSG_VALUE, "get");
    if (status != SHOAL_OK)
        return status;
    got = shoal_store_buf_unread(&c->reply);
    if (got > max_len) {
        pthread_mutex_unlock(&c->req_lock);
        SHOAL_ERROR("bootstrap get: value of key '%s' from PE %d has %zu bytes, more than the "
                    "%zu expected",
                    key, pe, got, max_len);
        return SHOAL_ERR_TRUNCATED;
    }
    if (got)
        memcpy(value, shoal_store_buf_head(&c->reply), got);
    pthread_mutex_unlock(&c->req_lock);
    if (len_p)
        *len_p = got;
    return SHOAL_OK;
}

/* PUTs go out in order on the one connection, ahead of any later request,
 * and the store handles a connection's frames in order: nothing to commit. */
static shoal_status_t store_fence(shoal_bootstrap_t *bs)
{
    (void)bs;
    return SHOAL_OK;
}

static shoal_status_t store_barrier(shoal_bootstrap_t *bs)
{
    client_t *c = bs->priv;
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_BARRIER};
    shoal_status_t status = request(c, &m, SHOAL_STORE_MSG_BARRIER_DONE, "barrier");
    if (status == SHOAL_OK)
        pthread_mutex_unlock(&c->req_lock);
    return status;
}

static shoal_status_t store_allgather(shoal_bootstrap_t *bs, const char *key, const void *value,
                                      size_t len, shoal_bootstrap_gather_t *all_p)
{
    client_t *c = bs->priv;
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_ALLGATHER};
    shoal_bootstrap_gather_t all = {.npes = bs->npes};
    size_t key_len;
    uint32_t count;

    if (check_entry("allgather", key, len, &key_len) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    m.u.put.key = shoal_store_span(key, key_len);
    m.u.put.value = shoal_store_span(value, len);
    shoal_status_t status = request(c, &m, SHOAL_STORE_MSG_GATHERED, "allgather");
    if (status != SHOAL_OK)
        return status;
    /* The reply is the count, then the values as the decoder checked them. */
    const uint8_t *head = shoal_store_buf_head(&c->reply);
    size_t got = shoal_store_buf_unread(&c->reply);
    memcpy(&count, head, sizeof(count));
    shoal_store_span_t rest = shoal_store_span(head + sizeof(count), got - sizeof(count));
    all.off = malloc(sizeof(*all.off) * ((size_t)bs->npes + 1));
    all.data = malloc(rest.len ? rest.len : 1);
    if (count != (uint32_t)bs->npes || all.off == NULL || all.data == NULL) {
        pthread_mutex_unlock(&c->req_lock);
        if (count != (uint32_t)bs->npes)
            SHOAL_ERROR("bootstrap allgather '%s': the config store at %s answered with %u "
                        "values for a job of %d PEs",
                        key, c->where, count, bs->npes);
        else
            SHOAL_ERROR("bootstrap allgather '%s': out of memory", key);
        shoal_bootstrap_gather_free(&all);
        return count != (uint32_t)bs->npes ? SHOAL_ERR_IO : SHOAL_ERR_NOMEM;
    }
    size_t used = 0;
    for (int pe = 0; pe < bs->npes; pe++) {
        shoal_store_span_t v = shoal_store_gathered_next(&rest);
        all.off[pe] = used;
        if (v.len)
            memcpy(all.data + used, v.ptr, v.len);
        used += v.len;
    }
    all.off[bs->npes] = used;
    pthread_mutex_unlock(&c->req_lock);
    *all_p = all;
    return SHOAL_OK;
}

static void store_notify(shoal_bootstrap_t *bs, shoal_bootstrap_event_t event)
{
    client_t *c = bs->priv;
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_EVENT};

    m.u.event.event = (uint32_t)event;
    pthread_mutex_lock(&c->lock);
    /* Set first: once the store has every FINALIZED, its host may exit, and
     * the end of the connection must then not look like a failure. */
    c->finalized = event == SHOAL_BOOTSTRAP_EVENT_FINALIZED;
    shoal_store_host_note_finalized(c->finalized);
    if (queue(c, &m, "notify") == SHOAL_OK)
        wait_flushed(c, FLUSH_TIMEOUT_MS);
    pthread_mutex_unlock(&c->lock);
}

/* Sends ABORT and waits until it is handed to the kernel; returns with
 * the lock held, 1 when it went out. */
static int send_abort(shoal_bootstrap_t *bs, int status, const char *msg)
{
    client_t *c = bs->priv;
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_ABORT};
    size_t len = msg ? strlen(msg) : 0;

    fflush(NULL);
    if (len > SHOAL_STORE_MAX_TEXT)
        len = SHOAL_STORE_MAX_TEXT;
    m.u.abort.status = status;
    m.u.abort.origin = (uint32_t)bs->rank;
    m.u.abort.message = shoal_store_span(msg ? msg : "", len);
    pthread_mutex_lock(&c->lock);
    c->finalized = 0; /* the store's answer (ABORT to all) must end this PE too */
    shoal_store_host_note_finalized(0);
    if (c->dead || shoal_store_encode(&c->out, &m) != SHOAL_OK)
        return 0;
    shoal_store_wake(c->wake_fd);
    wait_flushed(c, ABORT_WAIT_MS);
    return 1;
}

static void __attribute__((noreturn))
store_abort(shoal_bootstrap_t *bs, int status, const char *msg)
{
    client_t *c = bs->priv;

    if (msg != NULL && msg[0] != '\0')
        SHOAL_ERROR("%s", msg);
    if (send_abort(bs, status, msg)) {
        /* The I/O thread exits the process when the store's ABORT comes back. */
        uint64_t deadline = shoal_store_now_ms() + ABORT_WAIT_MS;
        while (!c->dead && shoal_store_cond_wait(&c->cond, &c->lock, deadline))
            ;
    }
    pthread_mutex_unlock(&c->lock);
    _exit(status);
}

/* Under a launcher: it shows the message once and ends every PE. */
static void __attribute__((noreturn))
launcher_abort(shoal_bootstrap_t *bs, int status, const char *msg)
{
    client_t *c = bs->priv;

    if (!send_abort(bs, status, msg))
        SHOAL_ERROR("bootstrap abort: cannot reach the launcher (shoalrun) to end the job; the "
                    "message was: %s",
                    msg != NULL && msg[0] != '\0' ? msg : "(none)");
    pthread_mutex_unlock(&c->lock);
    _exit(status);
}

static void client_stop(client_t *c)
{
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    shoal_store_wake(c->wake_fd);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
}

static void client_free(client_t *c)
{
    shoal_store_pump_close(&c->pump);
    shoal_store_tls_destroy(c->tls);
    shoal_store_buf_free(&c->in);
    shoal_store_buf_free(&c->out);
    shoal_store_buf_free(&c->reply);
    if (c->wake_fd >= 0)
        close(c->wake_fd);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->req_lock);
    pthread_cond_destroy(&c->cond);
    memset(c->cfg.secret, 0, sizeof(c->cfg.secret));
    free(c);
}

static void store_finalize(shoal_bootstrap_t *bs)
{
    client_t *c = bs->priv;
    if (c == NULL)
        return;
    client_stop(c);
    client_free(c);
    bs->priv = NULL;
}

/* At exit the I/O thread stops before libraries tear down (OpenSSL may
 * clean up from its own exit handler when the program initialized it). */
static void client_at_exit(int status, void *arg)
{
    client_t *c = arg;
    (void)status;
    if (getpid() != c->pid)
        return; /* a forked child: the thread is its parent's */
    client_stop(c);
}

static const shoal_bootstrap_ops_t store_ops = {
    .version = SHOAL_BOOTSTRAP_VERSION,
    .name = "store",
    .put = store_put,
    .get = store_get,
    .fence = store_fence,
    .barrier = store_barrier,
    .notify = store_notify,
    .abort = store_abort,
    .finalize = store_finalize,
    .allgather = store_allgather,
};

/* The same client under shoalrun; only the end of the job differs:
 * store_ops with the launcher's name and abort, filled in by
 * shoal_bootstrap_store_attach. */
static shoal_bootstrap_ops_t launcher_ops;

/* ---- construction -------------------------------------------------------- */

/* PE 0 of an environment start hosts the store before it joins it. */
static shoal_status_t host_store(const shoal_store_config_t *cfg)
{
    shoal_store_host_conf_t conf = {
        .npes = cfg->npes,
        .join_timeout_ms = cfg->join_timeout_ms,
        .security = cfg->security,
        .secret = cfg->secret,
        .certs = &cfg->certs,
        .listen = cfg->listen,
    };
    shoal_store_sockaddr_t bound;
    return shoal_store_host_start(&conf, &bound);
}

/* Starts the I/O thread, which joins the job, and fills *bs once it has.
 * On failure frees everything but `c` itself (and the caller's fd). */
static shoal_status_t client_start(client_t *c, shoal_bootstrap_t *bs,
                                   const shoal_bootstrap_ops_t *ops)
{
    shoal_status_t status;

    c->wake_fd = shoal_store_wake_create("bootstrap init");
    if (c->wake_fd < 0) {
        status = SHOAL_ERR_SYSTEM;
        goto out_tls;
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_init(&c->req_lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    if (pthread_create(&c->thread, NULL, shoal_store_client_main, c) != 0) {
        SHOAL_ERROR("bootstrap init: cannot start the config store's I/O thread: %m");
        status = SHOAL_ERR_SYSTEM;
        goto out_sync;
    }
    pthread_mutex_lock(&c->lock);
    while (c->joined == 0)
        pthread_cond_wait(&c->cond, &c->lock);
    status = c->join_status;
    pthread_mutex_unlock(&c->lock);
    if (status != SHOAL_OK) {
        pthread_join(c->thread, NULL);
        goto out_sync;
    }
    c->pid = getpid();
    on_exit(client_at_exit, c);

    memset(bs, 0, sizeof(*bs));
    bs->ops = ops;
    bs->rank = c->cfg.rank;
    bs->npes = c->cfg.npes;
    bs->local_rank = (int)c->local_rank;
    bs->local_npes = (int)c->local_npes;
    snprintf(bs->job_id, sizeof(bs->job_id), "%s", c->job_id);
    bs->priv = c;
    SHOAL_DEBUG("joined the job through the config store at %s (%s): rank %d of %d, local %d "
                "of %d",
                c->where, shoal_store_security_name((uint8_t)c->cfg.security), bs->rank, bs->npes,
                bs->local_rank, bs->local_npes);
    return SHOAL_OK;

out_sync:
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->req_lock);
    pthread_mutex_destroy(&c->lock);
    close(c->wake_fd);
out_tls:
    shoal_store_pump_close(&c->pump);
    shoal_store_tls_destroy(c->tls);
    shoal_store_buf_free(&c->in);
    shoal_store_buf_free(&c->out);
    /* shmem_init's failure ends in _exit, which would take a store hosted
     * here with it before it told the other PEs why (their refusals). */
    shoal_store_host_deliver(2000);
    return status;
}

shoal_status_t shoal_bootstrap_store_init(shoal_bootstrap_t *bs, int api_only)
{
    client_t *c = calloc(1, sizeof(*c));
    shoal_status_t status;
    int c_configured = 0;

    if (c == NULL)
        return SHOAL_ERR_NOMEM;
    c->wake_fd = -1;
    c->launcher_fd = -1;
    status = shoal_store_config_load(&c->cfg, api_only);
    if (status == SHOAL_ERR_NOT_FOUND)
        goto out_free; /* not configured: the next bootstrap may apply */
    if (status != SHOAL_OK)
        goto out_free;
    c_configured = 1;
    shoal_store_mark_started();
    shoal_store_addr_format(&c->cfg.store, c->where, sizeof(c->where));
    c->hosted_by = strcmp(c->cfg.origin, "the unique ID") == 0
                       ? "hosted by the process that made the unique ID"
                       : "hosted by PE 0";
    if (c->cfg.host && (status = host_store(&c->cfg)) != SHOAL_OK)
        goto out_free;
    if (c->cfg.security != SHOAL_STORE_SEC_PLAIN &&
        (status = shoal_store_tls_create(0, c->cfg.security, c->cfg.secret, &c->cfg.certs,
                                         &c->tls)) != SHOAL_OK)
        goto out_free;
    status = client_start(c, bs, &store_ops);
    if (status == SHOAL_OK)
        return SHOAL_OK;
out_free:
    memset(c->cfg.secret, 0, sizeof(c->cfg.secret));
    free(c);
    /* Configured but failed: never let the caller fall back to another bootstrap. */
    return status == SHOAL_ERR_NOT_FOUND && c_configured ? SHOAL_ERR_INVALID : status;
}

shoal_status_t shoal_bootstrap_store_attach(shoal_bootstrap_t *bs, int fd, int rank, int npes)
{
    client_t *c = calloc(1, sizeof(*c));
    shoal_status_t status;

    if (c == NULL) {
        SHOAL_ERROR("bootstrap init: out of memory");
        return SHOAL_ERR_NOMEM;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        SHOAL_ERROR("fcntl(SHOAL_LAUNCHER_FD=%d, O_NONBLOCK) failed: %m", fd);
        free(c);
        return SHOAL_ERR_SYSTEM;
    }
    c->wake_fd = -1;
    c->launcher_fd = fd;
    c->cfg.rank = rank;
    c->cfg.npes = npes;
    c->cfg.security = SHOAL_STORE_SEC_PLAIN;
    c->cfg.join_timeout_ms = 0; /* shoalrun sees a PE that never comes */
    c->cfg.origin = "shoalrun";
    snprintf(c->where, sizeof(c->where), "shoalrun");
    c->hosted_by = "the launcher, over SHOAL_LAUNCHER_FD";
    launcher_ops = store_ops;
    launcher_ops.name = "launcher";
    launcher_ops.abort = launcher_abort;
    status = client_start(c, bs, &launcher_ops);
    if (status != SHOAL_OK)
        free(c);
    return status;
}
