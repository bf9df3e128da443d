/*
 * The config store's logic, requests (see store/logic.c for the whole): the
 * key-value table with PUT and GET (a GET for a key not yet PUT waits for
 * it), barriers, and the allgather, held until every PE sent one with the
 * same key and then answered with one GATHERED, encoded once. The lowest
 * waiter of each kind answers a launcher that saw a PE exit
 * (shoal_store_server_waits_for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/logic_impl.h"
#include "util/log.h"

/* ---- key-value table ----------------------------------------------------- */

static size_t kv_hash(uint32_t rank, const uint8_t *key, size_t len)
{
    uint64_t h = 1469598103934665603ull ^ rank;
    for (size_t i = 0; i < len; i++) {
        h ^= key[i];
        h *= 1099511628211ull;
    }
    return (size_t)(h ^ (h >> 29));
}

static kv_entry_t **kv_slot(shoal_store_server_t *srv, uint32_t rank, const uint8_t *key,
                            size_t len)
{
    kv_entry_t **slot = &srv->buckets[kv_hash(rank, key, len) & (srv->nbuckets - 1)];
    for (; *slot != NULL; slot = &(*slot)->next)
        if ((*slot)->rank == rank && (*slot)->key_len == len && memcmp((*slot)->key, key, len) == 0)
            break;
    return slot;
}

static void kv_grow(shoal_store_server_t *srv)
{
    size_t n = srv->nbuckets * 2;
    kv_entry_t **b = calloc(n, sizeof(*b));
    if (b == NULL)
        return; /* keep the longer chains */
    for (size_t i = 0; i < srv->nbuckets; i++) {
        kv_entry_t *e = srv->buckets[i];
        while (e != NULL) {
            kv_entry_t *next = e->next;
            size_t j = kv_hash(e->rank, (const uint8_t *)e->key, e->key_len) & (n - 1);
            e->next = b[j];
            b[j] = e;
            e = next;
        }
    }
    free(srv->buckets);
    srv->buckets = b;
    srv->nbuckets = n;
}

void shoal_store_logic_kv_free(shoal_store_server_t *srv)
{
    for (size_t i = 0; i < srv->nbuckets; i++) {
        kv_entry_t *e = srv->buckets[i];
        while (e != NULL) {
            kv_entry_t *next = e->next;
            free(e->value);
            free(e);
            e = next;
        }
    }
    free(srv->buckets);
}

static void send_value(shoal_store_peer_t *p, const kv_entry_t *e)
{
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_VALUE};
    m.u.value.value = shoal_store_span(e->value, e->value_len);
    shoal_store_logic_send(p, &m);
}

static void send_empty(shoal_store_peer_t *p, shoal_store_msg_type_t type)
{
    shoal_store_msg_t m = {.type = type};
    shoal_store_logic_send(p, &m);
}

/* A rank that finalized and left cannot take part again. (A launcher sees
 * the PE exit and asks shoal_store_server_waits_for instead.) */
static int check_departed(shoal_store_server_t *srv)
{
    char msg[200];
    if (srv->departed == 0 || srv->conf.launcher)
        return 0;
    for (int r = 0; r < srv->npes; r++)
        if (srv->by_rank[r] == NULL) {
            snprintf(msg, sizeof(msg),
                     "PE %d has exited after shmem_finalize, so the other PEs cannot "
                     "initialize again; ending the job",
                     r);
            shoal_store_logic_end(srv, msg);
            return 1;
        }
    return 0;
}

