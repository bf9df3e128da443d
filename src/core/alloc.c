/*
 * Collective symmetric allocation. Every PE runs the same deterministic
 * allocator (mem/heap.c) over the same sequence of calls; a cheap check that
 * every PE passed the same arguments catches programs where they differ,
 * which would otherwise silently give PEs different offsets.
 */
#include <stdio.h>
#include <string.h>

#include <shmem.h>

#include "core/alloc.h"
#include "core/barrier.h"
#include "core/check.h"
#include "core/error.h"
#include "core/mem_rows.h"
#include "core/rma.h"
#include "core/state.h"
#include "device/device_heap.h"
#include "device/view.h"
#include "mem/route_build.h"
#include "util/env.h"
#include "util/log.h"

/* Publishes this call's arguments, waits for every PE to arrive, and compares
 * them with PE 0's. The slots alternate by call parity: PE 0 cannot reach
 * the call after next before every PE has read this one's slot. */
static void check_same_args(const char *fn, uint64_t size, uint64_t align)
{
    shoal_check_coll(fn, &shoal_team_world.set, shoal_team_psync(&shoal_team_world), -1, size,
                     align);
    unsigned slot = shoal.alloc_calls++ & 1;
    shoal.internal->alloc_args[slot][0] = size;
    shoal.internal->alloc_args[slot][1] = align;
    shoal.internal->alloc_args[slot][2] = (uint64_t)shoal_check_on;
    shoal_quiet(fn);
    shoal_sync_world(fn);
    /* Through the core RMA path, so PE 0 may be on another host. */
    uint64_t root[3];
    shoal_get(fn, root, shoal.internal->alloc_args[slot], sizeof(root), 0);
    uint64_t root_size = root[0], root_align = root[1];
    /* Guard zones change the offsets: check mode must be the same everywhere. */
    if (root[2] != (uint64_t)shoal_check_on)
        shoal_fatal("%s: check mode (SHOAL_CHECK or SHMEM_DEBUG) is %s on PE %d but %s on PE 0; "
                    "set it the same way for every PE",
                    fn, shoal_check_on ? "on" : "off", SHOAL_MY_PE, root[2] ? "on" : "off");
    if (root_size != size || root_align != align)
        shoal_fatal("%s: PEs passed different arguments to a collective allocation: PE %d asked "
                    "for %llu bytes (alignment %llu) but PE 0 asked for %llu bytes (alignment "
                    "%llu); every PE must pass the same size",
                    fn, SHOAL_MY_PE, (unsigned long long)size, (unsigned long long)align,
                    (unsigned long long)root_size, (unsigned long long)root_align);
}

/* ---- growth: segments past the first ---- */

/* Growth segments are made in steps of this much at least. */
#define GROW_UNIT ((size_t)2 << 20)

/* This PE's memfd segment and route row behind each heap segment past the
 * first (index: the heap's segment number). */
static struct {
    shoal_segment_t seg;
    int row;
} grown[SHOAL_HEAP_SEGS];

/* The size of the segment that growing by `need` bytes adds: the request,
 * or the heap so far when that is more (so the heap doubles and a run of
 * small allocations grows it a logarithmic number of times), within
 * SHOAL_SYMMETRIC_SIZE_MAX; 0 when the request cannot fit under it. The
 * same on every PE (same heap, same arguments, same settings). */
static size_t grow_size(size_t need)
{
    const shoal_heap_t *h = &shoal.heap;
    const size_t max = shoal_env.symmetric_size_max;
    if (need > max)
        return 0; /* before rounding, which could wrap */
    need = (need + GROW_UNIT - 1) / GROW_UNIT * GROW_UNIT;
    if (need < GROW_UNIT || h->nsegs >= SHOAL_HEAP_SEGS || h->size >= max || need > max - h->size)
        return 0;
    size_t add = h->size > need ? (h->size + GROW_UNIT - 1) / GROW_UNIT * GROW_UNIT : need;
    if (add > max - h->size)
        add = (max - h->size) / GROW_UNIT * GROW_UNIT;
    return add < need ? need : add;
}

/* Collective: adds a segment that can hold `want` bytes at `align` (a
 * segment starts at a multiple of SHOAL_HEAP_SEGMENT_ALIGN, so any allowed
 * alignment costs no room). Every PE takes part even when it cannot make
 * its own part, so all succeed or all return 0. */
static int heap_grow(const char *fn, size_t want)
{
    shoal_heap_t *h = &shoal.heap;
    const size_t add = grow_size(want);
    if (add == 0)
        return 0; /* the same verdict everywhere: nobody takes part */
    shoal_segment_t seg = {NULL, 0, -1};
    char name[32];
    snprintf(name, sizeof(name), "shoal-heap-%u", h->nsegs);
    if (shoal_segment_create(name, add, SHOAL_HEAP_SEGMENT_ALIGN, &seg) != SHOAL_OK)
        seg = (shoal_segment_t){NULL, 0, -1};
    const int row = shoal_rows_add(seg.base, add, seg.fd, SHOAL_MEM_HOST, fn);
    if (row >= 0 && shoal_heap_add_segment(h, seg.base, add) != SHOAL_OK)
        shoal_fatal("%s: out of memory adding a segment to the symmetric heap", fn);
    if (row < 0) {
        shoal_segment_destroy(&seg);
        return 0;
    }
    grown[h->nsegs - 1].seg = seg;
    grown[h->nsegs - 1].row = row;
    SHOAL_DEBUG("%s: the symmetric heap grew by %zu bytes to %zu (%u segments, route row %d)", fn,
                add, h->size, h->nsegs, row);
    return 1;
}

