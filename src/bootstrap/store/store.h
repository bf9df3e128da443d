/*
 * The TCP config-store bootstrap, as the rest of the library sees it: the
 * settings the API may give before initialization (shmemx_init_attr,
 * shmemx_set_conf_store_tls), unique IDs, and the bootstrap constructor.
 *
 * A job of N PEs started without shoalrun finds itself through one small
 * key-value store reached over TCP: PE 0 hosts it when the PEs are started
 * with SHOAL_RANK/SHOAL_NPES/SHOAL_STORE, and the process that calls
 * shmemx_get_uniqueid hosts it for a job started from a unique ID. Its
 * traffic is TLS 1.3 with mutual authentication unless turned off.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_H
#define SHOAL_BOOTSTRAP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"
#include "util/status.h"

#define SHOAL_STORE_UNIQUEID_BYTES 128

/* A job described through the API rather than the environment. */
typedef struct {
    int rank;
    int npes;
    const char *store;           /* "host:port"; NULL: SHOAL_STORE */
    const char *job_key;         /* 64 hex digits; NULL: SHOAL_JOB_KEY_FILE / SHOAL_JOB_KEY */
    const uint8_t *uniqueid;     /* SHOAL_STORE_UNIQUEID_BYTES, or NULL */
    unsigned connect_timeout_ms; /* 0: SHOAL_STORE_CONNECT_TIMEOUT */
    unsigned join_timeout_ms;    /* 0: SHOAL_STORE_JOIN_TIMEOUT */
} shoal_store_job_t;

/* shmemx_set_conf_store_tls: TLS on (with `info` = "" for the job secret,
 * or "cert=...;key=...;ca=...[;crl=...][;verify_name=0]") or off. Checks
 * the text and the files it names; SHOAL_ERR_INVALID (logged) when wrong,
 * SHOAL_ERR_UNSUPPORTED when a store connection already exists. */
shoal_status_t shoal_store_set_tls(int enable, const char *info, size_t len);

/* Records the job for the next bootstrap (shmemx_init_attr); checks it
 * first and logs what is wrong. */
shoal_status_t shoal_store_set_job(const shoal_store_job_t *job);

/* 1 once this process has started a store client or server: its settings
 * can no longer change. */
int shoal_store_started(void);

/* shmemx_get_uniqueid: starts the store in this process (once) and writes
 * the ID that leads PEs to it: its address and the job secret. */
shoal_status_t shoal_store_uniqueid_create(uint8_t id[SHOAL_STORE_UNIQUEID_BYTES]);
/* Checks that `id` is a well-formed unique ID (logs why not). */
shoal_status_t shoal_store_uniqueid_check(const uint8_t id[SHOAL_STORE_UNIQUEID_BYTES]);

/* The store bootstrap, when configured through the API or the environment
 * (SHOAL_STORE, or SHOAL_RANK with SHOAL_NPES); SHOAL_ERR_NOT_FOUND
 * otherwise. `api_only` looks only at an API-given job. */
shoal_status_t shoal_bootstrap_store_init(shoal_bootstrap_t *bs, int api_only);

/* The store bootstrap over `fd`, the connection to a launcher that hosts
 * the store's logic (shoalrun's socketpair, SHOAL_LAUNCHER_FD) and started
 * this PE as `rank` of `npes`: plain frames, no greeting, no TLS, no join
 * timeout. Called by the launcher bootstrap (launcher.c). */
shoal_status_t shoal_bootstrap_store_attach(shoal_bootstrap_t *bs, int fd, int rank, int npes);

#endif
