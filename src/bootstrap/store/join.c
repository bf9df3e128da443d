/*
 * A PE joins its job at the config store (see store/join.h): connect,
 * retrying until the connect timeout; greet (the store refuses another
 * protocol version, TLS mode or job secret by name); TLS handshake; HELLO;
 * then wait for WELCOME while the job assembles, or for REFUSE with the
 * reason. Over a launcher's socketpair only the HELLO part remains. Every failure is one logged
 * line with the store's address, the cause and what to do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <poll.h>

#include "bootstrap/store/join.h"
#include "util/host_identity.h"
#include "util/log.h"

#define GREET_TIMEOUT_MS 10000 /* greeting and handshake, once connected */
#define JOIN_SLACK_MS 5000     /* the store reports a join timeout before we give up */
#define READ_CHUNK 16384

/* Waits for what `rc` asks for; 0 when ready, -1 when the deadline passed. */
static int wait_io(shoal_store_join_t *j, long rc, uint64_t deadline_ms)
{
    short events = rc == SHOAL_STORE_IO_WANT_WRITE ? POLLOUT : POLLIN;
    return shoal_store_wait_fd(j->link->fd, events, deadline_ms) ? 0 : -1;
}

/* Sends all of buf; 0, or -1 with the cause in `why`. */
static int send_all(shoal_store_join_t *j, const void *buf, size_t len, uint64_t deadline_ms,
                    char *why, size_t why_size)
{
    const uint8_t *p = buf;
    while (len > 0) {
        long n = shoal_store_link_write(j->link, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE) {
            if (wait_io(j, n, deadline_ms) != 0) {
                snprintf(why, why_size, "it stopped answering (timed out)");
                return -1;
            }
        } else {
            j->last_io = (int)n;
            snprintf(why, why_size, "%s",
                     n == SHOAL_STORE_IO_EOF ? "it closed the connection" : j->link->error);
            return -1;
        }
    }
    return 0;
}

/* Reads at least one byte into j->in; 0, or -1 with the cause in `why`. */
static int recv_some(shoal_store_join_t *j, uint64_t deadline_ms, size_t max, char *why,
                     size_t why_size)
{
    for (;;) {
        if (shoal_store_buf_reserve(&j->in, max) != SHOAL_OK) {
            snprintf(why, why_size, "out of memory");
            return -1;
        }
        long n = shoal_store_link_read(j->link, j->in.data + j->in.len, max);
        if (n > 0) {
            j->in.len += (size_t)n;
            return 0;
        }
        if (n == SHOAL_STORE_IO_WANT_READ || n == SHOAL_STORE_IO_WANT_WRITE) {
            if (wait_io(j, n, deadline_ms) != 0) {
                snprintf(why, why_size, "no answer (timed out)");
                return -1;
            }
            continue;
        }
        j->last_io = (int)n;
        snprintf(why, why_size, "%s",
                 n == SHOAL_STORE_IO_EOF ? "it closed the connection" : j->link->error);
        return -1;
    }
}

static const char *fix_for_origin(const shoal_store_join_t *j)
{
    return strcmp(j->cfg->origin, "the unique ID") == 0
               ? "the process that made the unique ID must be running, and the address in "
                 "the ID must be reachable from here (choose it with "
                 "SHOAL_STORE_ADVERTISE_IFACE there); or raise SHOAL_STORE_CONNECT_TIMEOUT"
               : "start PE 0 (it hosts the store) with the same store address, check the "
                 "address and any firewall, or raise SHOAL_STORE_CONNECT_TIMEOUT if PE 0 "
                 "starts later";
}

