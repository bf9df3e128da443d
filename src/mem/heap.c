/*
 * First-fit allocator over segments, each an address-ordered list of
 * blocks, with coalescing on free. Deterministic: the same calls give the
 * same segments and offsets. Segments are searched in the order they were
 * added, so the first (whose row the data path looks up inline) fills first.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem/heap.h"

struct shoal_heap_block {
    shoal_heap_block_t *prev, *next;
    size_t offset; /* in its segment */
    size_t size;
    int used;
};

static shoal_heap_block_t *block_new(size_t offset, size_t size, int used)
{
    shoal_heap_block_t *b = calloc(1, sizeof(*b));
    if (b != NULL) {
        b->offset = offset;
        b->size = size;
        b->used = used;
    }
    return b;
}

shoal_status_t shoal_heap_init(shoal_heap_t *heap, char *base, size_t size)
{
    memset(heap, 0, sizeof(*heap));
    heap->base = base;
    return shoal_heap_add_segment(heap, base, size);
}

static void seg_free_blocks(shoal_heap_seg_t *s)
{
    shoal_heap_block_t *b = s->head;
    while (b != NULL) {
        shoal_heap_block_t *next = b->next;
        free(b);
        b = next;
    }
    s->head = NULL;
}

void shoal_heap_finalize(shoal_heap_t *heap)
{
    for (unsigned i = 0; i < heap->nsegs; i++)
        seg_free_blocks(&heap->seg[i]);
    heap->nsegs = 0;
    heap->size = heap->used = heap->nallocs = 0;
}

shoal_status_t shoal_heap_add_segment(shoal_heap_t *heap, char *base, size_t size)
{
    if (heap->nsegs == SHOAL_HEAP_SEGS)
        return SHOAL_ERR_NOMEM;
    shoal_heap_seg_t *s = &heap->seg[heap->nsegs];
    s->head = block_new(0, size, 0);
    if (s->head == NULL)
        return SHOAL_ERR_NOMEM;
    s->base = base;
    s->size = size;
    s->used = 0;
    heap->nsegs++;
    heap->size += size;
    return SHOAL_OK;
}

void shoal_heap_remove_last_segment(shoal_heap_t *heap)
{
    shoal_heap_seg_t *s = &heap->seg[heap->nsegs - 1];
    heap->size -= s->size;
    seg_free_blocks(s);
    memset(s, 0, sizeof(*s));
    heap->nsegs--;
}

int shoal_heap_segment_of(const shoal_heap_t *heap, const void *ptr)
{
    for (unsigned i = 0; i < heap->nsegs; i++)
        if ((uintptr_t)ptr - (uintptr_t)heap->seg[i].base < heap->seg[i].size)
            return (int)i;
    return -1;
}

/* Splits b so that a new block of b->size - keep bytes follows it. */
static shoal_status_t block_split(shoal_heap_block_t *b, size_t keep)
{
    shoal_heap_block_t *rest = block_new(b->offset + keep, b->size - keep, 0);
    if (rest == NULL)
        return SHOAL_ERR_NOMEM;
    rest->prev = b;
    rest->next = b->next;
    if (b->next)
        b->next->prev = rest;
    b->next = rest;
    b->size = keep;
    return SHOAL_OK;
}

/* First fit in one segment: SHOAL_ERR_NOT_FOUND when nothing fits. */
static shoal_status_t seg_alloc(shoal_heap_seg_t *s, size_t size, size_t align, void **ptr_p)
{
    if (size > s->size)
        return SHOAL_ERR_NOT_FOUND;
    for (shoal_heap_block_t *b = s->head; b != NULL; b = b->next) {
        if (b->used)
            continue;
        uintptr_t addr = (uintptr_t)s->base + b->offset;
        size_t pad = (size_t)(((addr + align - 1) & ~(uintptr_t)(align - 1)) - addr);
        if (pad > b->size || b->size - pad < size)
            continue;
        if (pad > 0) {
            if (block_split(b, pad) != SHOAL_OK)
                return SHOAL_ERR_NOMEM;
            b = b->next;
        }
        if (b->size > size && block_split(b, size) != SHOAL_OK)
            return SHOAL_ERR_NOMEM;
        b->used = 1;
        s->used += b->size;
        *ptr_p = s->base + b->offset;
        return SHOAL_OK;
    }
    return SHOAL_ERR_NOT_FOUND;
}

