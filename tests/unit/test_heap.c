/*
 * Unit tests of the symmetric heap allocator's bookkeeping (mem/heap.c):
 * alignment, no overlap, coalescing, exhaustion and determinism.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem/heap.h"

#include "unit_check.h"

#define HEAP_SIZE (1 << 20)

static void test_alignment_and_overlap(char *base)
{
    shoal_heap_t heap;
    CHECK(shoal_heap_init(&heap, base, HEAP_SIZE) == SHOAL_OK);
    void *p[64];
    size_t sizes[64];
    for (int i = 0; i < 64; i++) {
        sizes[i] = (size_t)(i * 37 % 500) + 1;
        size_t align = (size_t)1 << (i % 12);
        CHECK(shoal_heap_alloc(&heap, sizes[i], align, &p[i]) == SHOAL_OK);
        CHECK(((uintptr_t)p[i] & (align - 1)) == 0);
        CHECK(((uintptr_t)p[i] & (SHOAL_HEAP_MIN_ALIGN - 1)) == 0);
        memset(p[i], i, sizes[i]);
    }
    for (int i = 0; i < 64; i++)
        for (size_t b = 0; b < sizes[i]; b++)
            if (((unsigned char *)p[i])[b] != (unsigned char)i) {
                CHECK(!"allocations overlap");
                break;
            }
    for (int i = 0; i < 64; i += 2)
        CHECK(shoal_heap_free(&heap, p[i]) == SHOAL_OK);
    CHECK(shoal_heap_free(&heap, p[0]) == SHOAL_ERR_NOT_FOUND); /* double free */
    CHECK(shoal_heap_free(&heap, (char *)p[1] + 8) == SHOAL_ERR_NOT_FOUND);
    for (int i = 1; i < 64; i += 2)
        CHECK(shoal_heap_free(&heap, p[i]) == SHOAL_OK);
    CHECK(heap.used == 0);
    CHECK(shoal_heap_largest_free(&heap) == HEAP_SIZE); /* fully coalesced */
    shoal_heap_finalize(&heap);
}

static void test_exhaustion(char *base)
{
    shoal_heap_t heap;
    void *a, *b, *c;
    CHECK(shoal_heap_init(&heap, base, HEAP_SIZE) == SHOAL_OK);
    CHECK(shoal_heap_alloc(&heap, HEAP_SIZE + 1, 0, &a) == SHOAL_ERR_NOMEM);
    CHECK(shoal_heap_alloc(&heap, HEAP_SIZE / 2, 0, &a) == SHOAL_OK);
    CHECK(shoal_heap_alloc(&heap, HEAP_SIZE / 2, 0, &b) == SHOAL_OK);
    CHECK(shoal_heap_alloc(&heap, 1, 0, &c) == SHOAL_ERR_NOMEM);
    CHECK(shoal_heap_free(&heap, a) == SHOAL_OK);
    CHECK(shoal_heap_alloc(&heap, 64, 0, &c) == SHOAL_OK && c == a); /* first fit reuses */
    size_t sz = 0;
    CHECK(shoal_heap_block_size(&heap, c, &sz) == SHOAL_OK && sz == 64);
    shoal_heap_finalize(&heap);
}

/* The same sequence of calls gives the same offsets: what makes the heap symmetric. */
static void test_determinism(char *base1, char *base2)
{
    shoal_heap_t h1, h2;
    CHECK(shoal_heap_init(&h1, base1, HEAP_SIZE) == SHOAL_OK);
    CHECK(shoal_heap_init(&h2, base2, HEAP_SIZE) == SHOAL_OK);
    void *keep1[16], *keep2[16];
    for (int i = 0; i < 200; i++) {
        size_t size = (size_t)(i * 7919 % 3000) + 1;
        void *p1, *p2;
        int ok1 = shoal_heap_alloc(&h1, size, 0, &p1) == SHOAL_OK;
        int ok2 = shoal_heap_alloc(&h2, size, 0, &p2) == SHOAL_OK;
        CHECK(ok1 && ok2);
        CHECK((char *)p1 - base1 == (char *)p2 - base2);
        if (i % 3 == 0) {
            shoal_heap_free(&h1, p1);
            shoal_heap_free(&h2, p2);
        } else {
            keep1[i % 16] = p1;
            keep2[i % 16] = p2;
        }
    }
    (void)keep1;
    (void)keep2;
    shoal_heap_finalize(&h1);
    shoal_heap_finalize(&h2);
}

