/*
 * The symmetric heap allocator's local bookkeeping. Every PE runs the same
 * allocator over the same sequence of collective calls, so every allocation
 * lands at the same offset on every PE. The bookkeeping lives in private
 * memory, never in the heap itself, so a stray remote write cannot corrupt it.
 */
#ifndef SHOAL_MEM_HEAP_H
#define SHOAL_MEM_HEAP_H

#include <stddef.h>

#include "util/status.h"

typedef struct shoal_heap_block shoal_heap_block_t;

typedef struct {
    char *base;
    size_t size;
    size_t used;
    size_t nallocs;
    shoal_heap_block_t *head; /* blocks in address order, covering the whole heap */
} shoal_heap_t;

/* Smallest alignment of every block: a cache line, so that flags in separate
 * allocations never share one. */
#define SHOAL_HEAP_MIN_ALIGN 64

shoal_status_t shoal_heap_init(shoal_heap_t *heap, char *base, size_t size);
void shoal_heap_finalize(shoal_heap_t *heap);
/* `align` must be a power of two. */
shoal_status_t shoal_heap_alloc(shoal_heap_t *heap, size_t size, size_t align, void **ptr_p);
shoal_status_t shoal_heap_free(shoal_heap_t *heap, void *ptr);
/* Size of the allocation that starts at ptr. */
shoal_status_t shoal_heap_block_size(const shoal_heap_t *heap, const void *ptr, size_t *size_p);
size_t shoal_heap_largest_free(const shoal_heap_t *heap);
/* The allocation that holds ptr (anywhere inside it): its start and size.
 * SHOAL_ERR_NOT_FOUND when ptr is in no allocation of this heap. */
shoal_status_t shoal_heap_block_around(const shoal_heap_t *heap, const void *ptr,
                                       const char **start_p, size_t *size_p);

#endif