shoal_status_t shoal_heap_alloc(shoal_heap_t *heap, size_t size, size_t align, void **ptr_p)
{
    if (align < SHOAL_HEAP_MIN_ALIGN)
        align = SHOAL_HEAP_MIN_ALIGN;
    if (size > heap->size)
        return SHOAL_ERR_NOMEM;
    size = (size + SHOAL_HEAP_MIN_ALIGN - 1) & ~(size_t)(SHOAL_HEAP_MIN_ALIGN - 1);
    for (unsigned i = 0; i < heap->nsegs; i++) {
        shoal_heap_seg_t *s = &heap->seg[i];
        const size_t before = s->used;
        shoal_status_t status = seg_alloc(s, size, align, ptr_p);
        if (status == SHOAL_ERR_NOT_FOUND)
            continue;
        if (status != SHOAL_OK)
            return status;
        heap->used += s->used - before;
        heap->nallocs++;
        return SHOAL_OK;
    }
    return SHOAL_ERR_NOMEM;
}

/* The block that starts at ptr (used), and its segment. */
static shoal_heap_block_t *block_find(const shoal_heap_t *heap, const void *ptr,
                                      shoal_heap_seg_t **seg_p)
{
    const int i = shoal_heap_segment_of(heap, ptr);
    if (i < 0)
        return NULL;
    shoal_heap_seg_t *s = (shoal_heap_seg_t *)&heap->seg[i];
    size_t offset = (size_t)((const char *)ptr - s->base);
    for (shoal_heap_block_t *b = s->head; b != NULL; b = b->next) {
        if (b->offset == offset) {
            if (seg_p != NULL)
                *seg_p = s;
            return b->used ? b : NULL;
        }
        if (b->offset > offset)
            break;
    }
    return NULL;
}

static void block_merge_next(shoal_heap_block_t *b)
{
    shoal_heap_block_t *n = b->next;
    b->size += n->size;
    b->next = n->next;
    if (n->next)
        n->next->prev = b;
    free(n);
}

shoal_status_t shoal_heap_free(shoal_heap_t *heap, void *ptr)
{
    shoal_heap_seg_t *s = NULL;
    shoal_heap_block_t *b = block_find(heap, ptr, &s);
    if (b == NULL)
        return SHOAL_ERR_NOT_FOUND;
    b->used = 0;
    s->used -= b->size;
    heap->used -= b->size;
    heap->nallocs--;
    if (b->next && !b->next->used)
        block_merge_next(b);
    if (b->prev && !b->prev->used)
        block_merge_next(b->prev);
    return SHOAL_OK;
}

shoal_status_t shoal_heap_block_size(const shoal_heap_t *heap, const void *ptr, size_t *size_p)
{
    const shoal_heap_block_t *b = block_find(heap, ptr, NULL);
    if (b == NULL)
        return SHOAL_ERR_NOT_FOUND;
    *size_p = b->size;
    return SHOAL_OK;
}

shoal_status_t shoal_heap_block_around(const shoal_heap_t *heap, const void *ptr,
                                       const char **start_p, size_t *size_p)
{
    const int i = shoal_heap_segment_of(heap, ptr);
    if (i < 0)
        return SHOAL_ERR_NOT_FOUND;
    const shoal_heap_seg_t *s = &heap->seg[i];
    size_t offset = (size_t)((const char *)ptr - s->base);
    for (const shoal_heap_block_t *b = s->head; b != NULL; b = b->next) {
        if (offset >= b->offset && offset - b->offset < b->size) {
            if (!b->used)
                return SHOAL_ERR_NOT_FOUND;
            *start_p = s->base + b->offset;
            *size_p = b->size;
            return SHOAL_OK;
        }
    }
    return SHOAL_ERR_NOT_FOUND;
}

size_t shoal_heap_largest_free(const shoal_heap_t *heap)
{
    size_t largest = 0;
    for (unsigned i = 0; i < heap->nsegs; i++)
        for (const shoal_heap_block_t *b = heap->seg[i].head; b != NULL; b = b->next)
            if (!b->used && b->size > largest)
                largest = b->size;
    return largest;
}
