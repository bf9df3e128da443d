/*
 * The config store's logic (see store/logic.h): life cycle, what a peer's
 * frames go to, events and the end of the job; joining is
 * store/logic_join.c, the requests (the key-value table, barriers,
 * allgathers) store/logic_requests.c.
 *
 * Once joined a PE has at most one request waiting for a reply (GET,
 * BARRIER or ALLGATHER). A PE whose connection ends before it finalized
 * has died, so the job is ended with ABORT to all.
 *
 * In launcher mode (see logic.h) the launcher judges instead: the logic
 * records the end of the job rather than sending ABORT, lets PEs leave, and
 * answers which PE waits for which.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/logic_impl.h"
#include "util/host_identity.h"
#include "util/log.h"
#include "util/log_limit.h"

/* ---- life cycle ---------------------------------------------------------- */

shoal_status_t shoal_store_server_create(const shoal_store_server_conf_t *conf,
                                         shoal_store_server_t **srv_p)
{
    shoal_store_server_t *srv;
    if (conf->launcher && conf->npes <= 0)
        return SHOAL_ERR_INVALID; /* a launcher knows the job size */
    srv = calloc(1, sizeof(*srv));
    if (srv == NULL)
        return SHOAL_ERR_NOMEM;
    srv->conf = *conf;
    snprintf(srv->where, sizeof(srv->where), "%s", conf->where ? conf->where : "?");
    srv->conf.where = srv->where;
    shoal_log_limit_init(&srv->refuse_limit, SHOAL_LOG_WARN, SHOAL_LOG_LIMIT_BURST, 1000,
                         "config store at %s: refused PEs", srv->where);
    shoal_log_limit_init(&srv->protocol_limit, SHOAL_LOG_WARN, SHOAL_LOG_LIMIT_BURST, 1000,
                         "config store at %s: closed connections that broke the protocol",
                         srv->where);
    srv->nbuckets = 256;
    srv->buckets = calloc(srv->nbuckets, sizeof(*srv->buckets));
    if (srv->buckets == NULL) {
        free(srv);
        return SHOAL_ERR_NOMEM;
    }
    /* A launcher started every PE of the job on its host: the job is there. */
    srv->started = conf->launcher;
    if (conf->npes > 0) {
        srv->npes = conf->npes;
        srv->by_rank = calloc((size_t)conf->npes, sizeof(*srv->by_rank));
        if (srv->by_rank == NULL) {
            free(srv->buckets);
            free(srv);
            return SHOAL_ERR_NOMEM;
        }
    }
    *srv_p = srv;
    return SHOAL_OK;
}

static void peer_free(shoal_store_peer_t *p)
{
    free(p->gather_value);
    shoal_store_buf_free(&p->in);
    shoal_store_buf_free(&p->out);
    free(p->host);
    free(p);
}

void shoal_store_server_report(const shoal_store_server_t *srv)
{
    uint64_t total = 0, most = srv->most_from_one;
    for (int t = 0; t <= SHOAL_STORE_MSG_LAST; t++)
        total += srv->served[t];
    for (const shoal_store_peer_t *p = srv->peers; p != NULL; p = p->next)
        if (p->requests > most)
            most = p->requests;
    SHOAL_INFO("config store at %s: served %llu requests from %d PEs (%.1f per PE, at most %llu "
               "from one): put %llu, get %llu, allgather %llu, barrier %llu, event %llu",
               srv->conf.where, (unsigned long long)total, srv->npes,
               srv->npes ? (double)total / srv->npes : 0.0, (unsigned long long)most,
               (unsigned long long)srv->served[SHOAL_STORE_MSG_PUT],
               (unsigned long long)srv->served[SHOAL_STORE_MSG_GET],
               (unsigned long long)srv->served[SHOAL_STORE_MSG_ALLGATHER],
               (unsigned long long)srv->served[SHOAL_STORE_MSG_BARRIER],
               (unsigned long long)srv->served[SHOAL_STORE_MSG_EVENT]);
}

void shoal_store_server_destroy(shoal_store_server_t *srv)
{
    if (srv == NULL)
        return;
    while (srv->peers != NULL) {
        shoal_store_peer_t *p = srv->peers;
        srv->peers = p->next;
        peer_free(p);
    }
    shoal_store_logic_kv_free(srv);
    free(srv->by_rank);
    free(srv);
}

