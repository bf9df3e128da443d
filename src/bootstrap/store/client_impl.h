/*
 * What the two halves of a PE's side of the config store share
 * (store/client.c: the bootstrap operations and construction;
 * store/client_io.c: the I/O thread that owns the connection). Private to
 * them.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_CLIENT_IMPL_H
#define SHOAL_BOOTSTRAP_STORE_CLIENT_IMPL_H

#include <pthread.h>
#include <sys/types.h>

#include "bootstrap/store/config.h"
#include "bootstrap/store/pump.h"

typedef struct {
    shoal_store_config_t cfg;
    char where[SHOAL_STORE_ADDR_TEXT];
    const char *hosted_by; /* for messages */
    shoal_store_tls_t *tls;
    shoal_store_pump_t pump; /* the connection, over in and out (store/join.c opens it) */
    int wake_fd;
    shoal_store_buf_t in, out;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_mutex_t req_lock;
    int joined; /* 0 while joining, 1 joined, -1 failed */
    shoal_status_t join_status;
    uint32_t local_rank, local_npes; /* what joining found out */
    char job_id[64];
    int expect; /* the reply awaited: VALUE, BARRIER_DONE or 0 */
    int reply_ready;
    shoal_store_buf_t reply;
    int finalized; /* FINALIZED was the last event sent */
    int dead;      /* the connection is gone (after finalize) */
    int stop;
    pid_t pid;       /* the process that owns the I/O thread */
    int launcher_fd; /* the launcher's socketpair (attach), or -1 */
} client_t;

/* Joins the job (store/join.c): from nothing to a connection (c->pump,
 * closed by the caller also on failure) on which the store has accepted
 * this PE and every PE of the job has arrived; bytes that came after
 * WELCOME stay in c->in. On failure the cause is logged and returned. */
shoal_status_t shoal_store_client_join(client_t *c);

/* The I/O thread (arg: the client_t): joins, then serves the connection
 * until stopped or the connection is gone. */
void *shoal_store_client_main(void *arg);

#endif
