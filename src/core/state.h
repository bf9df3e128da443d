/*
 * The library's process-wide state, read on every data-path call. The fields
 * the fast path needs (PE count, segment ranges, the peer table) come first.
 */
#ifndef SHOAL_CORE_STATE_H
#define SHOAL_CORE_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"
#include "core/hang.h"
#include "mem/heap.h"
#include "mem/route.h"
#include "mem/segment.h"

#define SHOAL_LIKELY(x) __builtin_expect(!!(x), 1)
/* The data path's small routines must inline into every typed entry point
 * (gcc stopped doing so on its own once the ctx forms doubled the callers;
 * bench/drivers/callgrind.sh counts the instructions). */
#define SHOAL_INLINE static inline __attribute__((always_inline))
#define SHOAL_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Most dissemination rounds a barrier can need (2^32 PEs). */
#define SHOAL_BARRIER_ROUNDS 32

/* The synchronization words of one collective context (a team's slot, or a
 * user's pSync array for the active-set forms): barrier counters, then a few
 * words collectives exchange (for example each PE's element count in
 * shmem_collect). SHMEM_*_SYNC_SIZE in shmem.h leaves room for all of them. */
#define SHOAL_PSYNC_SCRATCH SHOAL_BARRIER_ROUNDS
#define SHOAL_PSYNC_WORDS (SHOAL_BARRIER_ROUNDS + 32) /* = SHMEM_SYNC_SIZE, the user's pSync */

typedef struct {
    uint64_t word[SHOAL_PSYNC_WORDS];
    /* Check mode (core/check.c): what this PE is calling, by call parity. */
    uint64_t check[2][8];
} __attribute__((aligned(64))) shoal_psync_t;

/* Team slots: the predefined teams' plus SHOAL_TEAMS_MAX (capped so that
 * the total stays within this limit). */
#define SHOAL_TEAMS_LIMIT 4096
#define SHOAL_TEAMS_PREDEFINED 2

/* Library-internal symmetric data, at the start of every PE's heap segment.
 * Peers read and write it through the same mappings as user data. */
typedef struct {
    /* Collective allocation checks, double-buffered by call parity. */
    uint64_t alloc_args[2][3] __attribute__((aligned(64))); /* size, align, check mode */
    /* Team slots this PE has free, published while a team is being split. */
    uint64_t team_free[SHOAL_TEAMS_LIMIT / 64] __attribute__((aligned(64)));
    /* What this PE's threads are blocked in, for hang reports (core/hang.h). */
    shoal_hang_pe_t hang __attribute__((aligned(64)));
    /* The CPU this PE last waited on, plus one (0: not known yet): a PE of
     * this host that waits on the same CPU yields at once (core/backoff.c). */
    uint32_t wait_cpu __attribute__((aligned(64)));
    /* One synchronization area per team slot (predefined + SHOAL_TEAMS_MAX). */
    shoal_psync_t team_psync[];
} shoal_internal_t;

/* The heap segment starts at a multiple of this in every PE, so an address's
 * alignment is the same on every PE for any alignment up to this. */
#define SHOAL_HEAP_SEGMENT_ALIGN ((size_t)1 << 30)

/* Bytes reserved for shoal_internal_t in front of the user heap. */
static inline unsigned shoal_team_slots(unsigned teams_max)
{
    return teams_max > SHOAL_TEAMS_LIMIT - SHOAL_TEAMS_PREDEFINED
               ? SHOAL_TEAMS_LIMIT
               : teams_max + SHOAL_TEAMS_PREDEFINED;
}

static inline size_t shoal_internal_size(unsigned teams_max)
{
    size_t bytes =
        sizeof(shoal_internal_t) + (size_t)shoal_team_slots(teams_max) * sizeof(shoal_psync_t);
    return (bytes + 65535) & ~(size_t)65535;
}

typedef struct {
    /* --- fast path --- */
    /* Where every PE's symmetric memory is (mem/route.h); route.npes is 0
     * until initialized and after finalize, which closes the data path. */
    shoal_route_t route;
    /* What the inline RMA, AMO and signal lookups read: a copy of route made
     * at the end of shmem_init (core/init.c), except that its npes is 0 while
     * tracing, profiling or check mode is on (then every call takes the
     * routed path, which records and checks it: core/rma_route.c,
     * amo_route.c, signal_route.c). */
    shoal_route_t route_fast;
    int *node; /* [npes]: lowest PE on each PE's host */

    /* --- everything else --- */
    int initialized;
    int init_count; /* shmem_init calls not yet matched by shmem_finalize (1.6) */
    int finalized;
    int thread_level;
    unsigned generation; /* how many times shmem_init has run */
    shoal_bootstrap_t bs;
    shoal_segment_t segs[SHOAL_ROUTE_ROWS]; /* this PE's memfd segments, by route row */
    shoal_internal_t *internal;
    size_t internal_size;
    shoal_heap_t heap; /* allocator over the user part of the heap segment */
    unsigned alloc_calls;
    int pcontrol_level;        /* set by shmem_pcontrol (core/pcontrol.h) */
    unsigned pcontrol_flushes; /* its level-2 calls */
    pthread_mutex_t lock;      /* serializes init, allocation and barriers across threads */
} shoal_state_t;

extern shoal_state_t shoal;

/* The fast path's two most used answers. */
#define SHOAL_NPES (shoal.route.npes)
#define SHOAL_MY_PE (shoal.route.my_pe)

/* The internal region of PE `pe`, as mapped in this process (mapped on
 * first use; NULL when pe is on another host). */
static inline shoal_internal_t *shoal_internal_of(int pe)
{
    return (shoal_internal_t *)shoal_route_peer_map(&shoal.route, pe, SHOAL_ROUTE_HEAP);
}

/* 1 when PE `pe` shares this host, so its memory is (or will be, on first
 * use) mapped here. */
static inline int shoal_pe_on_host(int pe)
{
    return shoal.node[pe] == shoal.node[SHOAL_MY_PE];
}

#endif
