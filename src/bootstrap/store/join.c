/*
 * A PE joins its job at the config store (see store/join.h): connect,
 * retrying until the connect timeout; greet (the store refuses another
 * protocol version, TLS mode or job secret by name); TLS handshake; HELLO;
 * then wait for WELCOME while the job assembles, or for REFUSE with the
 * reason. Over a launcher's socketpair only the HELLO part remains. Every failure is one logged
 * line with the store's address, the cause and what to do.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/store/join.h"
#include "bootstrap/store/pump.h"
#include "util/host_identity.h"
#include "util/log.h"

#define JOIN_SLACK_MS 5000 /* the store reports a join timeout before we give up */

/* The pump over the join's link; `out` is what to send. */
static shoal_store_pump_t join_pump(shoal_store_join_t *j, shoal_store_buf_t *out)
{
    return (shoal_store_pump_t){
        .policy = &shoal_store_policy_join, .link = j->link, .in = &j->in, .out = out};
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
    shoal_store_buf_t out = {.data = hello, .len = sizeof(hello), .cap = sizeof(hello)};
    shoal_store_pump_t pump = join_pump(j, &out);

    if (j->cfg->security == SHOAL_STORE_SEC_PSK &&
        shoal_store_key_id(j->cfg->secret, key_id) != SHOAL_OK)
        return SHOAL_ERR_SYSTEM;
    shoal_store_greeting_encode(hello, (uint8_t)j->cfg->security, key_id);
    if (shoal_store_pump_send_all(&pump, deadline_ms, why, sizeof(why)) != 0) {
        SHOAL_ERROR("the config store at %s did not take this PE's greeting: %s; is it a Shoal "
                    "config store?",
                    j->where, why);
        return SHOAL_ERR_IO;
    }
    while (shoal_store_buf_unread(&j->in) < SHOAL_STORE_REPLY_BYTES) {
        size_t want = SHOAL_STORE_REPLY_BYTES - shoal_store_buf_unread(&j->in);
        /* No more than the answer: TLS starts on the socket right after it. */
        if (shoal_store_pump_recv(&pump, want, deadline_ms, why, sizeof(why)) != 0) {
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
            if (shoal_store_wait_fd(j->link->fd, rc == SHOAL_STORE_IO_WANT_WRITE ? POLLOUT : POLLIN,
                                    deadline_ms))
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

/* Sending HELLO or waiting for the answer failed: says why, by cause. */
static shoal_status_t join_failed(shoal_store_join_t *j, int end, const char *why)
{
    if (end == SHOAL_STORE_IO_ERROR && j->cfg->security == SHOAL_STORE_SEC_CERT) {
        /* TLS 1.3: the store checks our certificate after our side of the
         * handshake is done, so its verdict arrives here. */
        SHOAL_ERROR("TLS handshake with the config store at %s failed: the store rejected this "
                    "PE's certificate (%s). Every PE needs a certificate from the job's CA "
                    "(SHOAL_STORE_TLS_INFO), valid and not revoked",
                    j->where, why);
        return SHOAL_ERR_INVALID;
    }
    if (end == SHOAL_STORE_IO_ERROR || end == SHOAL_STORE_IO_EOF) {
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
    shoal_store_pump_t pump = join_pump(j, &frame);
    uint64_t deadline = j->cfg->join_timeout_ms == 0
                            ? UINT64_MAX
                            : shoal_store_now_ms() + j->cfg->join_timeout_ms + JOIN_SLACK_MS;
    size_t len;
    int got = 0;

    shoal_host_identity(host, sizeof(host));
    m.u.hello.rank = (uint32_t)j->cfg->rank;
    m.u.hello.npes = (uint32_t)j->cfg->npes;
    m.u.hello.pid = (uint32_t)getpid();
    m.u.hello.host = shoal_store_span(host, strlen(host));
    snprintf(why, sizeof(why), "out of memory");
    if (shoal_store_encode(&frame, &m) == SHOAL_OK &&
        shoal_store_pump_send_all(&pump, deadline, why, sizeof(why)) == 0)
        while ((got = shoal_store_pump_frame(&pump, &m, &len, why, sizeof(why))) == 0 &&
               shoal_store_pump_recv(&pump, 0, deadline, why, sizeof(why)) == 0)
            ;
    shoal_store_buf_free(&frame);
    if (got < 0) {
        SHOAL_ERROR("the config store at %s answered HELLO wrongly (%s); the connection is out "
                    "of step",
                    j->where, why);
        return SHOAL_ERR_IO;
    }
    if (got != 1)
        return join_failed(j, pump.end, why);
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
    deadline = shoal_store_now_ms() + shoal_store_policy_join.greet_timeout_ms;
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
