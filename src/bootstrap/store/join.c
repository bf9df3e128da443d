/*
 * A PE joins its job at the config store, the first step of its I/O
 * thread (store/client_io.c; SIGPIPE blocked): connect,
 * retrying until the connect timeout; then the pump (store/pump.c) greets
 * (the store refuses another protocol version, TLS mode or job secret by
 * name), runs the TLS handshake and sends HELLO, and this PE waits for
 * WELCOME while the job assembles, or for REFUSE with the reason. Over a
 * launcher's socketpair only the HELLO part remains. Every failure is one
 * logged line with the store's address, the cause and what to do.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/store/client_impl.h"
#include "util/host_identity.h"
#include "util/log.h"

#define JOIN_SLACK_MS 5000 /* the store reports a join timeout before we give up */

static const char *fix_for_origin(const client_t *c)
{
    return strcmp(c->cfg.origin, "the unique ID") == 0
               ? "the process that made the unique ID must be running, and the address in "
                 "the ID must be reachable from here (choose it with "
                 "SHOAL_STORE_ADVERTISE_IFACE there); or raise SHOAL_STORE_CONNECT_TIMEOUT"
               : "start PE 0 (it hosts the store) with the same store address, check the "
                 "address and any firewall, or raise SHOAL_STORE_CONNECT_TIMEOUT if PE 0 "
                 "starts later";
}

static shoal_status_t connect_store(client_t *c, int *fd_p)
{
    uint64_t start = shoal_store_now_ms(), deadline = start + c->cfg.connect_timeout_ms;
    uint64_t backoff = 5; /* doubling to 500 ms: PE 0 may not listen yet */
    char why[256] = "";
    shoal_status_t status;

    for (;;) {
        status = shoal_store_connect(&c->cfg.store, deadline, fd_p, why, sizeof(why));
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
                c->where, c->cfg.origin, (double)(shoal_store_now_ms() - start) / 1000.0, why,
                fix_for_origin(c));
    return status == SHOAL_ERR_TIMEOUT ? SHOAL_ERR_TIMEOUT : SHOAL_ERR_UNREACHABLE;
}

/* The store refused the greeting: says why, by its verdict. */
static shoal_status_t refused_greeting(client_t *c)
{
    const shoal_store_pump_t *p = &c->pump;

    if (p->peer_version != SHOAL_STORE_PROTO_VERSION || p->verdict == SHOAL_STORE_GREET_VERSION) {
        SHOAL_ERROR("the config store at %s speaks protocol version %u, this PE version %u: "
                    "every PE of a job must run the same Shoal version",
                    c->where, p->peer_version, SHOAL_STORE_PROTO_VERSION);
        return SHOAL_ERR_UNSUPPORTED;
    }
    switch (p->verdict) {
    case SHOAL_STORE_GREET_SECURITY:
        SHOAL_ERROR("the config store at %s refused this PE: the store uses %s, this PE %s. "
                    "TLS must be on (the default) or off on every PE alike "
                    "(SHOAL_STORE_TLS or shmemx_set_conf_store_tls), with the same kind of "
                    "credentials",
                    c->where, shoal_store_security_name(p->peer_security),
                    shoal_store_security_name((uint8_t)c->cfg.security));
        break;
    case SHOAL_STORE_GREET_WRONG_SECRET:
        SHOAL_ERROR("the config store at %s refused this PE: its job secret differs from the "
                    "store's. Give every PE the same secret (SHOAL_JOB_KEY_FILE or "
                    "SHOAL_JOB_KEY, or the same unique ID); or another job's store is using "
                    "this address",
                    c->where);
        break;
    case SHOAL_STORE_GREET_CLOSED:
        SHOAL_ERROR("the config store at %s refused this PE: its job has already ended or "
                    "failed; start the job again",
                    c->where);
        break;
    default:
        SHOAL_ERROR("the config store at %s refused this PE with unknown verdict %u", c->where,
                    p->verdict);
    }
    return SHOAL_ERR_INVALID;
}

/* The connection ended before WELCOME: says why, by where and how. */
static shoal_status_t join_failed(client_t *c)
{
    const shoal_store_pump_t *p = &c->pump;
    const char *why = shoal_store_pump_cause(p, "it closed the connection");
    int cert = c->cfg.security == SHOAL_STORE_SEC_CERT;

    if (p->ended_in == SHOAL_STORE_PUMP_GREET) {
        if (p->end == SHOAL_STORE_END_REFUSED)
            return refused_greeting(c);
        if (p->end == SHOAL_STORE_END_PROTOCOL)
            SHOAL_ERROR("the service at %s is not a Shoal config store (%s); check the store "
                        "address",
                        c->where, why);
        else
            SHOAL_ERROR("the service at %s did not answer this PE's greeting (%s): it is not "
                        "a Shoal config store, or one of another Shoal version",
                        c->where, why);
        return SHOAL_ERR_IO;
    }
    if (p->ended_in == SHOAL_STORE_PUMP_HANDSHAKE) {
        if (p->end == SHOAL_STORE_END_TIMEOUT) {
            SHOAL_ERROR("TLS handshake with the config store at %s timed out", c->where);
            return SHOAL_ERR_TIMEOUT;
        }
        SHOAL_ERROR("TLS handshake with the config store at %s failed: %s. Check that every "
                    "PE uses certificates from the same CA (SHOAL_STORE_TLS_INFO), valid and "
                    "not revoked, naming the store's host (or verify_name=0)",
                    c->where,
                    p->end == SHOAL_STORE_IO_EOF ? "the store closed the connection (it rejected "
                                                   "this PE's certificate?)"
                                                 : why);
        return SHOAL_ERR_INVALID;
    }
    if (p->end == SHOAL_STORE_IO_ERROR && cert) {
        /* TLS 1.3: the store checks our certificate after our side of the
         * handshake is done, so its verdict arrives here. */
        SHOAL_ERROR("TLS handshake with the config store at %s failed: the store rejected this "
                    "PE's certificate (%s). Every PE needs a certificate from the job's CA "
                    "(SHOAL_STORE_TLS_INFO), valid and not revoked",
                    c->where, why);
        return SHOAL_ERR_INVALID;
    }
    SHOAL_ERROR("the config store at %s failed while this PE joined: %s%s", c->where, why,
                cert ? " (did it reject this PE's certificate? see the store's log)" : "");
    return SHOAL_ERR_IO;
}

