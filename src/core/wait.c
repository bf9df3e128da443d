/*
 * Waits and tests on local symmetric variables that peers update.
 */
#include <shmem.h>
#include <shmemx_device.h>

#include "core/backoff.h"
#include "core/error.h"
#include "core/flight.h"
#include "core/hang.h"
#include "core/peer.h"
#include "core/state.h"
#include "core/wait.h"
#include "device/device_heap.h"
#include "util/cmp_names.h"

void shoal_check_cmp(const char *fn, int cmp)
{
    if (!shoal_cmp_valid(cmp))
        shoal_fatal("%s: cmp %d is not a comparison; use SHMEM_CMP_EQ, _NE, _GT, _GE, _LT or "
                    "_LE",
                    fn, cmp);
}

static inline uint64_t load_widened(const void *p, shoal_dtype_t dt)
{
    switch (dt.size) {
    case 1: {
        uint8_t v = __atomic_load_n((const uint8_t *)p, __ATOMIC_ACQUIRE);
        return dt.is_signed ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
        return dt.is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
        return dt.is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default:
        return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
    }
}

/* cmp is checked on entry (shoal_check_cmp); the comparison is the one
 * kernels use, so host and device waits agree. */
static inline int compare(int cmp, shoal_dtype_t dt, uint64_t a, uint64_t b)
{
    return shmemx_dev__compare(cmp, dt.is_signed, a, b);
}

/* The host cannot load GPU memory: a wait there ends the job saying so.
 * Only the set waits check (out of line, over a loop); a wait or test on
 * one variable does not, since the check would add 5 instructions to every
 * one of them (callgrind: shmem_long_wait_until 45 -> 50), and on a GPU's
 * address it faults at once. */
static inline void check_host_memory(const char *fn, const char *what, const void *p)
{
    if (__builtin_expect(shoal_device_owns(p), 0))
        shoal_device_unsupported(fn, what, p, SHOAL_MY_PE);
}

int shoal_test_one(const void *ivar, shoal_dtype_t dt, int cmp, uint64_t value)
{
    return compare(cmp, dt, load_widened(ivar, dt), value);
}

/* A wait that is not satisfied at once watches memory that peers must be
 * able to write: symmetric memory of this PE. Else it would wait forever,
 * so the job ends with the data path's message (what is not symmetric and
 * how to make it so). Checked only here, off the path of a wait that is
 * satisfied at once, which the check would lengthen. */
static void check_symmetric(const char *fn, const char *what, const void *p, size_t len)
{
    shoal_where_t w;
    shoal_route_pe(fn, what, p, len, SHOAL_MY_PE, &w);
}

/* Out of line, so that a wait satisfied at once keeps a lean prologue. */
static __attribute__((noinline)) void wait_one_slow(const char *fn, const void *ivar,
                                                    shoal_dtype_t dt, int cmp, uint64_t value)
{
    check_symmetric(fn, "ivar", ivar, dt.size);
    /* What this thread waits for, should it come to yield (hang.h). */
    const shoal_hang_what_t what = {
        .kind = SHOAL_HANG_WAIT, .fn = fn, .addr = ivar, .value = value, .cmp = cmp, .dt = dt};
    shoal_flight_note(SHOAL_FLIGHT_WAIT_ENTER, fn, -1, ivar, load_widened(ivar, dt), value,
                      (unsigned)cmp, dt.size, dt.is_signed);
    shoal_backoff_t b = SHOAL_BACKOFF_FOR(&what);
    uint64_t seen;
    do
        shoal_backoff(&b);
    while (!compare(cmp, dt, seen = load_widened(ivar, dt), value));
    if (b.recorded)
        shoal_hang_leave();
    shoal_flight_note(SHOAL_FLIGHT_WAIT_LEAVE, fn, -1, ivar, seen, value, (unsigned)cmp, dt.size,
                      dt.is_signed);
}

void shoal_wait_one(const char *fn, const void *ivar, shoal_dtype_t dt, int cmp, uint64_t value)
{
    shoal_check_cmp(fn, cmp);
    if (!compare(cmp, dt, load_widened(ivar, dt), value))
        wait_one_slow(fn, ivar, dt, cmp, value);
}

/* Where the next ANY scan of an ivars array starts: one past the index the
 * last call on that array returned. The spec requires that a series of
 * calls eventually returns every index that satisfies the condition;
 * always starting at 0 would return the lowest match forever. The cursor
 * belongs to the array (its address and length), not to the thread: with
 * one cursor per thread, a program that polls two arrays in turn moves it
 * past the first match of one array while scanning the other and can be
 * sent back to the same match every time. A small table per thread keeps
 * the cursors; a program polling more arrays at once than it holds gets a
 * pseudo-random start on a miss, so every match still comes back with
 * probability 1. SOME returns every match, so it needs no cursor. */
#define ANY_CURSORS 8

typedef struct {
    const void *ivars;
    size_t nelems;
    size_t next;
} any_cursor_t;

static _Thread_local any_cursor_t any_cursors[ANY_CURSORS];
static _Thread_local unsigned any_victim; /* the slot a miss takes next */
static _Thread_local uint64_t any_seed;   /* xorshift state for a miss's start */

/* The common case, one array polled again and again, is a hit in the first
 * slots of a table that fits in three cache lines. */
static any_cursor_t *any_cursor(const void *ivars, size_t nelems)
{
    for (unsigned s = 0; s < ANY_CURSORS; s++)
        if (any_cursors[s].ivars == ivars && any_cursors[s].nelems == nelems)
            return &any_cursors[s];
    any_cursor_t *c = &any_cursors[any_victim];
    any_victim = (any_victim + 1) % ANY_CURSORS;
    if (any_seed == 0)
        any_seed = (uintptr_t)&any_seed | 1; /* differs per thread */
    any_seed ^= any_seed << 13;
    any_seed ^= any_seed >> 7;
    any_seed ^= any_seed << 17;
    *c = (any_cursor_t){.ivars = ivars, .nelems = nelems, .next = (size_t)(any_seed % nelems)};
    return c;
}

/* One pass over the set, for ANY starting at index `first` and wrapping.
 * For ALL: returns 1 when every included element matches. For ANY: the first
 * matching index found, or SIZE_MAX. For SOME: the number of matches,
 * written to indices. */
static size_t scan(shoal_wait_mode_t mode, const char *ivars, size_t nelems, size_t first,
                   size_t *indices, const int *status, shoal_dtype_t dt, int cmp, uint64_t value,
                   const char *values)
{
    size_t found = 0;
    for (size_t k = 0; k < nelems; k++) {
        size_t i = first + k < nelems ? first + k : first + k - nelems;
        if (status != NULL && status[i] != 0)
            continue;
        uint64_t v = values ? load_widened(values + i * dt.size, dt) : value;
        int match = compare(cmp, dt, load_widened(ivars + i * dt.size, dt), v);
        if (mode == SHOAL_WAIT_ALL && !match)
            return 0;
        if (mode == SHOAL_WAIT_ANY && match)
            return i;
        if (mode == SHOAL_WAIT_SOME && match)
            indices[found++] = i;
    }
    return mode == SHOAL_WAIT_ALL ? 1 : mode == SHOAL_WAIT_ANY ? SIZE_MAX : found;
}

size_t shoal_wait_set(const char *fn, shoal_wait_mode_t mode, int block, const void *ivars,
                      size_t nelems, size_t *indices, const int *status, shoal_dtype_t dt, int cmp,
                      uint64_t value, const void *values)
{
    shoal_check_cmp(fn, cmp);
    size_t included = 0;
    for (size_t i = 0; i < nelems; i++)
        included += status == NULL || status[i] == 0;
    if (included == 0) /* an empty wait set is satisfied at once */
        return mode == SHOAL_WAIT_ALL ? 1 : mode == SHOAL_WAIT_ANY ? SIZE_MAX : 0;
    if (nelems > 0 && ivars == NULL)
        shoal_fatal("%s: ivars is NULL but nelems is %zu", fn, nelems);
    check_host_memory(fn, "ivars", ivars);
    if (block)
        check_symmetric(fn, "ivars", ivars, nelems * dt.size);
    if (mode == SHOAL_WAIT_SOME && indices == NULL)
        shoal_fatal("%s: indices is NULL; pass an array of nelems (%zu) size_t", fn, nelems);

    /* What this thread waits for, should it come to yield (hang.h). */
    const shoal_hang_what_t what = {.kind = SHOAL_HANG_WAIT_SET,
                                    .fn = fn,
                                    .addr = ivars,
                                    .value = value,
                                    .cmp = cmp,
                                    .dt = dt,
                                    .mode = mode,
                                    .nelems = nelems,
                                    .status = status,
                                    .values = values};
    any_cursor_t *cursor = mode == SHOAL_WAIT_ANY ? any_cursor(ivars, nelems) : NULL;
    const size_t first = cursor ? cursor->next : 0;
    shoal_backoff_t b = SHOAL_BACKOFF_FOR(&what);
    int entered = 0; /* noted in the flight recorder */
    for (;;) {
        size_t r = scan(mode, ivars, nelems, first, indices, status, dt, cmp, value, values);
        int done = mode == SHOAL_WAIT_ALL ? r == 1 : mode == SHOAL_WAIT_ANY ? r != SIZE_MAX : r > 0;
        if (cursor && done)
            cursor->next = r + 1 < nelems ? r + 1 : 0;
        if (done || !block) {
            if (b.recorded)
                shoal_hang_leave();
            if (entered)
                shoal_flight_note(SHOAL_FLIGHT_WAIT_LEAVE, fn, -1, ivars, load_widened(ivars, dt),
                                  value, (unsigned)cmp, dt.size, dt.is_signed);
            return r;
        }
        if (!entered && shoal_flight_on) {
            /* The first element's value; the report reads the others. */
            shoal_flight_record(SHOAL_FLIGHT_WAIT_ENTER, fn, -1, ivars, load_widened(ivars, dt),
                                value, (unsigned)cmp, dt.size, dt.is_signed);
            entered = 1;
        }
        shoal_backoff(&b);
    }
}
