/*
 * The config store's logic, joining (see store/logic.c for the whole): each
 * PE sends HELLO with its rank, the job size and its host identity. A rank
 * outside the job, a rank another connection holds, or a job size that
 * differs is refused with a REFUSE that says which and why. When every rank
 * has joined, each PE gets WELCOME with its rank among the PEs of its host
 * and the job id. If they do not all join within the join timeout, every
 * waiting PE is told which ranks are missing; if one that joined leaves
 * before the job started, every other is told its name at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/logic_impl.h"
#include "util/host_identity.h"
#include "util/log.h"

typedef struct {
    const char *host;
    int rank;
} host_rank_t;

static int cmp_host_rank(const void *a, const void *b)
{
    const host_rank_t *x = a, *y = b;
    int c = strcmp(x->host, y->host);
    return c != 0 ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

/* Everyone is here: each PE learns its place among the PEs of its host. */
static void start_job(shoal_store_server_t *srv)
{
    host_rank_t *order = malloc((size_t)srv->npes * sizeof(*order));
    if (order == NULL) {
        shoal_store_logic_end(srv, "the config store ran out of memory starting the job");
        return;
    }
    for (int r = 0; r < srv->npes; r++)
        order[r] = (host_rank_t){srv->by_rank[r]->host, r};
    qsort(order, (size_t)srv->npes, sizeof(*order), cmp_host_rank);
    for (int i = 0; i < srv->npes;) {
        int j = i;
        while (j < srv->npes && strcmp(order[j].host, order[i].host) == 0)
            j++;
        for (int k = i; k < j; k++) {
            shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_WELCOME};
            m.u.welcome.local_rank = (uint32_t)(k - i);
            m.u.welcome.local_npes = (uint32_t)(j - i);
            m.u.welcome.job_id = shoal_store_span(srv->conf.job_id, strlen(srv->conf.job_id));
            shoal_store_logic_send(srv->by_rank[order[k].rank], &m);
        }
        i = j;
    }
    free(order);
    srv->started = 1;
    SHOAL_DEBUG("config store at %s: all %d PEs joined", srv->conf.where, srv->npes);
}

shoal_status_t shoal_store_logic_hello(shoal_store_server_t *srv, shoal_store_peer_t *p,
                                       const shoal_store_msg_t *m, uint64_t now_ms)
{
    char reason[512];
    int rank = (int)m->u.hello.rank;

    if (p->state != SHOAL_STORE_PEER_NEW) {
        SHOAL_LOG_LIMITED(&srv->protocol_limit, srv->now_ms,
                          "config store at %s: %s sent a second HELLO; closing that connection",
                          srv->conf.where, p->addr);
        return SHOAL_ERR_INVALID;
    }
    if (srv->over && srv->conf.launcher)
        return SHOAL_OK; /* the launcher is ending every PE; no answer needed */
    if (srv->over) {
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_JOB_OVER,
                                 "the job this store served has already ended or failed");
        return SHOAL_OK;
    }
    if (srv->npes == 0) {
        srv->by_rank = calloc(m->u.hello.npes, sizeof(*srv->by_rank));
        if (srv->by_rank == NULL) {
            shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_NPES, "the store is out of memory");
            return SHOAL_OK;
        }
        srv->npes = (int)m->u.hello.npes;
    }
    if (srv->first_hello_ms == 0)
        srv->first_hello_ms = now_ms ? now_ms : 1;
    if (p->bound_rank >= 0 && rank != p->bound_rank) {
        snprintf(
            reason, sizeof(reason),
            "this PE says it is rank %d, but the launcher started it as PE %d (SHOAL_RANK=%d); "
            "a PE cannot claim another PE's rank",
            rank, p->bound_rank, p->bound_rank);
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_RANK_BOUND, reason);
        return SHOAL_OK;
    }
    if (rank >= srv->npes) {
        snprintf(reason, sizeof(reason),
                 "rank %d is outside this job of %d PEs (ranks 0 to %d): SHOAL_RANK (or the "
                 "rank given to shmemx_set_attr_uniqueid_args) must be below the job size",
                 rank, srv->npes, srv->npes - 1);
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_RANK_RANGE, reason);
        return SHOAL_OK;
    }
    if ((int)m->u.hello.npes != srv->npes) {
        snprintf(reason, sizeof(reason),
                 "this PE says the job has %u PEs, but the store's job has %d: the job size "
                 "(SHOAL_NPES or npes of shmemx_set_attr_uniqueid_args) must be the same on "
                 "every PE",
                 m->u.hello.npes, srv->npes);
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_NPES, reason);
        return SHOAL_OK;
    }
    if (srv->by_rank[rank] != NULL) {
        const shoal_store_peer_t *o = srv->by_rank[rank];
        snprintf(reason, sizeof(reason),
                 "rank %d is already claimed by pid %u on host %.64s (connected from %s): every "
                 "PE needs a rank of its own",
                 rank, o->pid, o->host, o->addr);
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_RANK_TAKEN, reason);
        return SHOAL_OK;
    }
    if (srv->started && !srv->conf.launcher) {
        snprintf(reason, sizeof(reason),
                 "rank %d already ran in this job and has exited; a job cannot take new PEs", rank);
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_JOB_OVER, reason);
        return SHOAL_OK;
    }
    p->host = malloc(m->u.hello.host.len + 1);
    if (p->host == NULL) {
        shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_NPES, "the store is out of memory");
        return SHOAL_OK;
    }
    shoal_store_span_str(m->u.hello.host, p->host, m->u.hello.host.len + 1);
    p->rank = rank;
    p->pid = m->u.hello.pid;
    p->state = SHOAL_STORE_PEER_JOINED;
    srv->by_rank[rank] = p;
    srv->joined++;
    SHOAL_DEBUG("config store at %s: PE %d joined from %s (%d of %d)", srv->conf.where, rank,
                p->addr, srv->joined, srv->npes);
    if (srv->conf.launcher) {
        /* Every PE is on the launcher's host; nothing to wait for. */
        shoal_store_msg_t w = {.type = SHOAL_STORE_MSG_WELCOME};
        w.u.welcome.local_rank = (uint32_t)rank;
        w.u.welcome.local_npes = (uint32_t)srv->npes;
        w.u.welcome.job_id = shoal_store_span(srv->conf.job_id, strlen(srv->conf.job_id));
        shoal_store_logic_send(p, &w);
    } else if (srv->joined == srv->npes) {
        start_job(srv);
    }
    return SHOAL_OK;
}