shoal_store_peer_t *shoal_store_server_peer_new(shoal_store_server_t *srv, const char *addr)
{
    shoal_store_peer_t *p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->rank = -1;
    p->bound_rank = -1;
    snprintf(p->addr, sizeof(p->addr), "%s", addr ? addr : "?");
    p->next = srv->peers;
    if (srv->peers != NULL)
        srv->peers->prev = p;
    srv->peers = p;
    srv->npeers++;
    return p;
}

void shoal_store_server_peer_bind(shoal_store_peer_t *peer, int rank)
{
    peer->bound_rank = rank;
}

shoal_store_peer_t *shoal_store_server_peers(shoal_store_server_t *srv)
{
    return srv->peers;
}

int shoal_store_server_npeers(const shoal_store_server_t *srv)
{
    return srv->npeers;
}

int shoal_store_server_over(const shoal_store_server_t *srv)
{
    return srv->over;
}

int shoal_store_server_started(const shoal_store_server_t *srv)
{
    return srv->started;
}

int shoal_store_server_unfinished(const shoal_store_server_t *srv)
{
    return srv->npes - srv->finalized - srv->departed;
}

int shoal_store_server_finished(const shoal_store_server_t *srv)
{
    return srv->over || (srv->started && srv->finalized + srv->departed >= srv->npes);
}

/* ---- sending ------------------------------------------------------------- */

/* Queues a message; without memory for it the peer is dropped. */
void shoal_store_logic_send(shoal_store_peer_t *p, const shoal_store_msg_t *m)
{
    if (shoal_store_encode(&p->out, m) != SHOAL_OK) {
        SHOAL_ERROR("config store: out of memory queueing %s for %s; closing that connection",
                    shoal_store_msg_name(m->type), p->addr);
        p->closing = 1;
    }
}

void shoal_store_logic_refuse(shoal_store_server_t *srv, shoal_store_peer_t *p, uint32_t code,
                              const char *reason)
{
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_REFUSE};
    m.u.refuse.code = code;
    m.u.refuse.reason = shoal_store_span(reason, strlen(reason));
    /* The join timeout is logged once, for all; under a launcher the PE
     * says it was refused, and why, itself. */
    if (code != SHOAL_STORE_REFUSE_JOIN_TIMEOUT && code != SHOAL_STORE_REFUSE_PE_LEFT &&
        !srv->conf.launcher)
        SHOAL_LOG_LIMITED(&srv->refuse_limit, srv->now_ms,
                          "config store at %s: refused a PE connecting from %s: %s",
                          srv->conf.where, p->addr, reason);
    shoal_store_logic_send(p, &m);
    p->closing = 1;
}

void shoal_store_server_abort(shoal_store_server_t *srv, int status, uint32_t origin,
                              const char *message)
{
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_ABORT};
    size_t len = message ? strlen(message) : 0;

    if (srv->over)
        return; /* the first end of the job wins */
    srv->over = 1;
    if (len > SHOAL_STORE_MAX_TEXT)
        len = SHOAL_STORE_MAX_TEXT;
    srv->end_status = status;
    srv->end_origin = origin;
    memcpy(srv->end_message, message ? message : "", len);
    srv->end_message[len] = '\0';
    if (srv->conf.launcher)
        return; /* the launcher ends the PEs and shows the message */
    m.u.abort.status = status;
    m.u.abort.origin = origin;
    m.u.abort.message = shoal_store_span(message, len);
    for (shoal_store_peer_t *p = srv->peers; p != NULL; p = p->next)
        if (p->rank >= 0 && !p->closing)
            shoal_store_logic_send(p, &m);
}

int shoal_store_server_ended(const shoal_store_server_t *srv, int *status_p, uint32_t *origin_p,
                             const char **message_p)
{
    if (!srv->over)
        return 0;
    *status_p = srv->end_status;
    *origin_p = srv->end_origin;
    *message_p = srv->end_message;
    return 1;
}