void shoal_store_logic_put(shoal_store_server_t *srv, shoal_store_peer_t *p,
                           const shoal_store_msg_t *m, int *error_p)
{
    const shoal_store_span_t *key = &m->u.put.key, *val = &m->u.put.value;
    kv_entry_t **slot = kv_slot(srv, (uint32_t)p->rank, key->ptr, key->len);
    kv_entry_t *e = *slot;
    uint8_t *copy;

    if (srv->bytes + val->len + key->len > SHOAL_STORE_MAX_TOTAL) {
        *error_p = shoal_store_logic_error(srv, p, "the store holds its maximum of data");
        return;
    }
    copy = malloc(val->len ? val->len : 1);
    if (copy == NULL) {
        *error_p = shoal_store_logic_error(srv, p, "the store is out of memory");
        return;
    }
    if (val->len)
        memcpy(copy, val->ptr, val->len);
    if (e == NULL) {
        e = malloc(sizeof(*e) + key->len + 1);
        if (e == NULL) {
            free(copy);
            *error_p = shoal_store_logic_error(srv, p, "the store is out of memory");
            return;
        }
        e->next = NULL;
        e->rank = (uint32_t)p->rank;
        e->key_len = key->len;
        memcpy(e->key, key->ptr, key->len);
        e->key[key->len] = '\0';
        e->value = NULL;
        e->value_len = 0;
        *slot = e;
        srv->nentries++;
        srv->bytes += key->len;
    } else {
        srv->bytes -= e->value_len;
        free(e->value);
    }
    e->value = copy;
    e->value_len = val->len;
    srv->bytes += val->len;

    if (srv->waiting_gets > 0) {
        for (shoal_store_peer_t *q = srv->peers; q != NULL; q = q->next) {
            if (q->waiting != SHOAL_STORE_MSG_GET || q->get_pe != (uint32_t)p->rank ||
                strlen(q->get_key) != key->len || memcmp(q->get_key, key->ptr, key->len) != 0)
                continue;
            send_value(q, e);
            q->waiting = 0;
            srv->waiting_gets--;
        }
    }
    if (srv->nentries > srv->nbuckets)
        kv_grow(srv);
}

void shoal_store_logic_get(shoal_store_server_t *srv, shoal_store_peer_t *p,
                           const shoal_store_msg_t *m, int *error_p)
{
    if ((int)m->u.get.pe >= srv->npes) {
        *error_p = shoal_store_logic_error(srv, p, "GET names a PE outside the job");
        return;
    }
    if (srv->by_rank[m->u.get.pe] == NULL && check_departed(srv))
        return;
    kv_entry_t *e = *kv_slot(srv, m->u.get.pe, m->u.get.key.ptr, m->u.get.key.len);
    if (e != NULL) {
        send_value(p, e);
        return;
    }
    p->waiting = SHOAL_STORE_MSG_GET;
    p->get_pe = m->u.get.pe;
    shoal_store_span_str(m->u.get.key, p->get_key, sizeof(p->get_key));
    srv->waiting_gets++;
}

void shoal_store_logic_barrier(shoal_store_server_t *srv, shoal_store_peer_t *p)
{
    if (check_departed(srv))
        return;
    p->waiting = SHOAL_STORE_MSG_BARRIER;
    if (++srv->in_barrier < srv->npes)
        return;
    srv->in_barrier = 0;
    for (shoal_store_peer_t *q = srv->peers; q != NULL; q = q->next) {
        if (q->waiting != SHOAL_STORE_MSG_BARRIER)
            continue;
        q->waiting = 0;
        send_empty(q, SHOAL_STORE_MSG_BARRIER_DONE);
    }
}

/* Every PE has its part in: one GATHERED, encoded once, for all. */
static void finish_gather(shoal_store_server_t *srv)
{
    shoal_store_buf_t values = {0}, frame = {0};
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_GATHERED};
    shoal_status_t status = SHOAL_OK;

    for (int r = 0; r < srv->npes && status == SHOAL_OK; r++) {
        const shoal_store_peer_t *q = srv->by_rank[r];
        status = shoal_store_bytes32_append(&values, q->gather_value, q->gather_len);
    }
    m.u.gathered.count = (uint32_t)srv->npes;
    m.u.gathered.values = shoal_store_span(values.data, values.len);
    if (status == SHOAL_OK)
        status = shoal_store_encode(&frame, &m);
    for (int r = 0; r < srv->npes; r++) {
        shoal_store_peer_t *q = srv->by_rank[r];
        free(q->gather_value);
        q->gather_value = NULL;
        q->gather_len = 0;
        q->waiting = 0;
        if (status == SHOAL_OK &&
            shoal_store_buf_append(&q->out, frame.data, frame.len) != SHOAL_OK)
            status = SHOAL_ERR_NOMEM;
    }
    srv->in_gather = 0;
    srv->gather_bytes = 0;
    shoal_store_buf_free(&values);
    shoal_store_buf_free(&frame);
    if (status != SHOAL_OK) {
        char msg[200];
        snprintf(msg, sizeof(msg),
                 "the config store cannot answer the allgather '%s' of %d PEs (%s); ending "
                 "the job",
                 srv->gather_key, srv->npes,
                 status == SHOAL_ERR_NOMEM ? "out of memory"
                                           : "the answer is over the protocol's "
                                             "limit");
        shoal_store_logic_end(srv, msg);
    }
}

