/*
 * Check mode for the symmetric heap (see core/check.h): every allocation
 * gets a guard zone of at least SHOAL_CHECK_GUARD bytes after its end,
 * filled with a pattern and checked when the block is freed and at
 * shmem_finalize; a freed block is filled with poison and kept back from
 * the allocator (a quarantine of bounded size), and poison that changed is
 * reported when the block leaves the quarantine or at shmem_finalize.
 * Every PE makes the same calls in the same order, so the quarantine keeps
 * the heap's offsets the same on every PE.
 *
 * Called with shoal.lock held (core/alloc.c, shoal_finalize), except
 * shoal_check_heap_access, which any thread's put or get calls: the block
 * lists are also guarded by a read-write lock of their own, so that a put
 * of one thread reads them while another allocates.
 *
 * A put or get is checked at the call against the allocation it lands in.
 * Allocation is collective and every PE makes the same calls in the same
 * order (check mode compares them), so this PE's own table is the target
 * PE's too: the symmetric address, placed in this PE's heap, falls in the
 * block that holds it on every PE.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/check.h"
#include "core/error.h"
#include "core/state.h"

#define GUARD_BYTE 0xfd
#define POISON_BYTE 0xfb
#define QUARANTINE_MAX_BLOCKS 64

typedef struct check_block {
    char *ptr;
    size_t size;    /* what the program asked for */
    size_t span;    /* the heap block: size, guard zone and rounding */
    uint64_t id;    /* the allocation's number on this PE, from 1 */
    const char *fn; /* the call that made it */
    const char *free_fn;
    struct check_block *next;
} check_block_t;

static check_block_t *live;                         /* allocated blocks */
static check_block_t *quarantine, *quarantine_tail; /* freed, oldest first */
static size_t quarantine_blocks, quarantine_bytes;
static uint64_t allocations;
static pthread_rwlock_t lists_lock = PTHREAD_RWLOCK_INITIALIZER;

static size_t heap_offset(const void *p)
{
    return (size_t)((const char *)p - shoal.heap.base);
}

/* The first byte of [p, p + n) that is not `byte`, or n. */
static size_t first_changed(const char *p, size_t n, unsigned char byte)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] != byte)
            return i;
    return n;
}

/* Ends the job for block `b`, written where it should not have been: the
 * message names the block and goes on with what the format says. */
static void __attribute__((noreturn, cold, format(printf, 3, 4)))
block_written(const char *when, const check_block_t *b, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    shoal_fatal("%s (SHOAL_CHECK): the symmetric allocation of %zu bytes at %p (heap offset "
                "%zu, allocation #%llu on this PE, by %s) was written %s",
                when, b->size, (void *)b->ptr, heap_offset(b->ptr), (unsigned long long)b->id,
                b->fn, what);
}

static void check_guard(const char *when, const check_block_t *b)
{
    const size_t guard = b->span - b->size;
    const size_t at = first_changed(b->ptr + b->size, guard, GUARD_BYTE);
    if (at != guard)
        block_written(when, b,
                      "past its end: the byte %zu past the end holds 0x%02x, not the guard "
                      "pattern 0x%02x; this PE or a put from another PE wrote more than the "
                      "allocation holds",
                      at, (unsigned char)b->ptr[b->size + at], GUARD_BYTE);
}

static void check_poison(const char *when, const check_block_t *b)
{
    const size_t at = first_changed(b->ptr, b->span, POISON_BYTE);
    if (at != b->span)
        block_written(when, b,
                      "after %s freed it: byte %zu holds 0x%02x, not the poison 0x%02x; this PE "
                      "or a put from another PE used the memory after it was freed",
                      b->free_fn, at, (unsigned char)b->ptr[at], POISON_BYTE);
}

size_t shoal_check_heap_request(size_t size)
{
    return size + SHOAL_CHECK_GUARD;
}

void shoal_check_heap_allocated(const char *fn, void *ptr, size_t size, size_t span)
{
    check_block_t *b = calloc(1, sizeof(*b));
    if (b == NULL)
        shoal_fatal("%s (SHOAL_CHECK): out of memory for the allocation's record", fn);
    *b = (check_block_t){.ptr = ptr, .size = size, .span = span, .id = ++allocations, .fn = fn};
    memset(b->ptr + size, GUARD_BYTE, span - size);
    pthread_rwlock_wrlock(&lists_lock);
    b->next = live;
    live = b;
    pthread_rwlock_unlock(&lists_lock);
}

size_t shoal_check_heap_size(const void *ptr)
{
    for (const check_block_t *b = live; b != NULL; b = b->next)
        if (b->ptr == ptr)
            return b->size;
    return 0;
}