/* The store itself ends the job: logged here, or shown by the launcher. */
void shoal_store_logic_end(shoal_store_server_t *srv, const char *msg)
{
    if (!srv->conf.launcher)
        SHOAL_ERROR("config store at %s: %s", srv->conf.where, msg);
    shoal_store_server_abort(srv, 1, SHOAL_STORE_NO_ORIGIN, msg);
}

void shoal_store_server_flush_logs(shoal_store_server_t *srv)
{
    shoal_log_limit_flush(&srv->refuse_limit, UINT64_MAX);
    shoal_log_limit_flush(&srv->protocol_limit, UINT64_MAX);
}

/* ---- requests ------------------------------------------------------------ */

int shoal_store_logic_error(shoal_store_server_t *srv, shoal_store_peer_t *p, const char *what)
{
    snprintf(p->error, sizeof(p->error), "%s", what);
    if (srv->conf.launcher)
        return -1; /* the launcher names the PE and ends the job */
    /* A PE of the job breaking the protocol ends it (once); anyone else can
     * do so at will, so those lines are rate-limited. */
    if (p->rank >= 0)
        SHOAL_WARN("config store at %s: PE %d (from %s) broke the protocol: %s; closing its "
                   "connection",
                   srv->conf.where, p->rank, p->addr, what);
    else
        SHOAL_LOG_LIMITED(&srv->protocol_limit, srv->now_ms,
                          "config store at %s: a client from %s broke the protocol: %s; "
                          "closing its connection",
                          srv->conf.where, p->addr, what);
    return -1;
}
static void handle_event(shoal_store_server_t *srv, shoal_store_peer_t *p, uint32_t event)
{
    if (event == 1) { /* initialized (again) */
        if (p->state == SHOAL_STORE_PEER_FINALIZED)
            srv->finalized--;
        p->state = SHOAL_STORE_PEER_RUNNING;
    } else if (p->state != SHOAL_STORE_PEER_FINALIZED) {
        p->state = SHOAL_STORE_PEER_FINALIZED;
        srv->finalized++;
    }
}

static void handle_abort(shoal_store_server_t *srv, shoal_store_peer_t *p,
                         const shoal_store_msg_t *m)
{
    char msg[SHOAL_STORE_MAX_TEXT + 1];
    /* The PE that ends the job shows its message itself. */
    shoal_store_span_str(m->u.abort.message, msg, sizeof(msg));
    SHOAL_DEBUG("config store at %s: PE %d ends the job with status %d", srv->conf.where, p->rank,
                m->u.abort.status);
    shoal_store_server_abort(srv, m->u.abort.status, (uint32_t)p->rank, msg);
}

static shoal_status_t handle(shoal_store_server_t *srv, shoal_store_peer_t *p,
                             const shoal_store_msg_t *m, uint64_t now_ms)
{
    int error = 0;

    if (m->type == SHOAL_STORE_MSG_HELLO)
        return shoal_store_logic_hello(srv, p, m, now_ms);
    if (p->state == SHOAL_STORE_PEER_NEW) {
        shoal_store_logic_error(srv, p, "the first message must be HELLO");
        return SHOAL_ERR_INVALID;
    }
    if (srv->over)
        return SHOAL_OK; /* the job has ended: everyone is told already */
    p->requests++;
    if (m->type <= SHOAL_STORE_MSG_LAST)
        srv->served[m->type]++;
    switch (m->type) {
    case SHOAL_STORE_MSG_PUT:
        shoal_store_logic_put(srv, p, m, &error);
        break;
    case SHOAL_STORE_MSG_GET:
    case SHOAL_STORE_MSG_BARRIER:
    case SHOAL_STORE_MSG_ALLGATHER:
        if (!srv->started)
            error = shoal_store_logic_error(srv, p, "a request before every PE joined");
        else if (p->waiting != 0)
            error =
                shoal_store_logic_error(srv, p, "a second request while one waits for its reply");
        else if (m->type == SHOAL_STORE_MSG_GET)
            shoal_store_logic_get(srv, p, m, &error);
        else if (m->type == SHOAL_STORE_MSG_ALLGATHER)
            shoal_store_logic_allgather(srv, p, m, &error);
        else
            shoal_store_logic_barrier(srv, p);
        break;
    case SHOAL_STORE_MSG_EVENT:
        handle_event(srv, p, m->u.event.event);
        break;
    case SHOAL_STORE_MSG_ABORT:
        handle_abort(srv, p, m);
        break;
    default: {
        char what[80];
        snprintf(what, sizeof(what), "%s is not a message a PE sends",
                 shoal_store_msg_name(m->type));
        error = shoal_store_logic_error(srv, p, what);
    }
    }
    return error ? SHOAL_ERR_INVALID : SHOAL_OK;
}

