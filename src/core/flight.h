/*
 * The flight recorder (SHOAL_FLIGHT=1): each PE keeps the last
 * SHOAL_FLIGHT_EVENTS one-sided events it issued, in a ring in its internal
 * heap area next to its hang records, so that the hang report of any PE of
 * the host reads every PE's ring through the mappings it already has. An
 * event is a put, get or AMO with its target PE and address, a signal sent
 * (put-with-signal, shmem_signal_set/add) with its value, a wait entered and
 * left with the value seen, or a barrier entered and left with this PE's
 * barrier count. What a PE received is read from the senders' rings: the
 * report gathers, for a waiting PE, the events of every PE of its host
 * that targeted the address it waits on (hang_flight.c).
 *
 * Off, it costs the fast path nothing; on, it takes the route tracing and
 * check mode take (core/trace.h): shoal.route_fast maps nothing, every RMA,
 * AMO and signal goes through the routed path (rma_route.c, amo_route.c,
 * signal_route.c), which records it after the transfer. Waits record only
 * once they fail their first check (a wait satisfied at once never hangs).
 * The cost per operation is in docs/debugging.md.
 */
#ifndef SHOAL_CORE_FLIGHT_H
#define SHOAL_CORE_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    SHOAL_FLIGHT_NONE = 0,
    SHOAL_FLIGHT_PUT,    /* addr: dest (the issuer's name for it); arg: bytes */
    SHOAL_FLIGHT_GET,    /* addr: source; arg: bytes */
    SHOAL_FLIGHT_AMO,    /* addr: dest; value: the operand; op: shoal_amo_op_t */
    SHOAL_FLIGHT_SIGNAL, /* addr: sig_addr; value: the signal; arg: data bytes; op: SHMEM_SIGNAL_*
                          */
    SHOAL_FLIGHT_WAIT_ENTER,    /* addr: ivar(s); value: seen; arg: compared with; op: cmp */
    SHOAL_FLIGHT_WAIT_LEAVE,    /* addr: ivar(s); value: seen */
    SHOAL_FLIGHT_BARRIER_ENTER, /* addr: psync; value: this PE's barrier count; arg: PEs in the set
                                 */
    SHOAL_FLIGHT_BARRIER_LEAVE, /* the same */
} shoal_flight_kind_t;

/* One event; seq is the event's index + 1 once it is whole, 0 while it is
 * being written (a reader copies it and checks seq before and after). The
 * routine's name is not copied: every name the library records is a string
 * of libshoal's own (an API routine's __func__ or a literal of core or
 * coll), at the same offset from any symbol of libshoal in every process
 * that loaded it, so an event keeps that offset (shoal_flight_fn_name). */
typedef struct {
    uint64_t seq;
    uint64_t t_ns; /* CLOCK_MONOTONIC (util/clock.h): one clock for the host */
    uint64_t addr;
    uint64_t value;
    uint64_t arg;
    int64_t fn_off; /* the routine's name, from the anchor of flight.c */
    int32_t pe;     /* the target PE, or -1 */
    uint8_t kind, op, size, is_signed;
    uint64_t pad;
} shoal_flight_ev_t;
_Static_assert(sizeof(shoal_flight_ev_t) == 64, "a flight event is one cache line");

/* The ring: written by every thread of its PE (head is taken with an
 * atomic add), read by any PE of the host. */
typedef struct {
    uint64_t head; /* events written so far */
    uint32_t cap;  /* a power of two */
    uint32_t ev_size;
    uint64_t pad[6];
    shoal_flight_ev_t ev[];
} shoal_flight_ring_t;

/* Nonzero while the recorder is on (from shmem_init to finalize). Read off
 * the fast path only. */
extern int shoal_flight_on;

/* Bytes the ring needs in the internal area under the current settings
 * (0 when off); shmem_init adds them to the area before the heap is made. */
size_t shoal_flight_bytes(void);

/* Places this PE's ring `off` bytes into its internal area and turns the
 * recorder on when the settings say so; returns `off`, or 0 when it stays
 * off (core/hang.c publishes it with the hang records). */
uint64_t shoal_flight_start(uint64_t off);
void shoal_flight_stop(void);

/* Records one event (the hooks test shoal_flight_on first). */
void shoal_flight_record(shoal_flight_kind_t kind, const char *fn, int pe, const void *addr,
                         uint64_t value, uint64_t arg, unsigned op, unsigned size, int is_signed)
    __attribute__((cold));

static inline void shoal_flight_note(shoal_flight_kind_t kind, const char *fn, int pe,
                                     const void *addr, uint64_t value, uint64_t arg, unsigned op,
                                     unsigned size, int is_signed)
{
    if (__builtin_expect(shoal_flight_on, 0))
        shoal_flight_record(kind, fn, pe, addr, value, arg, op, size, is_signed);
}

/* PE `pe`'s ring as mapped here (NULL: none, or on another host). */
const shoal_flight_ring_t *shoal_flight_ring_of(int pe);

/* The routine's name of an event ("shmem_long_put_signal"), or "?" when
 * its offset does not land on a string of libshoal here. */
const char *shoal_flight_fn_name(const shoal_flight_ev_t *e);

/* A consistent copy of event number `idx` of `ring` (0), or -1 when it has
 * been overwritten or is being written. */
int shoal_flight_read(const shoal_flight_ring_t *ring, uint64_t idx, shoal_flight_ev_t *copy);

#endif
