/*
 * The network transport interface, for PEs whose memory this PE cannot map
 * (other hosts). The data path routes every access through the route table
 * (mem/route.h) first; what it answers "network" comes here already
 * translated, as (pe, row, offset), so no transport translates addresses.
 * The UCX transport plugs in here; on a single host none is loaded and
 * `shoal_net` is NULL.
 *
 * Completion: calls marked "blocking" are complete locally when they return
 * (a put's source may be reused, a get's data is there, a fetching atomic's
 * result is written). Everything else is only started: remote completion of
 * puts, non-fetching atomics and signals, and local completion of
 * non-blocking gets, come with the next quiet, or pe_quiet naming the PE.
 * Every call returns a status; after a failure `strerror` says which peer
 * and why, and the caller ends the job with that.
 */
#ifndef SHOAL_TRANSPORT_H
#define SHOAL_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "mem/route.h"
#include "util/status.h"

#define SHOAL_TRANSPORT_VERSION 6

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
    /* An add to a library synchronization counter (barrier): its target
     * polls for it, so quiet need not wait for its completion. */
    SHOAL_AMO_SYNC_ADD,
} shoal_amo_op_t;

typedef struct shoal_transport shoal_transport_t;

/* Where a remote access lands: row and byte offset of the route table. */
typedef struct {
    unsigned row;
    uint64_t off;
} shoal_remote_t;

typedef struct {
    uint32_t version; /* SHOAL_TRANSPORT_VERSION; checked when loaded */
    const char *name;
    /* Blocking unless `nbi`. */
    shoal_status_t (*put)(shoal_transport_t *tr, int pe, shoal_remote_t dest, const void *source,
                          size_t len, int nbi);
    shoal_status_t (*get)(shoal_transport_t *tr, int pe, void *dest, shoal_remote_t source,
                          size_t len, int nbi);
    /* The data, then the 64-bit signal word updated by SHOAL_AMO_SET or
     * SHOAL_AMO_ADD, ordered so that a PE that sees the signal sees the
     * data; no reply is waited for. Blocking (the source may be reused)
     * unless `nbi`. */
    shoal_status_t (*put_signal)(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                                 const void *source, size_t len, shoal_remote_t sig,
                                 uint64_t signal, shoal_amo_op_t sig_op, int nbi);
    /* `size` is 4 or 8; operand/compare/fetch are integers of that size.
     * Fetching operations are blocking; the others (SET, ADD, AND, OR,
     * XOR, SYNC_ADD: no result) are only started. */
    shoal_status_t (*amo)(shoal_transport_t *tr, int pe, shoal_remote_t dest, shoal_amo_op_t op,
                          size_t size, const void *operand, const void *compare, void *fetch_p);
    shoal_status_t (*quiet)(shoal_transport_t *tr);
    /* Completes what this PE started to the `npes` PEs of `pes` (world PE
     * numbers; PEs this transport does not reach are skipped). */
    shoal_status_t (*pe_quiet)(shoal_transport_t *tr, const int *pes, size_t npes);
    /* Orders earlier puts and AMOs to each PE before later ones to it. */
    shoal_status_t (*fence)(shoal_transport_t *tr);
    /* Collective over all PEs: makes row `row` of every PE ([base, base +
     * size) here, memory of `kind`) reachable. Used at start-up for the heap
     * and globals, and later for memory registered after init. */
    shoal_status_t (*mem_register)(shoal_transport_t *tr, unsigned row, void *base, size_t size,
                                   shoal_mem_kind_t kind);
    /* Collective over all PEs: row `row` is unreachable from now on; every
     * PE forgets its peers' keys for it and deregisters its copy. The
     * caller completed every access to it first (quiet and a barrier).
     * Since version 6. */
    shoal_status_t (*mem_deregister)(shoal_transport_t *tr, unsigned row);
    /* The last failure, in words: the peer and the transport's own error. */
    const char *(*strerror)(shoal_transport_t *tr);
    /* Serves peers' operations on this PE's memory from the calling thread,
     * without blocking: wait loops call it so that a waiting PE answers at
     * once. Returns how many events it handled (0: nothing had arrived). */
    unsigned (*progress)(shoal_transport_t *tr);
    /* Progresses, then sleeps up to `ns` nanoseconds or until something
     * arrives for this PE, and progresses again. */
    unsigned (*sleep)(shoal_transport_t *tr, uint64_t ns);
    /* The calling thread is about to block outside the transport (in a
     * bootstrap barrier) while peers may still need this PE: from now on
     * they are served without it, at once. */
    void (*idle)(shoal_transport_t *tr);
    /* Collective over all PEs: completes everything, disconnects and frees
     * the transport; called before the segments are unmapped. */
    void (*finalize)(shoal_transport_t *tr);
} shoal_transport_ops_t;