shoal_status_t shoal_store_server_input(shoal_store_server_t *srv, shoal_store_peer_t *p,
                                        uint64_t now_ms)
{
    srv->now_ms = now_ms;
    while (!p->closing) {
        const uint8_t *head = shoal_store_buf_head(&p->in);
        size_t len = shoal_store_buf_unread(&p->in), frame_len = 0;
        const char *why = NULL;
        shoal_store_msg_t m;
        shoal_status_t status = shoal_store_frame_peek(head, len, &frame_len, &why);

        if (status == SHOAL_ERR_NOT_FOUND)
            return SHOAL_OK;
        if (status == SHOAL_OK)
            status = shoal_store_decode(head, frame_len, &m, &why);
        if (status != SHOAL_OK) {
            shoal_store_logic_error(srv, p, why ? why : "malformed frame");
            return SHOAL_ERR_INVALID;
        }
        status = handle(srv, p, &m, now_ms);
        shoal_store_buf_consume(&p->in, frame_len);
        if (status != SHOAL_OK)
            return status;
    }
    return SHOAL_OK;
}

void shoal_store_server_peer_gone(shoal_store_server_t *srv, shoal_store_peer_t *p, uint64_t now_ms)
{
    srv->now_ms = now_ms;
    if (p->waiting == SHOAL_STORE_MSG_GET)
        srv->waiting_gets--;
    if (p->waiting == SHOAL_STORE_MSG_BARRIER)
        srv->in_barrier--;
    if (p->waiting == SHOAL_STORE_MSG_ALLGATHER) {
        srv->in_gather--;
        srv->gather_bytes -= p->gather_len;
    }
    if (p->requests > srv->most_from_one)
        srv->most_from_one = p->requests;
    if (p->rank >= 0 && srv->by_rank != NULL && srv->by_rank[p->rank] == p) {
        srv->by_rank[p->rank] = NULL;
        if (!srv->started) {
            srv->joined--;
            if (!srv->over)
                shoal_store_logic_end_start(srv, p);
        } else if (p->state == SHOAL_STORE_PEER_FINALIZED) {
            srv->finalized--;
            srv->departed++;
        } else if (!srv->over && !srv->conf.launcher) {
            char msg[512], where[96];
            shoal_host_label(p->host ? p->host : "?", where, sizeof(where));
            if (p->unreachable) {
                /* The address it connected from, without the port, names the host. */
                char host_addr[sizeof(p->addr)];
                snprintf(host_addr, sizeof(host_addr), "%s", p->addr);
                char *port = strrchr(host_addr, ':');
                if (port != NULL && port != host_addr)
                    *port = '\0';
                snprintf(msg, sizeof(msg),
                         "PE %d (pid %u on %s) is unreachable: its host %s stopped answering "
                         "on its connection to the config store at %s (the host is down or the "
                         "network link to it is cut; SHOAL_NET_TIMEOUT says how long an "
                         "unanswered link is waited for); ending the job",
                         p->rank, p->pid, where, host_addr, srv->conf.where);
            } else {
                snprintf(msg, sizeof(msg),
                         "PE %d (pid %u on %s) closed its connection to the config store at %s "
                         "before shmem_finalize: it exited, crashed or was killed; ending the "
                         "job",
                         p->rank, p->pid, where, srv->conf.where);
            }
            SHOAL_ERROR("%s", msg);
            shoal_store_server_abort(srv, 1, SHOAL_STORE_NO_ORIGIN, msg);
        }
    }
    if (p->prev != NULL)
        p->prev->next = p->next;
    else
        srv->peers = p->next;
    if (p->next != NULL)
        p->next->prev = p->prev;
    srv->npeers--;
    peer_free(p);
}
