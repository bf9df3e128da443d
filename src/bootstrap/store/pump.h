/*
 * The connection pump of the config store: the one place that moves a
 * connection's bytes between its link (plain TCP or TLS, store/link.h) and
 * its frame buffers, and cuts whole frames out of what came in. Every side
 * that speaks the store protocol uses it: a PE joining (store/join.c) and
 * then running (store/client.c), the store hosted in a process
 * (store/server_io.c) and shoalrun's bootstrap service
 * (tools/shoalrun/server.c). What differs between the sides is data: a
 * policy per side, below. Also the small pieces the store's I/O threads
 * share (waking a poll, bounded condition waits, SIGPIPE).
 */
#ifndef SHOAL_BOOTSTRAP_STORE_PUMP_H
#define SHOAL_BOOTSTRAP_STORE_PUMP_H

#include <pthread.h>
#include <stdint.h>

#include "bootstrap/store/link.h"
#include "bootstrap/store/proto.h"

#define SHOAL_STORE_MSG_BIT(type) (1u << (type))

/* How one side runs its connections. */
typedef struct {
    const char *name;          /* "PE", "config store", "shoalrun": for messages */
    size_t read_chunk;         /* room reserved in `in` before each read */
    uint64_t greet_timeout_ms; /* connect to joined: greeting, TLS handshake and HELLO;
                                  0: no greeting and plain frames (a launcher's socketpair) */
    uint64_t linger_ms;        /* a refused connection is read and discarded this long so
                                  the refusal is not lost to a reset */
    uint32_t may_receive;      /* frames this side accepts (SHOAL_STORE_MSG_BIT); 0: the
                                  store's logic judges them (a server side) */
    /* A server open to the network: what keeps strangers from starving the
     * process that hosts it (store/server_accept.c). */
    int accepts_per_round;
    int pending_cap_min, pending_cap_max;      /* connections not joined: RLIMIT_NOFILE/8 within */
    uint64_t backoff_first_ms, backoff_max_ms; /* not listening after EMFILE, doubling */
    uint64_t log_window_ms;                    /* rate limit of each kind of warning */
} shoal_store_policy_t;

extern const shoal_store_policy_t shoal_store_policy_join;     /* a PE until WELCOME */
extern const shoal_store_policy_t shoal_store_policy_client;   /* a PE after WELCOME */
extern const shoal_store_policy_t shoal_store_policy_server;   /* the store over TCP */
extern const shoal_store_policy_t shoal_store_policy_launcher; /* shoalrun's socketpairs */

/* One connection. `in` and `out` are the caller's (a client's own buffers,
 * or the logic's per-peer ones). */
typedef struct {
    const shoal_store_policy_t *policy;
    shoal_store_link_t *link;
    shoal_store_buf_t *in, *out;
    int wants_write; /* the link must write before it can read (TLS) */
    int end;         /* 0 while open, else how it ended: SHOAL_STORE_IO_EOF or _ERROR */
} shoal_store_pump_t;

/* Sends from `out` until it is empty or the link would block; 0, or the
 * end (SHOAL_STORE_IO_EOF / _ERROR, also kept in p->end). */
int shoal_store_pump_flush(shoal_store_pump_t *p);
/* One read into `in`: the bytes read (> 0), 0 when the link would block,
 * or the end (< 0, also in p->end; SHOAL_ERR_NOMEM reads as _ERROR). */
long shoal_store_pump_fill(shoal_store_pump_t *p);
/* The poll events the connection waits for. */
short shoal_store_pump_events(const shoal_store_pump_t *p);
/* Why the connection ended, for messages (`eof` for a closed one). */
const char *shoal_store_pump_cause(const shoal_store_pump_t *p, const char *eof);
/* 1 when it ended because the peer's host or the link to it stopped
 * answering (SHOAL_NET_TIMEOUT) rather than because the peer closed. */
int shoal_store_pump_unreachable(const shoal_store_pump_t *p);

/* The next whole frame in `in`, decoded into *m (its bytes stay in `in`
 * until the caller consumes *len_p): 1; 0 when none is complete yet; -1
 * when it is malformed or one the policy does not accept (why in `why`). */
int shoal_store_pump_frame(shoal_store_pump_t *p, shoal_store_msg_t *m, size_t *len_p, char *why,
                           size_t why_size);

/* Blocking, bounded by `deadline_ms` (monotonic), for a side with nothing
 * else to do (joining): sends all of `out`, or reads at least one byte (at
 * most `max`; 0: any) into `in`. 0, or -1 with the cause in `why` (p->end
 * is 0 when the deadline passed). */
int shoal_store_pump_send_all(shoal_store_pump_t *p, uint64_t deadline_ms, char *why,
                              size_t why_size);
int shoal_store_pump_recv(shoal_store_pump_t *p, size_t max, uint64_t deadline_ms, char *why,
                          size_t why_size);

/* ---- what the I/O threads share ------------------------------------------ */

/* Blocks SIGPIPE in the calling thread: OpenSSL writes with write(2), and a
 * peer gone must not kill the process. */
void shoal_store_block_sigpipe(void);
/* An eventfd that interrupts an I/O thread's poll; -1 (logged) on failure. */
int shoal_store_wake_create(const char *who);
void shoal_store_wake(int fd);
void shoal_store_wake_drain(int fd);
/* One bounded wait on `cond` (at most 50 ms, never past `deadline_ms`);
 * 0 once the deadline has passed, else 1: the caller checks its condition. */
int shoal_store_cond_wait(pthread_cond_t *cond, pthread_mutex_t *lock, uint64_t deadline_ms);

#endif