static shoal_status_t connect_store(shoal_store_join_t *j, int *fd_p)
{
    uint64_t start = shoal_store_now_ms(), deadline = start + j->cfg->connect_timeout_ms;
    uint64_t backoff = 5; /* doubling to 500 ms: PE 0 may not listen yet */
    char why[256] = "";
    shoal_status_t status;

    for (;;) {
        status = shoal_store_connect(&j->cfg->store, deadline, fd_p, why, sizeof(why));
        if (status == SHOAL_OK)
            return SHOAL_OK;
        uint64_t now = shoal_store_now_ms();
        if (now >= deadline)
            break;
        uint64_t pause = backoff < deadline - now ? backoff : deadline - now;
        struct timespec ts = {(time_t)(pause / 1000), (long)(pause % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        backoff = backoff * 2 > 500 ? 500 : backoff * 2;
    }
    SHOAL_ERROR("cannot reach the config store at %s (from %s) within %.1f s: %s. To fix: %s",
                j->where, j->cfg->origin, (double)(shoal_store_now_ms() - start) / 1000.0, why,
                fix_for_origin(j));
    return status == SHOAL_ERR_TIMEOUT ? SHOAL_ERR_TIMEOUT : SHOAL_ERR_UNREACHABLE;
}

/* The greeting exchange; logs a refusal by its cause. */
static shoal_status_t greet(shoal_store_join_t *j, uint64_t deadline_ms)
{
    uint8_t hello[SHOAL_STORE_HELLO_BYTES], key_id[SHOAL_STORE_KEY_ID_BYTES] = {0};
    uint8_t version, security, verdict;
    char why[256];

    if (j->cfg->security == SHOAL_STORE_SEC_PSK &&
        shoal_store_key_id(j->cfg->secret, key_id) != SHOAL_OK)
        return SHOAL_ERR_SYSTEM;
    shoal_store_greeting_encode(hello, (uint8_t)j->cfg->security, key_id);
    if (send_all(j, hello, sizeof(hello), deadline_ms, why, sizeof(why)) != 0) {
        SHOAL_ERROR("the config store at %s did not take this PE's greeting: %s; is it a Shoal "
                    "config store?",
                    j->where, why);
        return SHOAL_ERR_IO;
    }
    while (shoal_store_buf_unread(&j->in) < SHOAL_STORE_REPLY_BYTES) {
        size_t want = SHOAL_STORE_REPLY_BYTES - shoal_store_buf_unread(&j->in);
        if (recv_some(j, deadline_ms, want, why, sizeof(why)) != 0) {
            SHOAL_ERROR("the service at %s did not answer this PE's greeting (%s): it is not "
                        "a Shoal config store, or one of another Shoal version",
                        j->where, why);
            return SHOAL_ERR_IO;
        }
    }
    if (shoal_store_reply_decode(shoal_store_buf_head(&j->in), &version, &security, &verdict) !=
        SHOAL_OK) {
        SHOAL_ERROR("the service at %s is not a Shoal config store (it answered the greeting "
                    "with something else); check the store address",
                    j->where);
        return SHOAL_ERR_IO;
    }
    shoal_store_buf_consume(&j->in, SHOAL_STORE_REPLY_BYTES);
    if (version != SHOAL_STORE_PROTO_VERSION || verdict == SHOAL_STORE_GREET_VERSION) {
        SHOAL_ERROR("the config store at %s speaks protocol version %u, this PE version %u: "
                    "every PE of a job must run the same Shoal version",
                    j->where, version, SHOAL_STORE_PROTO_VERSION);
        return SHOAL_ERR_UNSUPPORTED;
    }
    switch (verdict) {
    case SHOAL_STORE_GREET_OK:
        return SHOAL_OK;
    case SHOAL_STORE_GREET_SECURITY:
        SHOAL_ERROR("the config store at %s refused this PE: the store uses %s, this PE %s. "
                    "TLS must be on (the default) or off on every PE alike "
                    "(SHOAL_STORE_TLS or shmemx_set_conf_store_tls), with the same kind of "
                    "credentials",
                    j->where, shoal_store_security_name(security),
                    shoal_store_security_name((uint8_t)j->cfg->security));
        return SHOAL_ERR_INVALID;
    case SHOAL_STORE_GREET_WRONG_SECRET:
        SHOAL_ERROR("the config store at %s refused this PE: its job secret differs from the "
                    "store's. Give every PE the same secret (SHOAL_JOB_KEY_FILE or "
                    "SHOAL_JOB_KEY, or the same unique ID); or another job's store is using "
                    "this address",
                    j->where);
        return SHOAL_ERR_INVALID;
    case SHOAL_STORE_GREET_CLOSED:
        SHOAL_ERROR("the config store at %s refused this PE: its job has already ended or "
                    "failed; start the job again",
                    j->where);
        return SHOAL_ERR_INVALID;
    default:
        SHOAL_ERROR("the config store at %s refused this PE with unknown verdict %u", j->where,
                    verdict);
        return SHOAL_ERR_INVALID;
    }
}

static shoal_status_t handshake(shoal_store_join_t *j, uint64_t deadline_ms)
{
    for (;;) {
        int rc = shoal_store_link_handshake(j->link);
        if (rc == 0)
            return SHOAL_OK;
        if (rc == SHOAL_STORE_IO_WANT_READ || rc == SHOAL_STORE_IO_WANT_WRITE) {
            if (wait_io(j, rc, deadline_ms) == 0)
                continue;
            SHOAL_ERROR("TLS handshake with the config store at %s timed out", j->where);
            return SHOAL_ERR_TIMEOUT;
        }
        SHOAL_ERROR("TLS handshake with the config store at %s failed: %s. Check that every "
                    "PE uses certificates from the same CA (SHOAL_STORE_TLS_INFO), valid and "
                    "not revoked, naming the store's host (or verify_name=0)",
                    j->where,
                    rc == SHOAL_STORE_IO_EOF ? "the store closed the connection (it rejected "
                                               "this PE's certificate?)"
                                             : j->link->error);
        return SHOAL_ERR_INVALID;
    }
}

/* Reads one whole frame (deadline-bounded) and decodes it into *m; the
 * frame stays in j->in until the caller consumes *len_p bytes. */
static shoal_status_t read_frame(shoal_store_join_t *j, uint64_t deadline_ms, shoal_store_msg_t *m,
                                 size_t *len_p, char *why, size_t why_size)
{
    for (;;) {
        const char *bad = NULL;
        size_t len = 0;
        shoal_status_t status = shoal_store_frame_peek(shoal_store_buf_head(&j->in),
                                                       shoal_store_buf_unread(&j->in), &len, &bad);
        if (status == SHOAL_OK)
            status = shoal_store_decode(shoal_store_buf_head(&j->in), len, m, &bad);
        if (status == SHOAL_OK) {
            *len_p = len;
            return SHOAL_OK;
        }
        if (status != SHOAL_ERR_NOT_FOUND) {
            snprintf(why, why_size, "it sent a malformed frame (%s)", bad);
            return SHOAL_ERR_IO;
        }
        if (recv_some(j, deadline_ms, READ_CHUNK, why, why_size) != 0)
            return SHOAL_ERR_IO;
    }
}

/* Sending HELLO or waiting for the answer failed: says why, by cause. */
static shoal_status_t join_failed(shoal_store_join_t *j, const char *why)
{
    if (j->last_io == SHOAL_STORE_IO_ERROR && j->cfg->security == SHOAL_STORE_SEC_CERT) {
        /* TLS 1.3: the store checks our certificate after our side of the
         * handshake is done, so its verdict arrives here. */
        SHOAL_ERROR("TLS handshake with the config store at %s failed: the store rejected this "
                    "PE's certificate (%s). Every PE needs a certificate from the job's CA "
                    "(SHOAL_STORE_TLS_INFO), valid and not revoked",
                    j->where, why);
        return SHOAL_ERR_INVALID;
    }
    if (j->last_io == SHOAL_STORE_IO_ERROR || j->last_io == SHOAL_STORE_IO_EOF) {
        SHOAL_ERROR("the config store at %s failed while this PE joined: %s%s", j->where, why,
                    j->cfg->security == SHOAL_STORE_SEC_CERT
                        ? " (did it reject this PE's certificate? see the store's log)"
                        : "");
        return SHOAL_ERR_IO;
    }
    SHOAL_ERROR("while waiting for all %d PEs to join at the config store at %s: %s. Every PE "
                "must be started with the same store address and job size; raise "
                "SHOAL_STORE_JOIN_TIMEOUT if they start far apart",
                j->cfg->npes, j->where, why);
    return SHOAL_ERR_TIMEOUT;
}

static shoal_status_t join(shoal_store_join_t *j)
{
    char host[SHOAL_STORE_MAX_TEXT], why[256];
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_HELLO};
    shoal_store_buf_t frame = {0};
    uint64_t deadline = j->cfg->join_timeout_ms == 0
                            ? UINT64_MAX
                            : shoal_store_now_ms() + j->cfg->join_timeout_ms + JOIN_SLACK_MS;
    size_t len;

    shoal_host_identity(host, sizeof(host));
    m.u.hello.rank = (uint32_t)j->cfg->rank;
    m.u.hello.npes = (uint32_t)j->cfg->npes;
    m.u.hello.pid = (uint32_t)getpid();
    m.u.hello.host = shoal_store_span(host, strlen(host));
    j->last_io = 0;
    if (shoal_store_encode(&frame, &m) != SHOAL_OK ||
        send_all(j, frame.data, frame.len, deadline, why, sizeof(why)) != 0 ||
        read_frame(j, deadline, &m, &len, why, sizeof(why)) != SHOAL_OK) {
        shoal_store_buf_free(&frame);
        return join_failed(j, why);
    }
    shoal_store_buf_free(&frame);
    if (m.type == SHOAL_STORE_MSG_REFUSE) {
        char reason[SHOAL_STORE_MAX_TEXT + 1];
        shoal_store_span_str(m.u.refuse.reason, reason, sizeof(reason));
        if (m.u.refuse.code == SHOAL_STORE_REFUSE_PE_LEFT)
            SHOAL_ERROR("the config store at %s ended the start of the job (this PE: rank %d of "
                        "%d): %s",
                        j->where, j->cfg->rank, j->cfg->npes, reason);
        else
            SHOAL_ERROR("the config store at %s refused this PE (rank %d of %d): %s", j->where,
                        j->cfg->rank, j->cfg->npes, reason);
        return m.u.refuse.code == SHOAL_STORE_REFUSE_JOIN_TIMEOUT ? SHOAL_ERR_TIMEOUT
                                                                  : SHOAL_ERR_INVALID;
    }
    if (m.type != SHOAL_STORE_MSG_WELCOME) {
        SHOAL_ERROR("the config store at %s answered HELLO with %s; the connection is out of "
                    "step",
                    j->where, shoal_store_msg_name(m.type));
        return SHOAL_ERR_IO;
    }
    j->local_rank = m.u.welcome.local_rank;
    j->local_npes = m.u.welcome.local_npes;
    shoal_store_span_str(m.u.welcome.job_id, j->job_id, sizeof(j->job_id));
    shoal_store_buf_consume(&j->in, len);
    return SHOAL_OK;
}

shoal_status_t shoal_store_join(shoal_store_join_t *j)
{
    shoal_status_t status;
    int fd = -1;
    uint64_t deadline;

    if (j->fd >= 0) {
        /* A launcher's socketpair: the launcher knows who is at the other end. */
        status = shoal_store_link_tcp_create(j->fd, &j->link);
        return status == SHOAL_OK ? join(j) : status;
    }
    status = connect_store(j, &fd);
    if (status != SHOAL_OK)
        return status;
    status = shoal_store_link_tcp_create(fd, &j->link);
    if (status != SHOAL_OK) {
        close(fd);
        return status;
    }
    deadline = shoal_store_now_ms() + GREET_TIMEOUT_MS;
    status = greet(j, deadline);
    if (status != SHOAL_OK)
        return status;
    if (j->cfg->security != SHOAL_STORE_SEC_PLAIN) {
        shoal_store_link_t *tls_link;
        status = shoal_store_link_tls_create(j->tls, fd, j->cfg->store.host, &tls_link);
        if (status != SHOAL_OK)
            return status;
        j->link->fd = -1; /* the TLS link owns the socket now */
        shoal_store_link_destroy(j->link);
        j->link = tls_link;
        status = handshake(j, deadline);
        if (status != SHOAL_OK)
            return status;
    }
    return join(j);
}
