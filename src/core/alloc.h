/*
 * Collective symmetric allocation (shmem_malloc and friends).
 */
#ifndef SHOAL_CORE_ALLOC_H
#define SHOAL_CORE_ALLOC_H

#include <stddef.h>

#include <shmemx.h>

#include "util/status.h"

/* Allocates `size` bytes aligned to `align` on every PE. Checks that every PE
 * asked for the same size and alignment (ending the job, naming the PEs and
 * sizes, when not). If `old` is not NULL, its first min(old size, size) bytes
 * are copied and it is freed (realloc). If `zero`, the block is zeroed.
 * Ends with a barrier, so the block is ready everywhere on return. */
void *shoal_alloc_collective(const char *fn, size_t size, size_t align, int zero, void *old);
/* The same collective step for a request refused at the API boundary (an
 * invalid alignment): checks that every PE passed the same arguments and
 * synchronizes, but allocates nothing, so every PE returns NULL together. */
void shoal_alloc_collective_refuse(const char *fn, size_t size, size_t align);
/* The same for the device symmetric heap (device/device_heap.h): `device` is an
 * ordinal or SHOAL_DEVICE_DEFAULT. Returns NULL on every PE, after one
 * message, when any PE cannot make or grow its device heap (no driver, no
 * GPU, out of GPU memory); never ends the job for that. */
void *shoal_alloc_device_collective(const char *fn, size_t size, size_t align, int device);
/* Collective: the device view of the job for kernels (device/view.h).
 * `refuse`: NULL, or why this PE refuses (then every PE fails, and the
 * first refusing PE logs it). */
shoal_status_t shoal_device_view_collective(const char *fn, const char *refuse, shmemx_dev_t *d);
/* Frees a block of either heap. */
void shoal_free_collective(const char *fn, void *ptr);

/* For SHMEM_DEBUG: ends the job, naming the call, the argument and the
 * sizes, when `arg` (of `fn`) lies in a symmetric heap allocation that has
 * fewer than `bytes` bytes from `p` to its end. Addresses outside the heap
 * (globals, private memory) are not checked. */
void shoal_alloc_check_room(const char *fn, const char *arg, const void *p, size_t bytes);

/* Total (all segments so far), used and largest free bytes of the user
 * heap (an allocation larger than that grows the heap, up to
 * SHOAL_SYMMETRIC_SIZE_MAX). */
void shoal_alloc_stats(size_t *total_p, size_t *used_p, size_t *largest_free_p);
/* At shmem_finalize, once the transport and the peers' mappings are gone:
 * gives back this PE's heap segments past the first. */
void shoal_alloc_finalize(void);

#endif