void shoal_store_logic_allgather(shoal_store_server_t *srv, shoal_store_peer_t *p,
                                 const shoal_store_msg_t *m, int *error_p)
{
    const shoal_store_span_t *key = &m->u.put.key, *val = &m->u.put.value;
    char msg[SHOAL_STORE_MAX_KEY * 2 + 200];

    if (check_departed(srv))
        return;
    if (srv->in_gather == 0) {
        shoal_store_span_str(*key, srv->gather_key, sizeof(srv->gather_key));
    } else if (strlen(srv->gather_key) != key->len ||
               memcmp(srv->gather_key, key->ptr, key->len) != 0) {
        char theirs[SHOAL_STORE_MAX_KEY + 1];
        shoal_store_span_str(*key, theirs, sizeof(theirs));
        snprintf(msg, sizeof(msg),
                 "PE %d entered the bootstrap allgather '%s' while other PEs are in '%s': every "
                 "PE must make the same bootstrap collectives in the same order; ending the job",
                 p->rank, theirs, srv->gather_key);
        shoal_store_logic_end(srv, msg);
        return;
    }
    if (srv->bytes + srv->gather_bytes + val->len > SHOAL_STORE_MAX_TOTAL) {
        *error_p = shoal_store_logic_error(srv, p, "the store holds its maximum of data");
        return;
    }
    p->gather_value = malloc(val->len ? val->len : 1);
    if (p->gather_value == NULL) {
        *error_p = shoal_store_logic_error(srv, p, "the store is out of memory");
        return;
    }
    if (val->len)
        memcpy(p->gather_value, val->ptr, val->len);
    p->gather_len = val->len;
    srv->gather_bytes += val->len;
    p->waiting = SHOAL_STORE_MSG_ALLGATHER;
    if (++srv->in_gather == srv->npes)
        finish_gather(srv);
}

/* The lowest rank whose peer waits in `kind`. */
static int lowest_waiting(const shoal_store_server_t *srv, int kind)
{
    for (int r = 0; r < srv->npes; r++)
        if (srv->by_rank[r] != NULL && srv->by_rank[r]->waiting == kind)
            return r;
    return -1;
}

int shoal_store_server_waits_for(const shoal_store_server_t *srv, int rank,
                                 shoal_store_wait_t *wait_p)
{
    const shoal_store_peer_t *gone;
    shoal_store_wait_t w = {.waiter = -1, .key = ""};

    if (rank < 0 || rank >= srv->npes || srv->by_rank == NULL || srv->over || !srv->started)
        return 0; /* (before the start, only the join timeout ends a config-store job) */
    gone = srv->by_rank[rank];
    if (srv->in_barrier > 0 && (gone == NULL || gone->waiting != SHOAL_STORE_MSG_BARRIER)) {
        w.kind = SHOAL_STORE_MSG_BARRIER;
        w.waiter = lowest_waiting(srv, w.kind);
    } else if (srv->in_gather > 0 && (gone == NULL || gone->waiting != SHOAL_STORE_MSG_ALLGATHER)) {
        w.kind = SHOAL_STORE_MSG_ALLGATHER;
        w.waiter = lowest_waiting(srv, w.kind);
        w.key = srv->gather_key;
    } else if (srv->waiting_gets > 0) {
        /* A waiting GET's key does not exist yet (a PUT answers it at once). */
        for (int r = 0; r < srv->npes && w.waiter < 0; r++) {
            const shoal_store_peer_t *q = srv->by_rank[r];
            if (q != NULL && q->waiting == SHOAL_STORE_MSG_GET && q->get_pe == (uint32_t)rank) {
                w.waiter = r;
                w.key = q->get_key;
            }
        }
        w.kind = SHOAL_STORE_MSG_GET;
    }
    if (w.waiter < 0)
        return 0;
    *wait_p = w;
    return 1;
}
