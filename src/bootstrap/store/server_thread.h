/*
 * Hosting the config store: a thread in this process that listens, greets
 * and authenticates connections and drives the store's logic
 * (store/logic.c) over them. At most one per process; it lives until the
 * process exits, and at exit it waits for the job's PEs to finish.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_SERVER_THREAD_H
#define SHOAL_BOOTSTRAP_STORE_SERVER_THREAD_H

#include <stdint.h>

#include "bootstrap/store/link.h"
#include "bootstrap/store/sockets.h"

typedef struct {
    int npes; /* 0: learned from the first PE (unique-ID start) */
    uint64_t join_timeout_ms;
    shoal_store_security_t security;
    const uint8_t *secret; /* SHOAL_STORE_SECRET_BYTES, for PSK */
    const shoal_store_certs_t *certs;
    shoal_store_sockaddr_t listen;
} shoal_store_host_conf_t;

/* Starts the store; the address it listens on (its port chosen when the
 * configured one is 0) in *bound_p. Logs the cause of a failure. */
shoal_status_t shoal_store_host_start(const shoal_store_host_conf_t *conf,
                                      shoal_store_sockaddr_t *bound_p);

/* 1 when this process hosts the store. */
int shoal_store_host_running(void);

/* The PE of this process (a client of the store) finalized (1) or
 * initialized again (0): a host whose PE has finalized does not end the
 * job when it exits with a non-zero status; it only waits for the others. */
void shoal_store_host_note_finalized(int finalized);

/* The job is being ended: waits up to `timeout_ms` for the ABORT to reach
 * every other PE (their connections close) before this process exits. */
void shoal_store_host_drain(uint64_t timeout_ms);

/* This process is about to leave without its exit handlers (a failed join
 * ends in _exit): waits up to `timeout_ms` until every queued frame is sent
 * and every refused peer has read its refusal and closed, so no peer sees
 * the store vanish instead of being told why. */
void shoal_store_host_deliver(uint64_t timeout_ms);

#endif