uint64_t shoal_store_server_tick(shoal_store_server_t *srv, uint64_t now_ms)
{
    char reason[SHOAL_STORE_MAX_TEXT];
    size_t n;
    int listed = 0;
    uint64_t a = shoal_log_limit_flush(&srv->refuse_limit, now_ms);
    uint64_t b = shoal_log_limit_flush(&srv->protocol_limit, now_ms);
    uint64_t logs = a < b ? a : b; /* when a summary of left-out lines is due */

    if (srv->started || srv->over || srv->first_hello_ms == 0 || srv->conf.join_timeout_ms == 0)
        return logs;
    if (now_ms < srv->first_hello_ms + srv->conf.join_timeout_ms)
        return logs < srv->first_hello_ms + srv->conf.join_timeout_ms
                   ? logs
                   : srv->first_hello_ms + srv->conf.join_timeout_ms;

    n = (size_t)snprintf(reason, sizeof(reason),
                         "only %d of %d PEs joined within %llu s; missing rank(s):", srv->joined,
                         srv->npes, (unsigned long long)(srv->conf.join_timeout_ms / 1000));
    for (int r = 0; r < srv->npes && n < sizeof(reason) - 200; r++) {
        if (srv->by_rank[r] != NULL)
            continue;
        if (listed++ == 16) {
            n += (size_t)snprintf(reason + n, sizeof(reason) - n, " ...");
            break;
        }
        n += (size_t)snprintf(reason + n, sizeof(reason) - n, " %d", r);
    }
    snprintf(reason + n, sizeof(reason) - n,
             ". Start every PE with the same store address and job size, or raise "
             "SHOAL_STORE_JOIN_TIMEOUT");
    srv->over = 1;
    SHOAL_WARN("config store at %s: the job cannot start: %s", srv->conf.where, reason);
    for (shoal_store_peer_t *p = srv->peers; p != NULL; p = p->next)
        if (p->rank >= 0 && !p->closing)
            shoal_store_logic_refuse(srv, p, SHOAL_STORE_REFUSE_JOIN_TIMEOUT, reason);
    return logs;
}

/* A PE that joined has gone before every PE joined: it died (a PE does not
 * leave shmem_init on its own), so the job cannot start. Everyone who
 * joined is told at once, with its name, rather than left to wait out the
 * join timeout; those still to come are refused as the job is over. */
void shoal_store_logic_end_start(shoal_store_server_t *srv, const shoal_store_peer_t *gone)
{
    char reason[400], where[96];

    shoal_host_label(gone->host ? gone->host : "?", where, sizeof(where));
    snprintf(reason, sizeof(reason),
             "PE %d (pid %u on %s) closed its connection to the config store at %s while the "
             "job was starting (%d of %d PEs had joined): it exited, crashed or was killed in "
             "shmem_init, so the job cannot start; start it again",
             gone->rank, gone->pid, where, srv->conf.where, srv->joined + 1, srv->npes);
    srv->over = 1;
    srv->end_status = 1;
    srv->end_origin = SHOAL_STORE_NO_ORIGIN;
    snprintf(srv->end_message, sizeof(srv->end_message), "%s", reason);
    SHOAL_ERROR("config store at %s: the job cannot start: %s", srv->conf.where, reason);
    for (shoal_store_peer_t *q = srv->peers; q != NULL; q = q->next)
        if (q != gone && q->rank >= 0 && !q->closing)
            shoal_store_logic_refuse(srv, q, SHOAL_STORE_REFUSE_PE_LEFT, reason);
}
