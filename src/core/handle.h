/*
 * Pools of objects whose addresses are handed to the program as handles
 * (shmem_team_t, shmem_ctx_t). An object is never returned to malloc: a
 * destroyed one stays readable and is marked dead, so a stale handle reads
 * its own dead state instead of freed memory, and a handle can be checked
 * (is it one of ours, alive, dead?) without dereferencing it. Dead objects
 * are reused oldest first and only once SHOAL_HANDLE_QUARANTINE of them
 * wait, so a stale handle is recognized until that many later destroys.
 *
 * Each object starts with a shoal_handle_hdr_t. Lookups read chunk
 * pointers that are written once and never change, so they take no lock;
 * making and killing objects take the pool's lock.
 */
#ifndef SHOAL_CORE_HANDLE_H
#define SHOAL_CORE_HANDLE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define SHOAL_HANDLE_QUARANTINE 1024
#define SHOAL_HANDLE_CHUNKS 1024

typedef enum {
    SHOAL_HANDLE_NONE = 0,           /* not an object of the pool */
    SHOAL_HANDLE_ALIVE = 0x5a1feu,   /* made and not destroyed */
    SHOAL_HANDLE_DEAD = 0xdeadbeefu, /* destroyed */
} shoal_handle_state_t;

typedef struct {
    uint32_t state;     /* shoal_handle_state_t */
    uint32_t next_dead; /* the next dead object's index + 1, or 0 */
} shoal_handle_hdr_t;

typedef struct {
    const size_t size;                   /* bytes per object, header included */
    const unsigned per_chunk;            /* objects per chunk */
    unsigned used;                       /* objects ever handed out (never reused or reused) */
    unsigned dead, dead_head, dead_tail; /* the dead objects, oldest first (index + 1) */
    char *chunk[SHOAL_HANDLE_CHUNKS];
    pthread_mutex_t lock;
} shoal_handle_pool_t;

#define SHOAL_HANDLE_POOL(TYPE, PER_CHUNK)                                                         \
    {                                                                                              \
        .size = (sizeof(TYPE) + 15) & ~(size_t)15, .per_chunk = (PER_CHUNK),                       \
        .lock = PTHREAD_MUTEX_INITIALIZER                                                          \
    }

/* A zeroed object marked alive, or NULL when memory or the pool's capacity
 * (SHOAL_HANDLE_CHUNKS * per_chunk objects alive) runs out. */
void *shoal_handle_new(shoal_handle_pool_t *pool);
/* Marks `obj` (an object of the pool, alive) dead and queues it for reuse. */
void shoal_handle_kill(shoal_handle_pool_t *pool, void *obj);
/* What `p` is: an alive or dead object of the pool, or none of its objects
 * (any other value, NULL included: nothing is dereferenced unless it lies
 * at an object's start inside one of the pool's chunks). */
shoal_handle_state_t shoal_handle_state(const shoal_handle_pool_t *pool, const void *p);

#endif