/* Takes the oldest block out of quarantine, checks it, returns it to the heap. */
static void release_oldest(const char *fn)
{
    pthread_rwlock_wrlock(&lists_lock);
    check_block_t *b = quarantine;
    quarantine = b->next;
    if (quarantine == NULL)
        quarantine_tail = NULL;
    quarantine_blocks--;
    quarantine_bytes -= b->span;
    pthread_rwlock_unlock(&lists_lock);
    check_poison(fn, b);
    shoal_heap_free(&shoal.heap, b->ptr);
    free(b);
}

int shoal_check_heap_drain(const char *fn)
{
    const int any = quarantine != NULL;
    while (quarantine != NULL)
        release_oldest(fn);
    return any;
}

int shoal_check_heap_freed(const char *fn, void *ptr)
{
    pthread_rwlock_wrlock(&lists_lock);
    check_block_t **at = &live;
    while (*at != NULL && (*at)->ptr != ptr)
        at = &(*at)->next;
    check_block_t *b = *at;
    if (b == NULL) {
        pthread_rwlock_unlock(&lists_lock);
        return 0;
    }
    *at = b->next;
    pthread_rwlock_unlock(&lists_lock);
    check_guard(fn, b);
    memset(b->ptr, POISON_BYTE, b->span);
    b->free_fn = fn;
    b->next = NULL;
    pthread_rwlock_wrlock(&lists_lock);
    if (quarantine_tail != NULL)
        quarantine_tail->next = b;
    else
        quarantine = b;
    quarantine_tail = b;
    quarantine_blocks++;
    quarantine_bytes += b->span;
    pthread_rwlock_unlock(&lists_lock);
    while (quarantine_blocks > QUARANTINE_MAX_BLOCKS || quarantine_bytes > shoal.heap.size / 8)
        release_oldest(fn);
    return 1;
}

/* The block of `list` whose span holds p, or NULL. */
static const check_block_t *block_at(const check_block_t *list, const char *p)
{
    for (const check_block_t *b = list; b != NULL; b = b->next)
        if (p >= b->ptr && p < b->ptr + b->span)
            return b;
    return NULL;
}

void shoal_check_heap_access(const char *fn, int is_put, int pe, const void *symmetric, size_t len)
{
    const uintptr_t base = shoal.route.row[SHOAL_ROUTE_HEAP].base;
    const uintptr_t a = (uintptr_t)symmetric;
    if (len == 0 || a < (uintptr_t)shoal.heap.base ||
        a - base >= shoal.route.row[SHOAL_ROUTE_HEAP].size)
        return; /* not in the user heap (globals, Shoal's internal area, GPU memory) */
    const char *p = (const char *)symmetric;
    pthread_rwlock_rdlock(&lists_lock);
    const check_block_t *b = block_at(live, p);
    check_block_t found = {0};
    int freed = 0;
    if (b == NULL && (b = block_at(quarantine, p)) != NULL)
        freed = 1;
    if (b != NULL)
        found = *b;
    pthread_rwlock_unlock(&lists_lock);
    if (b == NULL)
        return;
    const char *verb = is_put ? "writes" : "reads";
    const size_t at = (size_t)(p - found.ptr);
    if (freed)
        shoal_fatal("%s (SHOAL_CHECK): PE %d %s %zu byte%s %s PE %d at heap offset %zu, in the "
                    "symmetric allocation of %zu bytes at heap offset %zu (allocation #%llu, by "
                    "%s), which %s freed: a use after free",
                    fn, SHOAL_MY_PE, verb, len, len == 1 ? "" : "s", is_put ? "to" : "from", pe,
                    heap_offset(p), found.size, heap_offset(found.ptr),
                    (unsigned long long)found.id, found.fn, found.free_fn);
    if (at + len > found.size)
        shoal_fatal("%s (SHOAL_CHECK): PE %d %s %zu byte%s %s PE %d at heap offset %zu, %zu bytes "
                    "past the end of the symmetric allocation of %zu bytes at heap offset %zu "
                    "(allocation #%llu, by %s); from there at most %zu bytes are the "
                    "allocation's",
                    fn, SHOAL_MY_PE, verb, len, len == 1 ? "" : "s", is_put ? "to" : "from", pe,
                    heap_offset(p), at + len - found.size, found.size, heap_offset(found.ptr),
                    (unsigned long long)found.id, found.fn, at < found.size ? found.size - at : 0);
}

void shoal_check_heap_finalize(const char *fn)
{
    pthread_rwlock_wrlock(&lists_lock);
    while (live != NULL) {
        check_block_t *b = live;
        live = b->next;
        check_guard(fn, b);
        free(b);
    }
    while (quarantine != NULL) {
        check_block_t *b = quarantine;
        quarantine = b->next;
        check_poison(fn, b);
        free(b);
    }
    quarantine_tail = NULL;
    quarantine_blocks = quarantine_bytes = 0;
    allocations = 0;
    pthread_rwlock_unlock(&lists_lock);
}
