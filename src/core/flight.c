/*
 * The flight recorder's ring (see flight.h): placing it, writing an event,
 * reading one back consistently from any process of the host.
 *
 * A writer takes the next index with one atomic add, marks the slot as
 * being written (seq 0), stores the event's words and then seq = index + 1
 * with release order. A reader copies the slot's words and keeps the copy
 * only when seq was index + 1 before and after; a slot overwritten by a
 * later lap, or caught half-written, is skipped. Words are stored and
 * loaded with relaxed atomics (plain moves on x86), so a report made on
 * the watchdog thread while the program's threads record is not a data
 * race.
 */
#include <dlfcn.h>
#include <string.h>

#include "core/flight.h"
#include "core/state.h"
#include "util/clock.h"
#include "util/env.h"

int shoal_flight_on;

static shoal_flight_ring_t *ring; /* this PE's, while on */

/* The ring's capacity under the settings: SHOAL_FLIGHT_EVENTS rounded up to
 * a power of two (so that an index maps to its slot with a mask), at least
 * 16, at most 2^20. */
static uint32_t capacity(void)
{
    uint32_t want = shoal_env.flight_events, cap = 16;
    if (want > (1u << 20))
        want = 1u << 20;
    while (cap < want)
        cap <<= 1;
    return cap;
}

size_t shoal_flight_bytes(void)
{
    if (!shoal_env.flight || shoal_env.flight_events == 0)
        return 0;
    size_t bytes = sizeof(shoal_flight_ring_t) + (size_t)capacity() * sizeof(shoal_flight_ev_t);
    return (bytes + 65535) & ~(size_t)65535;
}

uint64_t shoal_flight_start(uint64_t off)
{
    shoal_flight_on = 0;
    ring = NULL;
    if (shoal_flight_bytes() == 0 || shoal.internal == NULL ||
        off + shoal_flight_bytes() > shoal.internal_size)
        return 0;
    ring = (shoal_flight_ring_t *)((char *)shoal.internal + off);
    memset(ring, 0, sizeof(*ring) + (size_t)capacity() * sizeof(shoal_flight_ev_t));
    ring->cap = capacity();
    ring->ev_size = sizeof(shoal_flight_ev_t);
    __atomic_store_n(&shoal_flight_on, 1, __ATOMIC_RELEASE);
    return off;
}

void shoal_flight_stop(void)
{
    __atomic_store_n(&shoal_flight_on, 0, __ATOMIC_RELAXED);
    ring = NULL;
}

/* What event names are counted from: a string of libshoal's read-only data,
 * like the names themselves. */
static const char anchor[] = "shoal flight recorder";

void shoal_flight_record(shoal_flight_kind_t kind, const char *fn, int pe, const void *addr,
                         uint64_t value, uint64_t arg, unsigned op, unsigned size, int is_signed)
{
    shoal_flight_ring_t *r = ring;
    if (r == NULL)
        return;
    const uint64_t t = shoal_clock_ns();
    const uint64_t idx = __atomic_fetch_add(&r->head, 1, __ATOMIC_RELAXED);
    shoal_flight_ev_t *e = &r->ev[idx & (r->cap - 1)];
    __atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&e->t_ns, t, __ATOMIC_RELAXED);
    __atomic_store_n(&e->addr, (uintptr_t)addr, __ATOMIC_RELAXED);
    __atomic_store_n(&e->value, value, __ATOMIC_RELAXED);
    __atomic_store_n(&e->arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&e->fn_off, (int64_t)((uintptr_t)fn - (uintptr_t)anchor), __ATOMIC_RELAXED);
    /* pe, kind, op, size and is_signed: one 8-byte word. */
    const uint64_t packed = (uint64_t)(uint32_t)pe | (uint64_t)(kind & 0xff) << 32 |
                            (uint64_t)(op & 0xff) << 40 | (uint64_t)(size & 0xff) << 48 |
                            (uint64_t)(is_signed != 0) << 56;
    __atomic_store_n((uint64_t *)&e->pe, packed, __ATOMIC_RELAXED);
    __atomic_store_n(&e->seq, idx + 1, __ATOMIC_RELEASE);
}

const char *shoal_flight_fn_name(const shoal_flight_ev_t *e)
{
    static Dl_info mine;
    static int looked;
    if (!looked) {
        if (dladdr(anchor, &mine) == 0)
            mine.dli_fbase = NULL;
        looked = 1;
    }
    const char *p = (const char *)((uintptr_t)anchor + (uintptr_t)e->fn_off);
    Dl_info at;
    if (mine.dli_fbase == NULL || dladdr(p, &at) == 0 || at.dli_fbase != mine.dli_fbase)
        return "?";
    /* A name is short; one that runs on is not a name. */
    for (int i = 0; i < 80; i++)
        if (p[i] == '\0')
            return strncmp(p, "pshmem_", 7) == 0 ? p + 1 : p;
    return "?";
}

const shoal_flight_ring_t *shoal_flight_ring_of(int pe)
{
    shoal_hang_pe_t *h = shoal_hang_pe(pe);
    if (h == NULL)
        return NULL;
    uint64_t off = __atomic_load_n(&h->flight_off, __ATOMIC_ACQUIRE);
    if (off == 0 || off + sizeof(shoal_flight_ring_t) > shoal.internal_size)
        return NULL;
    const shoal_flight_ring_t *r =
        (const shoal_flight_ring_t *)((const char *)h - offsetof(shoal_internal_t, hang) + off);
    uint32_t cap = __atomic_load_n(&r->cap, __ATOMIC_RELAXED);
    if (cap == 0 || (cap & (cap - 1)) != 0 || r->ev_size != sizeof(shoal_flight_ev_t) ||
        off + sizeof(*r) + (uint64_t)cap * sizeof(shoal_flight_ev_t) > shoal.internal_size)
        return NULL; /* not placed yet, or another build's layout */
    return r;
}

int shoal_flight_read(const shoal_flight_ring_t *r, uint64_t idx, shoal_flight_ev_t *copy)
{
    const shoal_flight_ev_t *slot = &r->ev[idx & (r->cap - 1)];
    uint64_t seq = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE);
    if (seq != idx + 1)
        return -1;
    const uint64_t *from = (const uint64_t *)slot;
    uint64_t *to = (uint64_t *)copy;
    for (size_t i = 0; i < sizeof(*copy) / sizeof(uint64_t); i++)
        to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != seq)
        return -1;
    return 0;
}
