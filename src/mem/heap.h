/*
 * The symmetric heap allocator's local bookkeeping. Every PE runs the same
 * allocator over the same sequence of collective calls, so every allocation
 * lands in the same segment at the same offset on every PE. The bookkeeping lives in private
 * memory, never in the heap itself, so a stray remote write cannot corrupt it.
 */
#ifndef SHOAL_MEM_HEAP_H
#define SHOAL_MEM_HEAP_H

#include <stddef.h>

#include "util/status.h"

typedef struct shoal_heap_block shoal_heap_block_t;

/* One contiguous range of the heap: the first is made at start-up, later
 * ones are added as the heap grows (core/alloc.c). */
typedef struct {
    char *base;
    size_t size;
    size_t used;
    shoal_heap_block_t *head; /* blocks in address order, covering the whole segment */
} shoal_heap_seg_t;

/* The most segments a heap has (route rows bound it further). */
#define SHOAL_HEAP_SEGS 32

typedef struct {
    char *base;  /* the first segment's */
    size_t size; /* of all segments */
    size_t used;
    size_t nallocs;
    unsigned nsegs;
    shoal_heap_seg_t seg[SHOAL_HEAP_SEGS];
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
/* Adds [base, base + size) as the heap's next segment, searched after the
 * others. */
shoal_status_t shoal_heap_add_segment(shoal_heap_t *heap, char *base, size_t size);
/* Removes the last segment, which must not be the first and must hold no
 * allocation. */
void shoal_heap_remove_last_segment(shoal_heap_t *heap);
/* The segment that holds ptr, or -1. */
int shoal_heap_segment_of(const shoal_heap_t *heap, const void *ptr);
/* The allocation that holds ptr (anywhere inside it): its start and size.
 * SHOAL_ERR_NOT_FOUND when ptr is in no allocation of this heap. */
shoal_status_t shoal_heap_block_around(const shoal_heap_t *heap, const void *ptr,
                                       const char **start_p, size_t *size_p);

#endif
