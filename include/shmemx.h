/*
 * Shoal's extensions to OpenSHMEM. Everything here is named shmemx_* or
 * SHMEMX_*; programs that use it are not portable to other implementations.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The symmetric heap of the calling PE: its usable size, the bytes in live
 * allocations (rounded to the allocator's granularity) and the largest block
 * a shmem_malloc could get now. All zero before shmem_init. */
SHMEM_API void shmemx_heap_info(size_t *total, size_t *used, size_t *largest_free);

#ifdef __cplusplus
}
#endif

#endif
