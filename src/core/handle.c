/*
 * Handle pools (see handle.h): chunks of objects that are never freed, a
 * bump index for objects never used, and a FIFO of dead ones.
 */
#include <stdlib.h>
#include <string.h>

#include "core/handle.h"

static shoal_handle_hdr_t *object_at(const shoal_handle_pool_t *pool, unsigned index)
{
    char *chunk = __atomic_load_n(&pool->chunk[index / pool->per_chunk], __ATOMIC_ACQUIRE);
    return (shoal_handle_hdr_t *)(chunk + (size_t)(index % pool->per_chunk) * pool->size);
}

/* The index of a never-used object, adding a chunk when needed; -1 when
 * the pool is full or out of memory. Called under the pool's lock. */
static long fresh_index(shoal_handle_pool_t *pool)
{
    if (pool->used == (unsigned)SHOAL_HANDLE_CHUNKS * pool->per_chunk)
        return -1;
    unsigned c = pool->used / pool->per_chunk;
    if (pool->chunk[c] == NULL) {
        char *chunk = calloc(pool->per_chunk, pool->size);
        if (chunk == NULL)
            return -1;
        __atomic_store_n(&pool->chunk[c], chunk, __ATOMIC_RELEASE);
    }
    return (long)pool->used++;
}

void *shoal_handle_new(shoal_handle_pool_t *pool)
{
    pthread_mutex_lock(&pool->lock);
    long index = -1;
    if (pool->dead < SHOAL_HANDLE_QUARANTINE)
        index = fresh_index(pool);
    if (index < 0 && pool->dead > 0) { /* reuse the oldest dead object */
        index = (long)pool->dead_head - 1;
        shoal_handle_hdr_t *h = object_at(pool, (unsigned)index);
        pool->dead_head = h->next_dead;
        if (pool->dead_head == 0)
            pool->dead_tail = 0;
        pool->dead--;
    }
    shoal_handle_hdr_t *h = NULL;
    if (index >= 0) {
        h = object_at(pool, (unsigned)index);
        memset(h, 0, pool->size);
        __atomic_store_n(&h->state, SHOAL_HANDLE_ALIVE, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&pool->lock);
    return h;
}

/* The index of the object at p, or -1 when p is not at an object's start. */
static long index_of(const shoal_handle_pool_t *pool, const void *p)
{
    const size_t chunk_bytes = (size_t)pool->per_chunk * pool->size;
    for (unsigned c = 0; c < SHOAL_HANDLE_CHUNKS; c++) {
        const char *chunk = __atomic_load_n(&pool->chunk[c], __ATOMIC_ACQUIRE);
        if (chunk == NULL)
            return -1; /* chunks are added in order */
        uintptr_t off = (uintptr_t)p - (uintptr_t)chunk;
        if (off < chunk_bytes)
            return off % pool->size == 0 ? (long)(c * pool->per_chunk + off / pool->size) : -1;
    }
    return -1;
}

void shoal_handle_kill(shoal_handle_pool_t *pool, void *obj)
{
    long index = index_of(pool, obj);
    if (index < 0)
        return;
    pthread_mutex_lock(&pool->lock);
    shoal_handle_hdr_t *h = obj;
    __atomic_store_n(&h->state, SHOAL_HANDLE_DEAD, __ATOMIC_RELEASE);
    h->next_dead = 0;
    if (pool->dead_tail != 0)
        object_at(pool, pool->dead_tail - 1)->next_dead = (uint32_t)index + 1;
    else
        pool->dead_head = (unsigned)index + 1;
    pool->dead_tail = (unsigned)index + 1;
    pool->dead++;
    pthread_mutex_unlock(&pool->lock);
}

shoal_handle_state_t shoal_handle_state(const shoal_handle_pool_t *pool, const void *p)
{
    if (index_of(pool, p) < 0)
        return SHOAL_HANDLE_NONE;
    uint32_t state = __atomic_load_n(&((const shoal_handle_hdr_t *)p)->state, __ATOMIC_ACQUIRE);
    return state == SHOAL_HANDLE_ALIVE || state == SHOAL_HANDLE_DEAD ? (shoal_handle_state_t)state
                                                                     : SHOAL_HANDLE_NONE;
}
