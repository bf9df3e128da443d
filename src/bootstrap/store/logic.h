/*
 * The config store's logic: who has joined, the key-value table, barriers,
 * life-cycle events and ending the job. It works on peers' input and output
 * buffers only and makes no system calls, so the config store's I/O loop
 * (store/server_thread.c), shoalrun (tools/shoalrun/server.c) and the fuzz target
 * (fuzz/store_decode.c) drive the same code. One thread at a time: the
 * caller serializes.
 *
 * Two modes. The config store (conf.launcher = 0) judges the job itself: a
 * PE that leaves before shmem_finalize, a join timeout or a failed request
 * ends the job with ABORT to every PE. Hosted by a launcher (shoalrun,
 * conf.launcher = 1), the launcher judges: it binds each connection to the
 * rank it gave that PE (a PE cannot claim another rank on it), it sees PEs
 * exit and asks who waits for them (shoal_store_server_waits_for), and it
 * ends the job; the logic then never sends ABORT, only records the first
 * end of the job (shoal_store_server_ended). The launcher started every PE
 * on its host, so the job has started from the beginning: a HELLO is
 * answered at once, with the local rank equal to the rank, without waiting
 * for the other PEs (no join round, no join timeout).
 */
#ifndef SHOAL_BOOTSTRAP_STORE_LOGIC_H
#define SHOAL_BOOTSTRAP_STORE_LOGIC_H

#include <stdint.h>

#include "bootstrap/store/proto.h"

/* All the store keeps, values included, is bounded by this. */
#define SHOAL_STORE_MAX_TOTAL ((size_t)256 << 20)

typedef enum {
    SHOAL_STORE_PEER_NEW = 0,   /* connected, no HELLO accepted yet */
    SHOAL_STORE_PEER_JOINED,    /* HELLO accepted; in shmem_init */
    SHOAL_STORE_PEER_RUNNING,   /* after shmem_init */
    SHOAL_STORE_PEER_FINALIZED, /* after shmem_finalize */
} shoal_store_peer_state_t;

typedef struct shoal_store_peer shoal_store_peer_t;
struct shoal_store_peer {
    shoal_store_peer_t *next, *prev;
    shoal_store_buf_t in;  /* bytes received, not yet decoded */
    shoal_store_buf_t out; /* frames to send */
    shoal_store_peer_state_t state;
    int rank;       /* -1 until joined */
    int bound_rank; /* the only rank it may join as (launcher mode); -1: any */
    uint32_t pid;
    char *host;    /* the host identity it sent */
    char addr[64]; /* where it connects from, for messages */
    int closing;   /* close once `out` is sent */
    int waiting;   /* outstanding request: 0, GET, BARRIER or ALLGATHER (message type) */
    uint32_t get_pe;
    char get_key[SHOAL_STORE_MAX_KEY + 1];
    uint8_t *gather_value; /* its part of the allgather under way */
    uint32_t gather_len;
    uint64_t requests; /* frames it sent after HELLO, for the request counter */
    char error[160];   /* why its input was refused (SHOAL_ERR_INVALID from _input) */
    int unreachable;   /* set by the I/O layer: its connection timed out (host or link down) */
    void *io;          /* the I/O layer's per-connection data */
};

typedef struct {
    int npes;                 /* 0: taken from the first HELLO (unique-ID start) */
    uint64_t join_timeout_ms; /* from the first HELLO until all must have joined */
    char job_id[48];          /* given to every PE; names its local sockets */
    const char *where;        /* the store's address, for messages */
    int launcher;             /* hosted by a launcher that judges the job (see above) */
} shoal_store_server_conf_t;

typedef struct shoal_store_server shoal_store_server_t;

shoal_status_t shoal_store_server_create(const shoal_store_server_conf_t *conf,
                                         shoal_store_server_t **srv_p);
/* Frees the server and every peer still in it (their `io` is the caller's). */
void shoal_store_server_destroy(shoal_store_server_t *srv);

/* A new connection from `addr` (text for messages). NULL when out of memory. */
shoal_store_peer_t *shoal_store_server_peer_new(shoal_store_server_t *srv, const char *addr);
/* Launcher mode: the connection belongs to the PE the launcher started as
 * `rank`; a HELLO with another rank is refused. */
void shoal_store_server_peer_bind(shoal_store_peer_t *peer, int rank);
/* The connection is gone (closed by either side): forgets the peer and
 * frees it. A PE that leaves mid-job ends the job for everyone (except in
 * launcher mode, where the launcher judges its exit). */
void shoal_store_server_peer_gone(shoal_store_server_t *srv, shoal_store_peer_t *peer,
                                  uint64_t now_ms);

/* Decodes and handles the whole frames in peer->in. SHOAL_ERR_INVALID when
 * the peer broke the protocol (why in peer->error; logged unless in launcher
 * mode, where the launcher names the PE; the caller closes the connection). */
shoal_status_t shoal_store_server_input(shoal_store_server_t *srv, shoal_store_peer_t *peer,
                                        uint64_t now_ms);

/* Enforces the join timeout (none when conf.join_timeout_ms is 0); returns
 * the next time it needs a call (UINT64_MAX: none). */
uint64_t shoal_store_server_tick(shoal_store_server_t *srv, uint64_t now_ms);

/* Logs the summaries of the rate-limited warnings (refusals, protocol
 * errors) whose window is not over yet: for the end, so no count is lost. */
void shoal_store_server_flush_logs(shoal_store_server_t *srv);

/* Ends the job: sends ABORT to every PE that has joined (launcher mode:
 * only records it). The first end of the job wins. */
void shoal_store_server_abort(shoal_store_server_t *srv, int status, uint32_t origin,
                              const char *message);
/* 1 once the job was ended (by a PE's ABORT or by the store itself, origin
 * SHOAL_STORE_NO_ORIGIN), with the status, origin and message (never NULL)
 * of the first end; 0 while it goes on. */
int shoal_store_server_ended(const shoal_store_server_t *srv, int *status_p, uint32_t *origin_p,
                             const char **message_p);

/* What a PE waits for. */
typedef struct {
    int waiter;      /* the lowest such rank */
    int kind;        /* SHOAL_STORE_MSG_GET, _BARRIER or _ALLGATHER */
    const char *key; /* GET's key, the allgather's key; "" otherwise */
} shoal_store_wait_t;
/* For a launcher that saw PE `rank` exit: 1 (and *wait_p) when a PE waits
 * for something that cannot happen without `rank` -- a barrier or allgather
 * it has not entered, a key of it not yet published -- so the job would
 * hang; 0 otherwise. */
int shoal_store_server_waits_for(const shoal_store_server_t *srv, int rank,
                                 shoal_store_wait_t *wait_p);

/* Logs at info level how many requests the store served, in all, per PE
 * and by kind (an exchange done by allgather costs O(1) requests per PE). */
void shoal_store_server_report(const shoal_store_server_t *srv);

/* Iteration over peers (for the I/O loop). */
shoal_store_peer_t *shoal_store_server_peers(shoal_store_server_t *srv);
int shoal_store_server_npeers(const shoal_store_server_t *srv);

/* 1 once there is nothing left to serve: every PE of a started job has
 * finalized or gone, or the job ended (aborted, failed to start). */
int shoal_store_server_finished(const shoal_store_server_t *srv);
/* PEs of the job that have not finalized (nor left). */
int shoal_store_server_unfinished(const shoal_store_server_t *srv);
/* 1 when the job is over (aborted or failed). */
int shoal_store_server_over(const shoal_store_server_t *srv);
/* 1 once all PEs have joined. */
int shoal_store_server_started(const shoal_store_server_t *srv);

#endif
