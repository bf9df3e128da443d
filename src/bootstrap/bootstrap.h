/*
 * The bootstrap interface: how PEs learn their rank and exchange the small
 * amount of out-of-band data (segment addresses, socket names) needed before
 * symmetric memory works. Implementations: "single" (a program started
 * without a launcher is a one-PE job) and "launcher" (served by shoalrun over
 * an inherited unix socket). PMIx and the TCP/TLS config store plug in here
 * later without changes to the core.
 *
 * Keys are per PE: put(key) publishes under the caller's rank, get(pe, key)
 * reads what PE `pe` published. A get blocks until the value is there, so a
 * fence (commit) followed by a get needs no barrier in between.
 *
 * An exchange in which every PE needs every other PE's value is an
 * allgather: one request per PE to a store that serves it (the config store
 * and shoalrun), instead of npes gets per PE -- npes^2 requests at the
 * store, the start-up cost that grows fastest. A bootstrap without its own
 * allgather (single, PMIx, whose fence already collects the data and whose
 * gets are then answered locally) gets one made of put, fence and gets.
 */
#ifndef SHOAL_BOOTSTRAP_H
#define SHOAL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/status.h"

#define SHOAL_BOOTSTRAP_VERSION 2

/* Life-cycle events a launcher wants to hear about to judge how a PE ended. */
typedef enum {
    SHOAL_BOOTSTRAP_EVENT_INITIALIZED = 1, /* shmem_init completed */
    SHOAL_BOOTSTRAP_EVENT_FINALIZED = 2,   /* shmem_finalize completed */
} shoal_bootstrap_event_t;

typedef struct shoal_bootstrap shoal_bootstrap_t;

/* What an allgather returns: PE pe's value is the off[pe + 1] - off[pe]
 * bytes at data + off[pe]. Freed by shoal_bootstrap_gather_free. */
typedef struct {
    int npes;
    uint8_t *data;
    size_t *off; /* [npes + 1] */
} shoal_bootstrap_gather_t;

typedef struct shoal_bootstrap_ops {
    uint32_t version; /* SHOAL_BOOTSTRAP_VERSION; lets the struct grow */
    const char *name;
    shoal_status_t (*put)(shoal_bootstrap_t *bs, const char *key, const void *value, size_t len);
    shoal_status_t (*get)(shoal_bootstrap_t *bs, int pe, const char *key, void *value,
                          size_t max_len, size_t *len_p);
    shoal_status_t (*fence)(shoal_bootstrap_t *bs);
    shoal_status_t (*barrier)(shoal_bootstrap_t *bs);
    /* Optional (may be NULL). */
    void (*notify)(shoal_bootstrap_t *bs, shoal_bootstrap_event_t event);
    /* Ends the whole job with `status`; `msg` (may be NULL) is shown once. */
    void (*abort)(shoal_bootstrap_t *bs, int status, const char *msg);
    void (*finalize)(shoal_bootstrap_t *bs);
    /* Version 2. Collective: every PE gives a value (its length may differ
     * between PEs) under `key`, the same key on every PE, and receives every
     * PE's value. A bootstrap that has no collective of its own names
     * shoal_bootstrap_allgather_by_gets. */
    shoal_status_t (*allgather)(shoal_bootstrap_t *bs, const char *key, const void *value,
                                size_t len, shoal_bootstrap_gather_t *all_p);
} shoal_bootstrap_ops_t;

struct shoal_bootstrap {
    const shoal_bootstrap_ops_t *ops;
    int rank;
    int npes;
    int local_rank;
    int local_npes;
    char job_id[64]; /* unique per job on this host; used to name sockets */
    void *priv;
};

/* Picks the bootstrap from the environment and initializes it. */
shoal_status_t shoal_bootstrap_init(shoal_bootstrap_t *bs);

/* Constructors of the implementations; each returns SHOAL_ERR_NOT_FOUND when
 * its environment is absent, so the next one may be tried. */
shoal_status_t shoal_bootstrap_launcher_init(shoal_bootstrap_t *bs);
shoal_status_t shoal_bootstrap_pmix_init(shoal_bootstrap_t *bs);
shoal_status_t shoal_bootstrap_single_init(shoal_bootstrap_t *bs);

static inline shoal_status_t shoal_bootstrap_put(shoal_bootstrap_t *bs, const char *key,
                                                 const void *value, size_t len)
{
    return bs->ops->put(bs, key, value, len);
}

static inline shoal_status_t shoal_bootstrap_get(shoal_bootstrap_t *bs, int pe, const char *key,
                                                 void *value, size_t max_len, size_t *len_p)
{
    return bs->ops->get(bs, pe, key, value, max_len, len_p);
}

static inline shoal_status_t shoal_bootstrap_fence(shoal_bootstrap_t *bs)
{
    return bs->ops->fence(bs);
}

static inline shoal_status_t shoal_bootstrap_barrier(shoal_bootstrap_t *bs)
{
    return bs->ops->barrier(bs);
}

/* The allgather made of put, fence and one get per PE (bootstrap.c). */
shoal_status_t shoal_bootstrap_allgather_by_gets(shoal_bootstrap_t *bs, const char *key,
                                                 const void *value, size_t len,
                                                 shoal_bootstrap_gather_t *all_p);

/* Collective: every PE's value under `key` (see allgather above). On
 * success *all_p holds them; free it with shoal_bootstrap_gather_free. */
static inline shoal_status_t shoal_bootstrap_allgather(shoal_bootstrap_t *bs, const char *key,
                                                       const void *value, size_t len,
                                                       shoal_bootstrap_gather_t *all_p)
{
    return bs->ops->allgather(bs, key, value, len, all_p);
}
static inline void shoal_bootstrap_gather_free(shoal_bootstrap_gather_t *all)
{
    free(all->data);
    free(all->off);
    all->data = NULL;
    all->off = NULL;
    all->npes = 0;
}

/* PE pe's value in an allgather's result, and its length. */
static inline const void *shoal_bootstrap_gather_at(const shoal_bootstrap_gather_t *all, int pe,
                                                    size_t *len_p)
{
    *len_p = all->off[pe + 1] - all->off[pe];
    return all->data + all->off[pe];
}

/* Collective: `len` bytes of `buf` on PE `root` reach `buf` on every PE
 * (one put by the root, one get by every other PE: O(1) requests per PE).
 * Every PE passes the same key, root and len; the caller checks root. */
static inline shoal_status_t shoal_bootstrap_broadcast(shoal_bootstrap_t *bs, const char *key,
                                                       int root, void *buf, size_t len)
{
    shoal_status_t status = SHOAL_OK, fence_status;
    size_t got = 0;
    if (bs->rank == root)
        status = shoal_bootstrap_put(bs, key, buf, len);
    fence_status = shoal_bootstrap_fence(bs);
    if (status == SHOAL_OK)
        status = fence_status;
    if (status != SHOAL_OK || bs->rank == root)
        return status;
    status = shoal_bootstrap_get(bs, root, key, buf, len, &got);
    return status == SHOAL_OK && got != len ? SHOAL_ERR_TRUNCATED : status;
}

static inline void shoal_bootstrap_notify(shoal_bootstrap_t *bs, shoal_bootstrap_event_t event)
{
    if (bs->ops->notify)
        bs->ops->notify(bs, event);
}

#endif
