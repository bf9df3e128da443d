/*
 * The connection pump of the config store: one state machine that every
 * side of the store protocol runs its connections on -- a PE joining and
 * then running (store/join.c, store/client_io.c), the store hosted in a
 * process (store/server_thread.c) and shoalrun's bootstrap service
 * (tools/shoalrun/server.c). It moves a connection through
 *
 *   GREET      the plaintext greeting: a client sends its own and reads the
 *              store's verdict; a server reads one and answers it (a wrong
 *              version, TLS mode or job secret is refused by name, before
 *              any TLS);
 *   HANDSHAKE  TLS 1.3 over the same socket (skipped when TLS is off);
 *   JOINING    frames, until the store accepted the PE's HELLO;
 *   JOINED     frames;
 *   LINGER     (a server, after a refusal) no more writing; input is read
 *              and dropped until the peer closes, so the refusal is not
 *              lost to a reset;
 *   CLOSED     ended; why in `end` and `why`.
 *
 * without blocking: each call moves it as far as it can and says what it
 * waits for. What differs between the sides is data, a policy per side:
 * which frames it may receive in which state, its timeouts, the limits on
 * strangers of a server open to the network, TLS or plain. Also the small
 * pieces the store's I/O threads share (waking a poll, bounded condition
 * waits, SIGPIPE).
 */
#ifndef SHOAL_BOOTSTRAP_STORE_PUMP_H
#define SHOAL_BOOTSTRAP_STORE_PUMP_H

#include <pthread.h>
#include <stdint.h>

#include "bootstrap/store/link.h"
#include "bootstrap/store/proto.h"

#define SHOAL_STORE_MSG_BIT(type) (1u << (type))

typedef enum {
    SHOAL_STORE_PUMP_GREET,
    SHOAL_STORE_PUMP_HANDSHAKE,
    SHOAL_STORE_PUMP_JOINING,
    SHOAL_STORE_PUMP_JOINED,
    SHOAL_STORE_PUMP_LINGER,
    SHOAL_STORE_PUMP_CLOSED,
    SHOAL_STORE_PUMP_STATES
} shoal_store_pump_state_t;

/* How a connection ended (p->end), beyond SHOAL_STORE_IO_EOF and _ERROR. */
enum {
    SHOAL_STORE_END_TIMEOUT = -5, /* the policy's time for the state ran out */
    SHOAL_STORE_END_REFUSED = -6, /* a greeting was refused (p->verdict) */
    SHOAL_STORE_END_PROTOCOL = -7 /* garbage, or a frame the policy does not accept */
};

/* How one side runs its connections. */
typedef struct {
    int server;        /* answers greetings (else sends them) */
    int greets;        /* 1: GREET and HANDSHAKE first; 0: plain frames from the
                          start (a launcher's socketpair) */
    size_t read_chunk; /* room reserved in `in` before each read */
    /* From the connection to the end of admission (a client: greeting and
     * handshake; a server: greeting, handshake and HELLO). */
    uint64_t greet_timeout_ms;
    uint64_t linger_ms; /* 0: a refused connection is closed at once */
    /* Frames this side accepts in each state (SHOAL_STORE_MSG_BIT); 0: the
     * store's logic judges them (a server side). */
    uint32_t may_receive[SHOAL_STORE_PUMP_STATES];
    /* A server open to the network: what keeps strangers from starving the
     * process that hosts it (store/server_accept.c). */
    int accepts_per_round;
    int pending_cap_min, pending_cap_max;      /* connections not joined: RLIMIT_NOFILE/8 within */
    uint64_t backoff_first_ms, backoff_max_ms; /* not listening after EMFILE, doubling */
    uint64_t log_window_ms;                    /* rate limit of each kind of warning */
} shoal_store_policy_t;

extern const shoal_store_policy_t shoal_store_policy_pe;       /* a PE at the config store */
extern const shoal_store_policy_t shoal_store_policy_pe_fd;    /* a PE on shoalrun's socketpair */
extern const shoal_store_policy_t shoal_store_policy_server;   /* the store over TCP */
extern const shoal_store_policy_t shoal_store_policy_launcher; /* shoalrun's socketpairs */

typedef struct shoal_store_pump shoal_store_pump_t;