struct shoal_transport {
    const shoal_transport_ops_t *ops;
    void *priv;
};

/* The network transport in use, or NULL when every PE is on this host. */
extern shoal_transport_t *shoal_net;

/* One forwarder per operation, as bootstrap.h has: callers write
 * shoal_transport_put(tr, ...) rather than reach into the ops table. */
static inline shoal_status_t shoal_transport_put(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                                                 const void *source, size_t len, int nbi)
{
    return tr->ops->put(tr, pe, dest, source, len, nbi);
}

static inline shoal_status_t shoal_transport_get(shoal_transport_t *tr, int pe, void *dest,
                                                 shoal_remote_t source, size_t len, int nbi)
{
    return tr->ops->get(tr, pe, dest, source, len, nbi);
}

static inline shoal_status_t shoal_transport_put_signal(shoal_transport_t *tr, int pe,
                                                        shoal_remote_t dest, const void *source,
                                                        size_t len, shoal_remote_t sig,
                                                        uint64_t signal, shoal_amo_op_t sig_op,
                                                        int nbi)
{
    return tr->ops->put_signal(tr, pe, dest, source, len, sig, signal, sig_op, nbi);
}

static inline shoal_status_t shoal_transport_amo(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                                                 shoal_amo_op_t op, size_t size,
                                                 const void *operand, const void *compare,
                                                 void *fetch_p)
{
    return tr->ops->amo(tr, pe, dest, op, size, operand, compare, fetch_p);
}

static inline shoal_status_t shoal_transport_quiet(shoal_transport_t *tr)
{
    return tr->ops->quiet(tr);
}

static inline shoal_status_t shoal_transport_pe_quiet(shoal_transport_t *tr, const int *pes,
                                                      size_t npes)
{
    return tr->ops->pe_quiet(tr, pes, npes);
}

static inline shoal_status_t shoal_transport_fence(shoal_transport_t *tr)
{
    return tr->ops->fence(tr);
}

static inline shoal_status_t shoal_transport_mem_register(shoal_transport_t *tr, unsigned row,
                                                          void *base, size_t size,
                                                          shoal_mem_kind_t kind)
{
    return tr->ops->mem_register(tr, row, base, size, kind);
}

static inline shoal_status_t shoal_transport_mem_deregister(shoal_transport_t *tr, unsigned row)
{
    return tr->ops->mem_deregister(tr, row);
}

static inline const char *shoal_transport_name(const shoal_transport_t *tr)
{
    return tr->ops->name;
}

static inline const char *shoal_transport_strerror(shoal_transport_t *tr)
{
    return tr->ops->strerror(tr);
}

static inline unsigned shoal_transport_progress(shoal_transport_t *tr)
{
    return tr->ops->progress(tr);
}

static inline unsigned shoal_transport_sleep(shoal_transport_t *tr, uint64_t ns)
{
    return tr->ops->sleep(tr, ns);
}

static inline void shoal_transport_idle(shoal_transport_t *tr)
{
    tr->ops->idle(tr);
}

static inline void shoal_transport_finalize(shoal_transport_t *tr)
{
    tr->ops->finalize(tr);
}

#endif
