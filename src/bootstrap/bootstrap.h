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
 */
#ifndef SHOAL_BOOTSTRAP_H
#define SHOAL_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#define SHOAL_BOOTSTRAP_VERSION 1

/* Life-cycle events a launcher wants to hear about to judge how a PE ended. */
typedef enum {
    SHOAL_BOOTSTRAP_EVENT_INITIALIZED = 1, /* shmem_init completed */
    SHOAL_BOOTSTRAP_EVENT_FINALIZED = 2,   /* shmem_finalize completed */
} shoal_bootstrap_event_t;

typedef struct shoal_bootstrap shoal_bootstrap_t;

typedef struct shoal_bootstrap_ops {
    uint32_t version; /* SHOAL_BOOTSTRAP_VERSION; lets the struct grow */
    const char *name;
    shoal_status_t (*put)(shoal_bootstrap_t *bs, const char *key, const void *value,
                          size_t len);
    shoal_status_t (*get)(shoal_bootstrap_t *bs, int pe, const char *key, void *value,
                          size_t max_len, size_t *len_p);
    shoal_status_t (*fence)(shoal_bootstrap_t *bs);
    shoal_status_t (*barrier)(shoal_bootstrap_t *bs);
    /* Optional (may be NULL). */
    void (*notify)(shoal_bootstrap_t *bs, shoal_bootstrap_event_t event);
    /* Ends the whole job with `status`; `msg` (may be NULL) is shown once. */
    void (*abort)(shoal_bootstrap_t *bs, int status, const char *msg);
    void (*finalize)(shoal_bootstrap_t *bs);
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

static inline void shoal_bootstrap_notify(shoal_bootstrap_t *bs, shoal_bootstrap_event_t event)
{
    if (bs->ops->notify)
        bs->ops->notify(bs, event);
}

#endif