/* The store's answer to HELLO. */
static shoal_status_t answered(client_t *c, const shoal_store_msg_t *m, size_t len)
{
    if (m->type == SHOAL_STORE_MSG_REFUSE) {
        char reason[SHOAL_STORE_MAX_TEXT + 1];
        shoal_store_span_str(m->u.refuse.reason, reason, sizeof(reason));
        if (m->u.refuse.code == SHOAL_STORE_REFUSE_PE_LEFT)
            SHOAL_ERROR("the config store at %s ended the start of the job (this PE: rank %d of "
                        "%d): %s",
                        c->where, c->cfg.rank, c->cfg.npes, reason);
        else
            SHOAL_ERROR("the config store at %s refused this PE (rank %d of %d): %s", c->where,
                        c->cfg.rank, c->cfg.npes, reason);
        return m->u.refuse.code == SHOAL_STORE_REFUSE_JOIN_TIMEOUT ? SHOAL_ERR_TIMEOUT
                                                                   : SHOAL_ERR_INVALID;
    }
    c->local_rank = m->u.welcome.local_rank;
    c->local_npes = m->u.welcome.local_npes;
    shoal_store_span_str(m->u.welcome.job_id, c->job_id, sizeof(c->job_id));
    shoal_store_buf_consume(&c->in, len);
    shoal_store_pump_joined(&c->pump);
    return SHOAL_OK;
}

/* Opens the pump: over the launcher's socket, or greeting the store. */
static shoal_status_t open_pump(client_t *c)
{
    shoal_store_pump_t *p = &c->pump;
    int fd = c->launcher_fd;

    if (fd < 0) {
        shoal_status_t status = connect_store(c, &fd);
        if (status != SHOAL_OK)
            return status;
        p->tls = c->tls;
        p->peer_host = c->cfg.store.host;
        p->security = (uint8_t)c->cfg.security;
        if (c->cfg.security == SHOAL_STORE_SEC_PSK &&
            shoal_store_key_id(c->cfg.secret, p->key_id) != SHOAL_OK) {
            close(fd);
            return SHOAL_ERR_SYSTEM;
        }
    }
    return shoal_store_pump_open(
        p, c->launcher_fd < 0 ? &shoal_store_policy_pe : &shoal_store_policy_pe_fd, fd, &c->in,
        &c->out, shoal_store_now_ms());
}

shoal_status_t shoal_store_client_join(client_t *c)
{
    char host[SHOAL_STORE_MAX_TEXT];
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_HELLO};
    shoal_store_pump_t *p = &c->pump;
    shoal_status_t status = open_pump(c);
    size_t len;
    int got = 0;

    if (status != SHOAL_OK)
        return status;
    uint64_t deadline = c->cfg.join_timeout_ms == 0
                            ? UINT64_MAX
                            : shoal_store_now_ms() + c->cfg.join_timeout_ms + JOIN_SLACK_MS;
    shoal_host_identity(host, sizeof(host));
    m.u.hello.rank = (uint32_t)c->cfg.rank;
    m.u.hello.npes = (uint32_t)c->cfg.npes;
    m.u.hello.pid = (uint32_t)getpid();
    m.u.hello.host = shoal_store_span(host, strlen(host));
    if (shoal_store_encode(&c->out, &m) != SHOAL_OK) {
        SHOAL_ERROR("joining the config store at %s: out of memory", c->where);
        return SHOAL_ERR_NOMEM;
    }
    /* The HELLO goes out once the greeting and handshake are through. */
    for (;;) {
        if (p->state == SHOAL_STORE_PUMP_JOINING && (got = shoal_store_pump_frame(p, &m, &len)))
            break;
        int rc = shoal_store_pump_step(p, shoal_store_now_ms());
        if (rc < 0)
            return join_failed(c);
        if (rc == 0 && !shoal_store_pump_wait(p, deadline) && shoal_store_now_ms() >= deadline) {
            SHOAL_ERROR("while waiting for all %d PEs to join at the config store at %s: no "
                        "answer (timed out). Every PE must be started with the same store "
                        "address and job size; raise SHOAL_STORE_JOIN_TIMEOUT if they start "
                        "far apart",
                        c->cfg.npes, c->where);
            return SHOAL_ERR_TIMEOUT;
        }
    }
    if (got < 0) {
        SHOAL_ERROR("the config store at %s answered HELLO wrongly (%s); the connection is out "
                    "of step",
                    c->where, p->why);
        return SHOAL_ERR_IO;
    }
    return answered(c, &m, len);
}