/* Collective (every free is): gives back the segments at the end that hold
 * no allocation, keeping the first. The caller made sure no access to the
 * freed blocks is in flight. */
static void heap_shrink(const char *fn)
{
    shoal_heap_t *h = &shoal.heap;
    while (h->nsegs > 1 && h->seg[h->nsegs - 1].used == 0) {
        const unsigned i = h->nsegs - 1;
        const size_t size = h->seg[i].size;
        shoal_rows_remove(grown[i].row);
        shoal_heap_remove_last_segment(h);
        shoal_segment_destroy(&grown[i].seg);
        grown[i].row = -1;
        SHOAL_DEBUG("%s: gave back a symmetric heap segment of %zu bytes (%zu left, %u segments)",
                    fn, size, h->size, h->nsegs);
    }
}

void shoal_alloc_finalize(void)
{
    /* The transport and the peers' mappings are gone already; only this
     * PE's own segments are left. */
    for (unsigned i = 1; i < SHOAL_HEAP_SEGS; i++) {
        if (grown[i].seg.base == NULL)
            continue;
        shoal_route_set_row(&shoal.route, (unsigned)grown[i].row, NULL, 0, SHOAL_MEM_HOST);
        shoal_segment_destroy(&grown[i].seg);
        grown[i].row = -1;
    }
}

/* Kernels reach the host heap's first segment as far as allocations go
 * (device/view.h): tells the device view how far that is now. */
static void note_heap_top(const char *fn, const void *ptr)
{
    const shoal_route_row_t *row = &shoal.route.row[SHOAL_ROUTE_HEAP];
    const uint64_t off = (uintptr_t)ptr - row->base;
    size_t span = 0;
    if (off < row->size && shoal_heap_block_size(&shoal.heap, ptr, &span) == SHOAL_OK)
        shoal_device_view_heap_top(fn, off + span);
}

/* Gives a block back: in check mode through the quarantine. Fails when ptr
 * is not an allocation (or was freed already). */
static shoal_status_t free_block(const char *fn, void *ptr)
{
    if (shoal_check_on)
        return shoal_check_heap_freed(fn, ptr) ? SHOAL_OK : SHOAL_ERR_NOT_FOUND;
    return shoal_heap_free(&shoal.heap, ptr);
}

void *shoal_alloc_collective(const char *fn, size_t size, size_t align, int zero, void *old)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    size_t old_size = 0;
    if (old != NULL && shoal_heap_block_size(&shoal.heap, old, &old_size) != SHOAL_OK)
        shoal_fatal("%s: ptr %p was not returned by shmem_malloc, shmem_calloc, shmem_align or "
                    "shmem_realloc, or was already freed",
                    fn, old);
    if (old != NULL && shoal_check_on && (old_size = shoal_check_heap_size(old)) == 0)
        shoal_fatal("%s: ptr %p was already freed (SHOAL_CHECK keeps freed blocks back for a "
                    "while, poisoned)",
                    fn, old);
    check_same_args(fn, size, align);

    void *ptr = NULL;
    const size_t want = shoal_check_on && size > 0 ? shoal_check_heap_request(size) : size;
    /* Every PE takes the same path: the same heap, the same arguments. */
    if (size > 0 && shoal_heap_alloc(&shoal.heap, want, align, &ptr) != SHOAL_OK &&
        !(shoal_check_on && shoal_check_heap_drain(fn) &&
          shoal_heap_alloc(&shoal.heap, want, align, &ptr) == SHOAL_OK) &&
        !(heap_grow(fn, want) && shoal_heap_alloc(&shoal.heap, want, align, &ptr) == SHOAL_OK)) {
        ptr = NULL;
        if (SHOAL_MY_PE == 0 || shoal_env.debug)
            SHOAL_WARN("%s: out of symmetric heap: requested %zu bytes, %zu bytes free, largest "
                       "free block %zu bytes, heap %zu bytes in %u segment(s), at most %zu; raise "
                       "SHMEM_SYMMETRIC_SIZE (the initial size) or SHOAL_SYMMETRIC_SIZE_MAX "
                       "(the most it grows to)",
                       fn, size, shoal.heap.size - shoal.heap.used,
                       shoal_heap_largest_free(&shoal.heap), shoal.heap.size, shoal.heap.nsegs,
                       shoal_env.symmetric_size_max > shoal.heap.size ? shoal_env.symmetric_size_max
                                                                      : shoal.heap.size);
    }
    if (ptr != NULL && shoal_check_on) {
        size_t span = 0;
        shoal_heap_block_size(&shoal.heap, ptr, &span);
        shoal_check_heap_allocated(fn, ptr, size, span);
    }
    if (ptr != NULL)
        note_heap_top(fn, ptr);
    if (ptr != NULL && zero)
        memset(ptr, 0, size);
    if (old != NULL && (ptr != NULL || size == 0)) {
        if (ptr != NULL)
            memcpy(ptr, old, old_size < size ? old_size : size);
        free_block(fn, old);
    }
    shoal_quiet(fn);
    shoal_sync_world(fn);
    if (old != NULL)
        heap_shrink(fn); /* after the barrier: nobody reads the old block any more */
    pthread_mutex_unlock(&shoal.lock);
    return ptr;
}

