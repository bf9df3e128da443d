/*
 * First-fit allocator over an address-ordered list of blocks, with
 * coalescing on free. Deterministic: the same calls give the same offsets.
 */
#include <stdint.h>
#include <stdlib.h>

#include "mem/heap.h"

struct shoal_heap_block {
    shoal_heap_block_t *prev, *next;
    size_t offset;
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
    heap->base = base;
    heap->size = size;
    heap->used = 0;
    heap->nallocs = 0;
    heap->head = block_new(0, size, 0);
    return heap->head ? SHOAL_OK : SHOAL_ERR_NOMEM;
}

void shoal_heap_finalize(shoal_heap_t *heap)
{
    shoal_heap_block_t *b = heap->head;
    while (b != NULL) {
        shoal_heap_block_t *next = b->next;
        free(b);
        b = next;
    }
    heap->head = NULL;
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

shoal_status_t shoal_heap_alloc(shoal_heap_t *heap, size_t size, size_t align, void **ptr_p)
{
    if (align < SHOAL_HEAP_MIN_ALIGN)
        align = SHOAL_HEAP_MIN_ALIGN;
    if (size > heap->size)
        return SHOAL_ERR_NOMEM;
    size = (size + SHOAL_HEAP_MIN_ALIGN - 1) & ~(size_t)(SHOAL_HEAP_MIN_ALIGN - 1);

    for (shoal_heap_block_t *b = heap->head; b != NULL; b = b->next) {
        if (b->used)
            continue;
        uintptr_t addr = (uintptr_t)heap->base + b->offset;
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
        heap->used += b->size;
        heap->nallocs++;
        *ptr_p = heap->base + b->offset;
        return SHOAL_OK;
    }
    return SHOAL_ERR_NOMEM;
}

static shoal_heap_block_t *block_find(const shoal_heap_t *heap, const void *ptr)
{
    if ((const char *)ptr < heap->base || (const char *)ptr >= heap->base + heap->size)
        return NULL;
    size_t offset = (size_t)((const char *)ptr - heap->base);
    for (shoal_heap_block_t *b = heap->head; b != NULL; b = b->next) {
        if (b->offset == offset)
            return b->used ? b : NULL;
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
    shoal_heap_block_t *b = block_find(heap, ptr);
    if (b == NULL)
        return SHOAL_ERR_NOT_FOUND;
    b->used = 0;
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
    const shoal_heap_block_t *b = block_find(heap, ptr);
    if (b == NULL)
        return SHOAL_ERR_NOT_FOUND;
    *size_p = b->size;
    return SHOAL_OK;
}

shoal_status_t shoal_heap_block_around(const shoal_heap_t *heap, const void *ptr,
                                       const char **start_p, size_t *size_p)
{
    if ((const char *)ptr < heap->base || (const char *)ptr >= heap->base + heap->size)
        return SHOAL_ERR_NOT_FOUND;
    size_t offset = (size_t)((const char *)ptr - heap->base);
    for (const shoal_heap_block_t *b = heap->head; b != NULL; b = b->next) {
        if (offset >= b->offset && offset - b->offset < b->size) {
            if (!b->used)
                return SHOAL_ERR_NOT_FOUND;
            *start_p = heap->base + b->offset;
            *size_p = b->size;
            return SHOAL_OK;
        }
    }
    return SHOAL_ERR_NOT_FOUND;
}

size_t shoal_heap_largest_free(const shoal_heap_t *heap)
{
    size_t largest = 0;
    for (const shoal_heap_block_t *b = heap->head; b != NULL; b = b->next)
        if (!b->used && b->size > largest)
            largest = b->size;
    return largest;
}
