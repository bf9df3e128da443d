/*
 * What the files of the config store's logic share (store/logic.c: life
 * cycle, the end of the job; store/logic_join.c: joining;
 * store/logic_requests.c: the key-value table, barriers, allgathers): the
 * server's state and the ways to answer a peer. Private to them.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_LOGIC_IMPL_H
#define SHOAL_BOOTSTRAP_STORE_LOGIC_IMPL_H

#include "bootstrap/store/logic.h"
#include "util/log_limit.h"

typedef struct kv_entry {
    struct kv_entry *next;
    uint32_t rank;
    uint32_t key_len;
    uint32_t value_len;
    uint8_t *value;
    char key[]; /* key_len bytes + NUL */
} kv_entry_t;

struct shoal_store_server {
    shoal_store_server_conf_t conf;
    char where[SHOAL_STORE_MAX_TEXT];
    shoal_store_peer_t *peers;
    int npeers;
    int npes;
    shoal_store_peer_t **by_rank; /* [npes] */
    int joined;
    int started;
    int over;
    int end_status; /* the first end of the job (shoal_store_server_abort) */
    uint32_t end_origin;
    char end_message[SHOAL_STORE_MAX_TEXT + 1];
    int departed; /* ranks whose connection closed after they finalized */
    int finalized;
    int in_barrier;
    int waiting_gets;
    int in_gather; /* PEs waiting in the allgather under way */
    char gather_key[SHOAL_STORE_MAX_KEY + 1];
    size_t gather_bytes;
    uint64_t served[SHOAL_STORE_MSG_LAST + 1]; /* requests by message type */
    uint64_t most_from_one;                    /* the most requests one PE sent */
    uint64_t first_hello_ms;
    uint64_t now_ms; /* of the input being handled, for the log limits */
    /* Warnings a client can trigger at will (refusals, protocol errors) are
     * rate-limited: a flood of them must not flood the log. */
    shoal_log_limit_t refuse_limit, protocol_limit;
    kv_entry_t **buckets;
    size_t nbuckets, nentries, bytes;
};

/* Queues a message; without memory for it the peer is dropped. */
void shoal_store_logic_send(shoal_store_peer_t *p, const shoal_store_msg_t *m);
/* Refuses a peer's HELLO (or its place in a job that cannot start) and
 * closes its connection once the REFUSE is out. */
void shoal_store_logic_refuse(shoal_store_server_t *srv, shoal_store_peer_t *p, uint32_t code,
                              const char *reason);
/* The store itself ends the job: logged here, or shown by the launcher. */
void shoal_store_logic_end(shoal_store_server_t *srv, const char *msg);

/* A peer broke the protocol: records why (peer->error), logs it (rate-
 * limited for strangers; not in launcher mode); returns -1. */
int shoal_store_logic_error(shoal_store_server_t *srv, shoal_store_peer_t *p, const char *what);

/* logic_requests.c: PUT, GET, BARRIER, ALLGATHER (a broken request sets
 * *error_p); frees the key-value table. */
void shoal_store_logic_put(shoal_store_server_t *srv, shoal_store_peer_t *p,
                           const shoal_store_msg_t *m, int *error_p);
void shoal_store_logic_get(shoal_store_server_t *srv, shoal_store_peer_t *p,
                           const shoal_store_msg_t *m, int *error_p);
void shoal_store_logic_barrier(shoal_store_server_t *srv, shoal_store_peer_t *p);
void shoal_store_logic_allgather(shoal_store_server_t *srv, shoal_store_peer_t *p,
                                 const shoal_store_msg_t *m, int *error_p);
void shoal_store_logic_kv_free(shoal_store_server_t *srv);

/* logic_join.c: a HELLO; a PE that left while the job was starting. */
shoal_status_t shoal_store_logic_hello(shoal_store_server_t *srv, shoal_store_peer_t *p,
                                       const shoal_store_msg_t *m, uint64_t now_ms);
void shoal_store_logic_end_start(shoal_store_server_t *srv, const shoal_store_peer_t *gone);

#endif
