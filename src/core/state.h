/*
 * The library's process-wide state, read on every data-path call. The fields
 * the fast path needs (PE count, segment ranges, the peer table) come first.
 */
#ifndef SHOAL_CORE_STATE_H
#define SHOAL_CORE_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"
#include "mem/heap.h"
#include "mem/segment.h"
#include "transport/shm/shm.h"

#define SHOAL_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHOAL_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Most dissemination rounds a barrier can need (2^32 PEs). */
#define SHOAL_BARRIER_ROUNDS 32

/* Library-internal symmetric data, at the start of every PE's heap segment.
 * Peers write into it (barrier flags) through the same mappings as user data. */
typedef struct {
    uint64_t barrier_flag[SHOAL_BARRIER_ROUNDS] __attribute__((aligned(64)));
    /* Collective allocation checks, double-buffered by call parity. */
    uint64_t alloc_args[2][2] __attribute__((aligned(64)));
} shoal_internal_t;

/* The heap segment starts at a multiple of this in every PE, so an address's
 * alignment is the same on every PE for any alignment up to this. */
#define SHOAL_HEAP_SEGMENT_ALIGN ((size_t)1 << 30)

/* Bytes reserved for shoal_internal_t in front of the user heap. */
#define SHOAL_INTERNAL_SIZE ((size_t)64 << 10)

typedef struct {
    /* --- fast path --- */
    int npes; /* 0 until initialized */
    int my_pe;
    uintptr_t heap_base; /* the whole heap segment, internal part included */
    size_t heap_size;
    uintptr_t data_base; /* the executable's symmetric globals */
    size_t data_size;
    shoal_shm_peer_t *peers; /* [npes] */

    /* --- everything else --- */
    int initialized;
    int init_count; /* shmem_init calls not yet matched by shmem_finalize (1.6) */
    int finalized;
    int thread_level;
    unsigned generation; /* how many times shmem_init has run */
    shoal_bootstrap_t bs;
    shoal_segment_t segs[SHOAL_SEGMENT_COUNT];
    shoal_internal_t *internal;
    shoal_heap_t heap; /* allocator over the user part of the heap segment */
    uint64_t barrier_epoch;
    unsigned alloc_calls;
    pthread_mutex_t lock; /* serializes init, allocation and barriers across threads */
} shoal_state_t;

extern shoal_state_t shoal;

/* The internal region of PE `pe`, as mapped in this process. */
static inline shoal_internal_t *shoal_internal_of(int pe)
{
    return (shoal_internal_t *)shoal.peers[pe].base[SHOAL_SEGMENT_HEAP];
}

#endif