/* A server's verdict on a greeting (SHOAL_STORE_GREET_*; _GARBAGE: no
 * answer), logged by it when it is a refusal. */
typedef uint8_t (*shoal_store_judge_fn)(void *arg, shoal_store_pump_t *p,
                                        const uint8_t greeting[SHOAL_STORE_HELLO_BYTES]);

/* One connection. `in` and `out` are the caller's (a client's own buffers,
 * or the logic's per-peer ones). */
struct shoal_store_pump {
    const shoal_store_policy_t *policy;
    shoal_store_link_t *link; /* owns the socket */
    shoal_store_buf_t *in, *out;
    shoal_store_pump_state_t state;
    shoal_store_pump_state_t ended_in; /* the state it was in when it failed */
    int end;              /* 0 while open, else SHOAL_STORE_IO_EOF, _ERROR or SHOAL_STORE_END_* */
    char why[160];        /* the cause, for messages (END_PROTOCOL; else link->error) */
    int wants_write;      /* the link must write before it can read (TLS) */
    uint64_t deadline_ms; /* the end of admission or of lingering; 0: none */
    /* The greeting. A client sends `security` and `key_id` and learns the
     * store's answer; a server judges what came. */
    shoal_store_tls_t *tls; /* NULL: plain after the greeting */
    const char *peer_host;  /* a client checks the store's certificate against it */
    uint8_t security, key_id[SHOAL_STORE_KEY_ID_BYTES];
    uint8_t peer_version, peer_security, verdict;
    shoal_store_judge_fn judge;
    void *judge_arg;
    uint8_t greet[SHOAL_STORE_HELLO_BYTES];
    size_t greet_have;
    int greet_sent;
};

/* Starts a connection over the connected non-blocking socket `fd` (the
 * pump owns it from now on, also on failure); fill in the greeting fields
 * first. SHOAL_ERR_NOMEM when the link cannot be made. */
shoal_status_t shoal_store_pump_open(shoal_store_pump_t *p, const shoal_store_policy_t *policy,
                                     int fd, shoal_store_buf_t *in, shoal_store_buf_t *out,
                                     uint64_t now_ms);
/* Closes the socket (the buffers stay the caller's). */
void shoal_store_pump_close(shoal_store_pump_t *p);

/* Moves the connection on as far as it can without blocking: greeting,
 * handshake, sending `out`, one read into `in`, lingering, the policy's
 * time. Returns 1 when bytes came into `in` (call again after cutting the
 * frames), 0 when it waits, -1 when it ended or began to linger this call
 * (p->end, p->ended_in). */
int shoal_store_pump_step(shoal_store_pump_t *p, uint64_t now_ms);
/* Sends from `out` until it is empty or the link would block (frames
 * states only); -1 when the connection ended. */
int shoal_store_pump_flush(shoal_store_pump_t *p);
/* The next whole frame in `in`, decoded into *m (its bytes stay in `in`
 * until the caller consumes *len_p): 1; 0 when none is complete yet; -1
 * when it is malformed or one the policy does not accept in this state
 * (why in p->why). */
int shoal_store_pump_frame(shoal_store_pump_t *p, shoal_store_msg_t *m, size_t *len_p);
/* The store accepted the PE's HELLO: frames of the JOINED state from now
 * on, and admission's time is over. */
void shoal_store_pump_joined(shoal_store_pump_t *p);
/* A server ends a connection it refused: it lingers (policy's linger_ms),
 * or closes when the policy has none. */
void shoal_store_pump_linger(shoal_store_pump_t *p, uint64_t now_ms);

/* The poll events the connection waits for; its socket is p->link->fd. */
short shoal_store_pump_events(const shoal_store_pump_t *p);
/* Blocking, for a side with nothing else to do (joining): waits for the
 * connection's events until `deadline_ms` or the policy's. 0 on time-out. */
int shoal_store_pump_wait(const shoal_store_pump_t *p, uint64_t deadline_ms);
/* Why the connection ended, for messages (`eof` for a closed one). */
const char *shoal_store_pump_cause(const shoal_store_pump_t *p, const char *eof);
/* 1 when it ended because the peer's host or the link to it stopped
 * answering (SHOAL_NET_TIMEOUT) rather than because the peer closed. */
int shoal_store_pump_unreachable(const shoal_store_pump_t *p);

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
