/*
 * Symmetric memory management entry points.
 */
#include <stdatomic.h>

#include <shmem.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/state.h"
#include "util/env.h"
#include "util/log.h"

void *shmem_malloc(size_t size)
{
    return shoal_alloc_collective(__func__, size, 0, 0, NULL);
}

void *shmem_calloc(size_t count, size_t size)
{
    if (size != 0 && count > (size_t)-1 / size) {
        SHOAL_WARN("shmem_calloc: count %zu * size %zu overflows size_t; returning NULL", count,
                   size);
        return NULL;
    }
    return shoal_alloc_collective(__func__, count * size, 0, 1, NULL);
}

void *shmem_align(size_t alignment, size_t size)
{
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        shoal_alloc_collective_refuse(__func__, size, alignment);
        if (SHOAL_MY_PE == 0 || shoal_env.debug)
            SHOAL_ERROR("shmem_align: alignment %zu is not a power of two; returning NULL on "
                        "every PE; pass a power of two such as 8, 64 or 4096",
                        alignment);
        return NULL;
    }
    if (alignment > SHOAL_HEAP_SEGMENT_ALIGN) {
        shoal_alloc_collective_refuse(__func__, size, alignment);
        if (SHOAL_MY_PE == 0 || shoal_env.debug)
            SHOAL_WARN("shmem_align: alignment %zu is larger than the %zu bytes Shoal can keep "
                       "symmetric; returning NULL on every PE; pass an alignment of at most %zu",
                       alignment, SHOAL_HEAP_SEGMENT_ALIGN, SHOAL_HEAP_SEGMENT_ALIGN);
        return NULL;
    }
    return shoal_alloc_collective(__func__, size, alignment, 0, NULL);
}

void *shmem_realloc(void *ptr, size_t size)
{
    if (ptr == NULL)
        return shoal_alloc_collective(__func__, size, 0, 0, NULL);
    return shoal_alloc_collective(__func__, size, 0, 0, ptr);
}

void shmem_free(void *ptr)
{
    shoal_free_collective(__func__, ptr);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    /* Every hint is satisfied by ordinary heap memory on one host; one this
     * library does not know is treated like 0, as the spec allows. */
    static atomic_int told;
    if ((hints & ~(SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE)) &&
        atomic_exchange(&told, 1) == 0)
        SHOAL_INFO("shmem_malloc_with_hints: hints 0x%lx has bits Shoal does not know; "
                   "allocating as shmem_malloc does (known hints: SHMEM_MALLOC_ATOMICS_REMOTE, "
                   "SHMEM_MALLOC_SIGNAL_REMOTE); logged once",
                   (unsigned long)hints);
    return shoal_alloc_collective(__func__, size, 0, 0, NULL);
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void shfree(void *ptr) { shmem_free(ptr); }
