/*
 * Symmetric memory management entry points.
 */
#include <stdatomic.h>

#include <shmem.h>
#include <shmemx.h>

#include "api/api.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/register.h"
#include "core/state.h"
#include "core/team.h"
#include "device/device_heap.h"
#include "util/env.h"
#include "util/log.h"

SHOAL_API_DEF(void *, shmem_malloc)(size_t size)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    return shoal_alloc_collective(SHOAL_FN, size, 0, 0, NULL);
}

SHOAL_API_DEF(void *, shmem_calloc)(size_t count, size_t size)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    if (size != 0 && count > (size_t)-1 / size) {
        SHOAL_WARN("shmem_calloc: count %zu * size %zu overflows size_t; returning NULL", count,
                   size);
        return NULL;
    }
    return shoal_alloc_collective(SHOAL_FN, count * size, 0, 1, NULL);
}

SHOAL_API_DEF(void *, shmem_align)(size_t alignment, size_t size)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        shoal_alloc_collective_refuse(SHOAL_FN, size, alignment);
        if (SHOAL_MY_PE == 0 || shoal_env.debug)
            SHOAL_ERROR("shmem_align: alignment %zu is not a power of two; returning NULL on "
                        "every PE; pass a power of two such as 8, 64 or 4096",
                        alignment);
        return NULL;
    }
    if (alignment > SHOAL_HEAP_SEGMENT_ALIGN) {
        shoal_alloc_collective_refuse(SHOAL_FN, size, alignment);
        if (SHOAL_MY_PE == 0 || shoal_env.debug)
            SHOAL_WARN("shmem_align: alignment %zu is larger than the %zu bytes Shoal can keep "
                       "symmetric; returning NULL on every PE; pass an alignment of at most %zu",
                       alignment, SHOAL_HEAP_SEGMENT_ALIGN, SHOAL_HEAP_SEGMENT_ALIGN);
        return NULL;
    }
    return shoal_alloc_collective(SHOAL_FN, size, alignment, 0, NULL);
}

SHOAL_API_DEF(void *, shmem_realloc)(void *ptr, size_t size)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    if (ptr == NULL)
        return shoal_alloc_collective(SHOAL_FN, size, 0, 0, NULL);
    return shoal_alloc_collective(SHOAL_FN, size, 0, 0, ptr);
}

SHOAL_API_DEF(void, shmem_free)(void *ptr)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    shoal_free_collective(SHOAL_FN, ptr);
}

/* The hints Shoal defines: the standard ones and its own. */
#define SHOAL_MALLOC_HINTS_DEFINED                                                                 \
    (SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE | SHMEMX_MALLOC_DEVICE)

SHOAL_API_DEF(void *, shmem_malloc_with_hints)(size_t size, long hints)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    /* SHMEMX_MALLOC_DEVICE asks for the device heap only among defined
     * hints. A program that sets bits no hint defines (all bits, or all but
     * one, as portable tests do) did not ask for Shoal's device memory; it
     * gets what the spec promises for a hint an implementation cannot use:
     * the memory shmem_malloc gives. The standard hints are satisfied by
     * ordinary heap memory. */
    const long unknown = hints & ~SHOAL_MALLOC_HINTS_DEFINED;
    if ((hints & SHMEMX_MALLOC_DEVICE) && unknown == 0)
        return shoal_alloc_device_collective(SHOAL_FN, size, 0, SHOAL_DEVICE_DEFAULT);
    static atomic_int told;
    if (unknown && atomic_exchange(&told, 1) == 0)
        SHOAL_INFO("shmem_malloc_with_hints: hints 0x%lx has bits Shoal does not know; "
                   "allocating as shmem_malloc does%s (known hints: SHMEM_MALLOC_ATOMICS_REMOTE, "
                   "SHMEM_MALLOC_SIGNAL_REMOTE, SHMEMX_MALLOC_DEVICE); logged once",
                   (unsigned long)hints,
                   hints & SHMEMX_MALLOC_DEVICE
                       ? ", on the host: SHMEMX_MALLOC_DEVICE counts only among known hints"
                       : "");
    return shoal_alloc_collective(SHOAL_FN, size, 0, 0, NULL);
}

SHOAL_API_DEF(void *, shmemx_malloc_device)(size_t size, int device)
{
    SHOAL_API_TRACE_TEAM(ALLOC, &shoal_team_world);
    return shoal_alloc_device_collective(SHOAL_FN, size, 0,
                                         device < 0 ? SHOAL_DEVICE_DEFAULT : device);
}

SHOAL_API_DEF(void, shmemx_device_heap_info)
(size_t *total, size_t *used, size_t *backed, int *device)
{
    size_t t = 0, u = 0, b = 0;
    int d = -1;
    if (shoal.initialized)
        shoal_device_heap_info(&t, &u, &b, &d);
    if (total != NULL)
        *total = t;
    if (used != NULL)
        *used = u;
    if (backed != NULL)
        *backed = b;
    if (device != NULL)
        *device = d;
}

SHOAL_API_DEF(int, shmemx_buffer_register)(void *ptr, size_t size)
{
    SHOAL_API_TRACE(ALLOC, -1, 0, NULL);
    return shoal_register_collective(SHOAL_FN, ptr, size);
}

SHOAL_API_DEF(int, shmemx_buffer_unregister)(void *ptr)
{
    SHOAL_API_TRACE(ALLOC, -1, 0, NULL);
    return shoal_unregister_collective(SHOAL_FN, ptr);
}

SHOAL_API_DEF(void *, shmalloc)(size_t size)
{
    return pshmem_malloc(size);
}
SHOAL_API_DEF(void *, shmemalign)(size_t alignment, size_t size)
{
    return pshmem_align(alignment, size);
}
SHOAL_API_DEF(void *, shrealloc)(void *ptr, size_t size)
{
    return pshmem_realloc(ptr, size);
}
SHOAL_API_DEF(void, shfree)(void *ptr)
{
    pshmem_free(ptr);
}
