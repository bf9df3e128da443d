/*
 * The routed path of atomics: every AMO the inline lookup of core/amo.h did
 * not map (local through a row past the inline ones, the network, or the
 * error message), with tracing around it.
 */
#include <shmem.h>

#include "core/amo.h"
#include "core/flight.h"
#include "core/trace.h"
#include "device/device_heap.h"

static void amo_routed(const char *fn, shoal_amo_op_t op, void *dest, size_t size,
                       const void *operand, const void *compare, void *fetch_p, int pe)
{
    shoal_where_t w;
    if (shoal_route_pe(fn, "dest", dest, size, pe, &w) == SHOAL_ROUTE_LOCAL) {
        if (SHOAL_UNLIKELY(shoal_device_owns(w.ptr)))
            shoal_device_unsupported(fn, "dest", dest, pe);
        if (size == 8)
            shoal_amo64(op, w.ptr, operand, compare, fetch_p);
        else
            shoal_amo32(op, w.ptr, operand, compare, fetch_p);
        return;
    }
    shoal_net_amo(fn, op, pe, &w, size, operand, compare, fetch_p);
}

/* The flight recorder's note of an AMO (core/flight.h). A barrier's own
 * adds are not noted: the barrier's entry and exit say more.
 * shmem_signal_set and _add come here as AMOs too; the report tells them by
 * their names (core/hang_flight.c), so that recording reads no string. */
static __attribute__((cold, noinline)) void flight_amo(const char *fn, shoal_amo_op_t op,
                                                       const void *dest, size_t size,
                                                       const void *operand, int pe)
{
    if (op == SHOAL_AMO_SYNC_ADD)
        return;
    uint64_t value = 0;
    if (operand != NULL)
        memcpy(&value, operand, size <= sizeof(value) ? size : sizeof(value));
    shoal_flight_record(SHOAL_FLIGHT_AMO, fn, pe, dest, value, 0, (unsigned)op, (unsigned)size, 0);
}

void shoal_amo_routed(const char *fn, shoal_amo_op_t op, void *dest, size_t size,
                      const void *operand, const void *compare, void *fetch_p, int pe)
{
    if (SHOAL_UNLIKELY(shoal_trace_on) && shoal_trace_enter()) {
        /* shmem_signal_set and _add come here too: they release waits. */
        const int is_signal = strstr(fn, "signal_") != NULL;
        uint64_t t0 = shoal_trace_now();
        amo_routed(fn, op, dest, size, operand, compare, fetch_p, pe);
        shoal_trace_leave();
        shoal_trace_record(fn, is_signal ? SHOAL_TRACE_SIGNAL : SHOAL_TRACE_AMO, t0, pe, size,
                           dest);
    } else {
        amo_routed(fn, op, dest, size, operand, compare, fetch_p, pe);
    }
    if (SHOAL_UNLIKELY(shoal_flight_on))
        flight_amo(fn, op, dest, size, operand, pe);
}

void shoal_amo_misaligned(const char *fn, const void *dest, size_t size)
{
    shoal_fatal("%s: dest %p is not aligned to its %zu-byte type; atomics need naturally "
                "aligned objects",
                fn, dest, size);
}