void *shoal_alloc_device_collective(const char *fn, size_t size, size_t align, int device)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    check_same_args(fn, size, align);
    const shoal_device_job_t job = {
        .bs = &shoal.bs, .rt = &shoal.route, .node = shoal.node, .generation = shoal.generation};
    void *ptr = NULL;
    shoal_device_alloc(&job, fn, size, align, device, &ptr);
    shoal_quiet(fn);
    shoal_sync_world(fn);
    pthread_mutex_unlock(&shoal.lock);
    return ptr;
}

/* The device proxy's inbox: collective, under shoal.lock, from the user
 * heap (every PE makes the same call, so the offset is the same). */
static void *proxy_inbox_alloc(size_t size)
{
    void *p = NULL;
    if (shoal_heap_alloc(&shoal.heap, size, 64, &p) != SHOAL_OK)
        return NULL;
    memset(p, 0, size);
    return p;
}

shoal_status_t shoal_device_view_collective(const char *fn, const char *refuse, shmemx_dev_t *d)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    check_same_args(fn, 0, 0);
    const shoal_device_view_job_t vj = {
        .job = {.bs = &shoal.bs,
                .rt = &shoal.route,
                .node = shoal.node,
                .generation = shoal.generation},
        .nslots = shoal_team_slots(shoal_env.teams_max),
        .alloc_host = proxy_inbox_alloc,
        .refuse = refuse,
    };
    shoal_status_t status = shoal_device_view_create(&vj, fn, d);
    shoal_quiet(fn);
    shoal_sync_world(fn);
    pthread_mutex_unlock(&shoal.lock);
    return status;
}

void shoal_alloc_collective_refuse(const char *fn, size_t size, size_t align)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    check_same_args(fn, size, align);
    shoal_quiet(fn);
    shoal_sync_world(fn);
    pthread_mutex_unlock(&shoal.lock);
}

void shoal_free_collective(const char *fn, void *ptr)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    shoal_check_coll(fn, &shoal_team_world.set, shoal_team_psync(&shoal_team_world), -1, 0, 0);
    /* Every PE must be done with the block before anyone may reuse it. */
    shoal_quiet(fn);
    shoal_sync_world(fn);
    if (ptr != NULL && shoal_device_owns(ptr)) {
        if (shoal_device_free(ptr) != SHOAL_OK)
            shoal_fatal("%s: ptr %p is in the device symmetric heap but was not returned by "
                        "shmemx_malloc_device or shmem_malloc_with_hints, or was already freed",
                        fn, ptr);
    } else if (ptr != NULL && free_block(fn, ptr) != SHOAL_OK) {
        shoal_fatal("%s: ptr %p was not returned by shmem_malloc, shmem_calloc, shmem_align or "
                    "shmem_realloc, or was already freed",
                    fn, ptr);
    }
    if (shoal_check_on)
        shoal_sync_world(fn); /* poisoned everywhere before any PE can write into it */
    heap_shrink(fn);
    pthread_mutex_unlock(&shoal.lock);
}

void shoal_alloc_stats(size_t *total_p, size_t *used_p, size_t *largest_free_p)
{
    *total_p = shoal.heap.size;
    *used_p = shoal.heap.used;
    *largest_free_p = shoal_heap_largest_free(&shoal.heap);
}

void shoal_alloc_check_room(const char *fn, const char *arg, const void *p, size_t bytes)
{
    const char *start;
    size_t size;
    pthread_mutex_lock(&shoal.lock);
    shoal_status_t found = shoal_heap_block_around(&shoal.heap, p, &start, &size);
    if (found == SHOAL_OK && shoal_check_on)
        size = shoal_check_heap_size(start); /* the guard zone is not room */
    pthread_mutex_unlock(&shoal.lock);
    if (found != SHOAL_OK || (size_t)((const char *)p - start) >= size)
        return;
    size_t room = size - (size_t)((const char *)p - start);
    if (bytes > room)
        shoal_fatal("%s: %s %p has %zu bytes to the end of its symmetric allocation (%zu bytes "
                    "at %p), but the call writes %zu bytes there; give %s room for %zu bytes",
                    fn, arg, p, room, size, (const void *)start, bytes, arg, bytes);
}
