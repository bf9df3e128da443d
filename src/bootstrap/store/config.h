/*
 * Settings of the config-store bootstrap, gathered from the API and the
 * environment into one struct: who this PE is, where the store is, whether
 * this process hosts it, how the traffic is protected and how long to wait.
 * Also the unique ID's byte layout and the job secret's text form.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_CONFIG_H
#define SHOAL_BOOTSTRAP_STORE_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/store/store.h"
#include "bootstrap/store/link.h"
#include "bootstrap/store/sockets.h"
#include "util/env.h"

typedef struct {
    int rank, npes;
    shoal_store_addr_t store; /* where the PEs connect */
    int host;                 /* this process hosts the store (PE 0 of an env start) */
    shoal_store_sockaddr_t listen;
    shoal_store_security_t security;
    uint8_t secret[SHOAL_STORE_SECRET_BYTES];
    shoal_store_certs_t certs;
    uint64_t connect_timeout_ms, join_timeout_ms;
    const char *origin; /* how the job was described, for messages */
} shoal_store_config_t;

/* Fills `cfg` from the API-given job or the environment; SHOAL_ERR_NOT_FOUND
 * when neither describes a store job. Logs every problem it finds. */
shoal_status_t shoal_store_config_load(shoal_store_config_t *cfg, int api_only);

/* The security mode and certificates in force: those given to
 * shmemx_set_conf_store_tls, else SHOAL_STORE_TLS and SHOAL_STORE_TLS_INFO.
 * Warns once per process when TLS is off. */
shoal_status_t shoal_store_config_security(const shoal_env_t *env,
                                           shoal_store_security_t *security_p,
                                           shoal_store_certs_t *certs_p);

/* The job secret from SHOAL_JOB_KEY_FILE or SHOAL_JOB_KEY. */
shoal_status_t shoal_store_config_env_secret(const shoal_env_t *env,
                                             uint8_t secret[SHOAL_STORE_SECRET_BYTES]);

/* Parses the hex text of a job secret (64 hex digits; surrounding white
 * space is ignored). `what` names the source in messages. */
shoal_status_t shoal_store_parse_secret(const char *text, size_t len, const char *what,
                                        uint8_t secret[SHOAL_STORE_SECRET_BYTES]);
/* Parses a tls_info string; *has_certs_p is 0 for an empty one. */
shoal_status_t shoal_store_parse_tls_info(const char *info, size_t len,
                                          shoal_store_certs_t *certs_p, int *has_certs_p);

/* Marks the settings as in use: shmemx_set_conf_store_tls refuses from now. */
void shoal_store_mark_started(void);

/* ---- unique IDs ---------------------------------------------------------- */

typedef struct {
    shoal_store_sockaddr_t addr; /* the store */
    uint8_t secret[SHOAL_STORE_SECRET_BYTES];
} shoal_store_uid_t;

void shoal_store_uid_encode(const shoal_store_uid_t *uid, uint8_t id[SHOAL_STORE_UNIQUEID_BYTES]);
shoal_status_t shoal_store_uid_decode(const uint8_t id[SHOAL_STORE_UNIQUEID_BYTES],
                                      shoal_store_uid_t *uid_p, char *why, size_t why_size);

#endif
