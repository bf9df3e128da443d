/*
 * What the config store's server thread (store/server_thread.c) and its
 * door (store/server_accept.c: who gets in, caps, reserve, back-off) share.
 * Private to them.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_SERVER_IMPL_H
#define SHOAL_BOOTSTRAP_STORE_SERVER_IMPL_H

#include <pthread.h>
#include <sys/types.h>

#include "bootstrap/store/logic.h"
#include "bootstrap/store/pump.h"
#include "bootstrap/store/server_thread.h"
#include "util/log_limit.h"

#define POLICY (&shoal_store_policy_server)
/* Descriptors held for the process, given back when accept hits EMFILE. */
#define RESERVE_FDS 4

/* Rate-limited kinds of warning (shoal_store_host_t.limit). */
enum {
    LIMIT_ACCEPT,
    LIMIT_CROWD,
    LIMIT_GREETING,
    LIMIT_HANDSHAKE,
    LIMIT_CONN_FAILED,
    LIMIT_TIMEOUT,
    LIMIT_COUNT
};

/* One connection; the pump comes first (the greeting's judge is handed the
 * pump and finds the connection around it). */
typedef struct {
    shoal_store_pump_t pump; /* over the peer's buffers */
    shoal_store_peer_t *peer;
    int gone;
    int polled;        /* has been through a poll: it had its chance to speak */
    uint64_t since_ms; /* accepted at */
} shoal_store_conn_t;

typedef struct {
    shoal_store_server_t *srv;
    shoal_store_tls_t *tls;
    shoal_store_security_t security;
    uint8_t key_id[SHOAL_STORE_KEY_ID_BYTES];
    int listen_fd, wake_fd;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* broadcast after every round of the loop */
    int stop;
    uint64_t join_timeout_ms;
    char where[SHOAL_STORE_ADDR_TEXT];
    pid_t pid;                    /* the process the thread runs in */
    int pending_cap;              /* connections not joined yet, at most */
    unsigned long long nofile;    /* RLIMIT_NOFILE at the start, for messages */
    int reserve[RESERVE_FDS];     /* -1: given back */
    uint64_t listen_paused_until; /* after EMFILE: the listener is not polled till then */
    uint64_t backoff_ms;          /* the next pause; 0 after an accept that worked */
    uint64_t crowd_closed;        /* connections closed to make room, in all */
    shoal_log_limit_t limit[LIMIT_COUNT];
} shoal_store_host_t;

/* The verdict on a greeting (the pump's judge; arg: the host), logged when
 * it is a refusal. */
uint8_t shoal_store_host_judge(void *arg, shoal_store_pump_t *pump,
                               const uint8_t greeting[SHOAL_STORE_HELLO_BYTES]);
/* Accepts what waits on the listener, within the policy's limits. */
void shoal_store_host_accept(shoal_store_host_t *h, uint64_t now);
/* The cap on connections not joined, the reserve and the log limits. */
void shoal_store_host_limits_init(shoal_store_host_t *h);
/* Names the log limits once the address is known. */
void shoal_store_host_limits_name(shoal_store_host_t *h);
void shoal_store_host_reserve_give_back(shoal_store_host_t *h);

#endif