/* Segments: a request too big for the first lands in a later one, blocks
 * are found and freed in any segment, and an empty last segment goes. */
static void test_segments(char *base1, char *base2)
{
    shoal_heap_t h;
    CHECK(shoal_heap_init(&h, base1, HEAP_SIZE / 4) == SHOAL_OK);
    void *small, *big, *big2, *p;
    CHECK(shoal_heap_alloc(&h, 1000, 0, &small) == SHOAL_OK && (char *)small == base1);
    CHECK(shoal_heap_alloc(&h, HEAP_SIZE / 2, 0, &big) == SHOAL_ERR_NOMEM);
    CHECK(shoal_heap_add_segment(&h, base2, HEAP_SIZE) == SHOAL_OK);
    CHECK(h.nsegs == 2 && h.size == HEAP_SIZE / 4 + HEAP_SIZE);
    CHECK(shoal_heap_alloc(&h, HEAP_SIZE / 2, 0, &big) == SHOAL_OK && (char *)big == base2);
    CHECK(shoal_heap_segment_of(&h, big) == 1 && shoal_heap_segment_of(&h, small) == 0);
    /* first fit: the first segment is searched first */
    CHECK(shoal_heap_alloc(&h, 64, 0, &p) == SHOAL_OK && shoal_heap_segment_of(&h, p) == 0);
    CHECK(shoal_heap_alloc(&h, HEAP_SIZE / 4, 0, &big2) == SHOAL_OK &&
          shoal_heap_segment_of(&h, big2) == 1);
    const char *start;
    size_t size;
    CHECK(shoal_heap_block_around(&h, (char *)big2 + 100, &start, &size) == SHOAL_OK &&
          start == big2 && size == HEAP_SIZE / 4);
    CHECK(shoal_heap_block_size(&h, big, &size) == SHOAL_OK && size == HEAP_SIZE / 2);
    CHECK(h.used == 1024 + 64 + HEAP_SIZE / 2 + HEAP_SIZE / 4 && h.seg[1].used == h.used - 1088);
    CHECK(shoal_heap_free(&h, big) == SHOAL_OK && shoal_heap_free(&h, big2) == SHOAL_OK);
    CHECK(h.seg[1].used == 0 && shoal_heap_largest_free(&h) == HEAP_SIZE);
    shoal_heap_remove_last_segment(&h);
    CHECK(h.nsegs == 1 && h.size == HEAP_SIZE / 4 && h.used == 1088);
    CHECK(shoal_heap_free(&h, big) == SHOAL_ERR_NOT_FOUND); /* gone with its segment */
    CHECK(shoal_heap_free(&h, small) == SHOAL_OK && shoal_heap_free(&h, p) == SHOAL_OK);
    CHECK(h.used == 0 && h.nallocs == 0);
    shoal_heap_finalize(&h);
}

int main(void)
{
    char *base1 = aligned_alloc(4096, HEAP_SIZE), *base2 = aligned_alloc(4096, HEAP_SIZE);
    test_alignment_and_overlap(base1);
    test_exhaustion(base1);
    test_determinism(base1, base2);
    test_segments(base1, base2);
    free(base1);
    free(base2);
    if (failures) {
        fprintf(stderr, "%d heap check(s) failed\n", failures);
        return 1;
    }
    printf("heap unit tests passed\n");
    return 0;
}
