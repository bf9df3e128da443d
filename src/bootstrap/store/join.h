/*
 * Joining a job at the config store, a PE's first step (store/join.c): from
 * nothing to a connection on which the store has accepted this PE and every
 * PE of the job has arrived. Runs in the PE's I/O thread (SIGPIPE blocked).
 */
#ifndef SHOAL_BOOTSTRAP_STORE_JOIN_H
#define SHOAL_BOOTSTRAP_STORE_JOIN_H

#include <stdint.h>

#include "bootstrap/store/config.h"
#include "bootstrap/store/pump.h"

typedef struct {
    /* given */
    const shoal_store_config_t *cfg;
    const char *where;      /* the store's address, for messages */
    shoal_store_tls_t *tls; /* a client context, or NULL when TLS is off */
    int fd;                 /* -1: connect to cfg->store; else the connection a launcher
                               handed down (no greeting, no TLS; join_timeout_ms 0: none) */
    /* The client's connection, opened here on its buffers (bytes that came
     * after WELCOME stay in `in`); the caller closes it, also on failure. */
    shoal_store_pump_t *pump;
    shoal_store_buf_t *in, *out;
    /* results */
    uint32_t local_rank, local_npes;
    char job_id[64];
} shoal_store_join_t;

/* Joins; on failure the cause is logged and returned. */
shoal_status_t shoal_store_join(shoal_store_join_t *j);

#endif
