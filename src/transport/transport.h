/*
 * The network transport interface, for PEs whose memory this PE cannot map
 * (other hosts). The data path tries the peer-pointer lookup first and calls
 * a transport only when it fails. The UCX transport plugs in here; on a
 * single host no network transport is loaded and `shoal_net` is NULL.
 */
#ifndef SHOAL_TRANSPORT_H
#define SHOAL_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define SHOAL_TRANSPORT_VERSION 3

typedef enum {
    SHOAL_AMO_FETCH,
    SHOAL_AMO_SET,
    SHOAL_AMO_SWAP,
    SHOAL_AMO_CSWAP,
    SHOAL_AMO_ADD,
    SHOAL_AMO_FETCH_ADD,
    SHOAL_AMO_AND,
    SHOAL_AMO_FETCH_AND,
    SHOAL_AMO_OR,
    SHOAL_AMO_FETCH_OR,
    SHOAL_AMO_XOR,
    SHOAL_AMO_FETCH_XOR,
    /* An add to a library synchronization counter (barrier, lock release):
     * its target polls for it, so quiet need not wait for its completion. */
    SHOAL_AMO_SYNC_ADD,
} shoal_amo_op_t;

typedef struct shoal_transport shoal_transport_t;

typedef struct {
    uint32_t version; /* SHOAL_TRANSPORT_VERSION */
    const char *name;
    /* `dest`/`source` are symmetric addresses as seen by this PE. */
    shoal_status_t (*put)(shoal_transport_t *tr, void *dest, const void *source, size_t len,
                          int pe);
    shoal_status_t (*get)(shoal_transport_t *tr, void *dest, const void *source, size_t len,
                          int pe);
    /* size is 4 or 8; operand/compare/fetch are little-endian integers of that size. */
    shoal_status_t (*amo)(shoal_transport_t *tr, shoal_amo_op_t op, void *dest, size_t size,
                          const void *operand, const void *compare, void *fetch_p, int pe);
    shoal_status_t (*quiet)(shoal_transport_t *tr);
    shoal_status_t (*fence)(shoal_transport_t *tr);
    /* Version 2. Collective over all PEs: completes everything, disconnects
     * and frees the transport; called before the segments are unmapped. */
    void (*finalize)(shoal_transport_t *tr);
    /* Version 3. Non-blocking put and get: they return once started; the
     * source may be reused, and the data is at dest, only after the next
     * quiet, or pe_quiet naming `pe`. */
    shoal_status_t (*put_nbi)(shoal_transport_t *tr, void *dest, const void *source, size_t len,
                              int pe);
    shoal_status_t (*get_nbi)(shoal_transport_t *tr, void *dest, const void *source, size_t len,
                              int pe);
    /* Completes what this PE started to the `npes` PEs of `pes` (world PE
     * numbers; PEs this transport does not reach are skipped). */
    shoal_status_t (*pe_quiet)(shoal_transport_t *tr, const int *pes, size_t npes);
    /* Serves peers' operations on this PE's memory from the calling thread,
     * without blocking: wait loops call it so that a waiting PE answers at
     * once rather than through its progress thread. Returns how many
     * events it handled (0: nothing had arrived). */
    unsigned (*progress)(shoal_transport_t *tr);
    /* Progresses, then sleeps up to `ns` nanoseconds or until something
     * arrives for this PE, and progresses again: the sleep of a wait loop,
     * woken by the network. Returns how many events it handled. */
    unsigned (*sleep)(shoal_transport_t *tr, uint64_t ns);
} shoal_transport_ops_t;

struct shoal_transport {
    const shoal_transport_ops_t *ops;
    void *priv;
};

/* The network transport in use, or NULL when every PE is on this host. */
extern shoal_transport_t *shoal_net;

#endif
