/*
 * Shoal's extensions to OpenSHMEM. Everything here is named shmemx_* or
 * SHMEMX_*; programs that use it are not portable to other implementations.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The symmetric heap of the calling PE: its usable size, the bytes in live
 * allocations (rounded to the allocator's granularity) and the largest block
 * a shmem_malloc could get now. All zero before shmem_init. */
SHMEM_API void shmemx_heap_info(size_t *total, size_t *used, size_t *largest_free);

/* For bindings that must report bad input instead of ending the job (the
 * Python package): checks that the `len` bytes at `addr` are symmetric and
 * reachable on world PE `pe`, as every RMA, AMO and signal routine does
 * before it transfers. Returns 0 if so; otherwise -1, with the message the
 * routine `fn` would have ended the job with (naming `what`, the value and
 * the fix) written into msg (up to msglen bytes, NUL-terminated). Never ends
 * the job and needs no collective call. */
SHMEM_API int shmemx_addr_check(const char *fn, const char *what, const void *addr, size_t len,
                                int pe, char *msg, size_t msglen);

/* ---- Starting without shoalrun: the TCP config store ----------------------
 *
 * PEs started by other tools find each other through a small key-value store
 * reached over TCP, protected by TLS 1.3 with mutual authentication unless
 * TLS is turned off. Either describe the job in the environment
 * (SHOAL_RANK, SHOAL_NPES, SHOAL_STORE and the job secret; plain shmem_init
 * then joins), or call shmemx_init_attr:
 *
 *   shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
 *   shmemx_uniqueid_t id;
 *   if (rank == 0) shmemx_get_uniqueid(&id);     // starts the store here
 *   ...pass id to every PE (MPI_Bcast, a file, ...): it holds the job secret...
 *   shmemx_set_attr_uniqueid_args(rank, npes, &id, &attr);
 *   shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr);
 *
 * docs/env.md lists the SHOAL_STORE* settings. */

#define SHMEMX_UNIQUEID_BYTES 128
#define SHMEMX_INIT_ATTR_VERSION 1

/* Where a job's config store is and its secret: pass it unchanged and
 * privately. Made by shmemx_get_uniqueid. */
typedef struct {
    unsigned char internal[SHMEMX_UNIQUEID_BYTES];
} shmemx_uniqueid_t;

/* Flags of shmemx_init_attr. */
#define SHMEMX_INIT_WITH_UNIQUEID (1u << 0) /* rank, npes and uniqueid (see below) */
#define SHMEMX_INIT_WITH_STORE (1u << 1)    /* rank, npes, store and job_key */

typedef struct {
    uint32_t version;    /* SHMEMX_INIT_ATTR_VERSION */
    int rank;            /* this PE, 0 to npes - 1 */
    int npes;            /* PEs in the job */
    const char *store;   /* "host:port" of the store (PE 0 hosts it); NULL: SHOAL_STORE */
    const char *job_key; /* 64 hex digits; NULL: SHOAL_JOB_KEY_FILE or SHOAL_JOB_KEY */
    size_t heap_size;    /* symmetric heap bytes; 0: SHMEM_SYMMETRIC_SIZE */
    /* How long to keep trying to reach the store, and to wait for every PE to
     * join; 0: SHOAL_STORE_CONNECT_TIMEOUT and SHOAL_STORE_JOIN_TIMEOUT. */
    unsigned connect_timeout_ms;
    unsigned join_timeout_ms;
    int thread_level;           /* requested, as for shmem_init_thread */
    shmemx_uniqueid_t uniqueid; /* set by shmemx_set_attr_uniqueid_args */
} shmemx_init_attr_t;

/* clang-format off */
#define SHMEMX_INIT_ATTR_INITIALIZER \
    { SHMEMX_INIT_ATTR_VERSION, -1, 0, NULL, NULL, 0, 0, 0, SHMEM_THREAD_SINGLE, { { 0 } } }
/* clang-format on */

/* Initializes like shmem_init_thread(attr->thread_level), with the job and
 * heap size taken from `attr` (flags 0: only heap_size and thread_level).
 * Returns 0, or a negative value after logging why. The store settings
 * apply to the first initialization of the process only. */
SHMEM_API int shmemx_init_attr(unsigned int flags, shmemx_init_attr_t *attr);

/* Starts the config store in this process (once; later calls return the
 * same ID) and writes the ID that leads PEs to it. The process must live
 * until the job's PEs have finalized; at exit it waits for them. Where it
 * listens: SHOAL_STORE (port 0: any free port), SHOAL_STORE_LISTEN_IFACE and
 * SHOAL_STORE_ADVERTISE_IFACE. Returns 0 or a negative value. */
SHMEM_API int shmemx_get_uniqueid(shmemx_uniqueid_t *id);

/* Fills attr for shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, attr). */
SHMEM_API int shmemx_set_attr_uniqueid_args(int rank, int npes, const shmemx_uniqueid_t *id,
                                            shmemx_init_attr_t *attr);

/* Chooses how the config store's traffic is protected; call it before
 * initialization (and before shmemx_get_uniqueid). enable with tls_info of
 * length 0: TLS 1.3 authenticated by the job secret (the default). enable
 * with tls_info "cert=PATH;key=PATH;ca=PATH[;crl=PATH][;verify_name=0]":
 * certificates. !enable: no TLS (a warning says so once). It must agree on
 * every PE. Returns 0; a negative value (and changes nothing) when the text
 * or files are wrong or a store connection already exists. */
SHMEM_API int shmemx_set_conf_store_tls(bool enable, const char *tls_info, uint32_t len);

#ifdef __cplusplus
}
#endif

#endif
