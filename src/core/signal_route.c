/*
 * The routed path of put-with-signal: data and signal each routed (local,
 * GPU memory or the network), the data ordered before the signal, as one
 * transport call when both go over the network; with tracing around it.
 */
#include "core/flight.h"
#include "core/signal.h"
#include "core/trace.h"
#include "device/device_heap.h"

static void put_signal_routed(const char *fn, void *dest, const void *source, size_t len,
                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi)
{
    shoal_where_t dw, sw;
    shoal_route_kind_t sk = shoal_route_pe(fn, "sig_addr", sig_addr, sizeof(uint64_t), pe, &sw);
    shoal_route_kind_t dk = len == 0 ? sk : shoal_route_pe(fn, "dest", dest, len, pe, &dw);
    if (SHOAL_UNLIKELY(sk == SHOAL_ROUTE_LOCAL && shoal_device_owns(sw.ptr)))
        shoal_device_unsupported(fn, "sig_addr", sig_addr, pe);
    if (SHOAL_UNLIKELY(len > 0 && dk == SHOAL_ROUTE_LOCAL &&
                       (shoal_device_owns(dw.ptr) || shoal_device_owns(source)))) {
        shoal_rma_device_copy(fn, dw.ptr, source, len); /* complete: the signal may follow */
        dk = SHOAL_ROUTE_ERROR;                         /* nothing left to move */
    }
    if (sk == SHOAL_ROUTE_NET && dk == SHOAL_ROUTE_NET) {
        shoal_status_t status = shoal_transport_put_signal(
            shoal_net, pe, shoal_remote_of(len == 0 ? &sw : &dw), source, len, shoal_remote_of(&sw),
            signal, shoal_signal_amo_op(sig_op), nbi);
        if (status != SHOAL_OK)
            shoal_net_fail(fn, status, pe);
        return;
    }
    if (len > 0 && dk == SHOAL_ROUTE_LOCAL) {
        memcpy(dw.ptr, source, len);
        __atomic_thread_fence(__ATOMIC_RELEASE); /* the data before the signal */
    } else if (len > 0 && dk == SHOAL_ROUTE_NET) {
        /* Over the network, while the signal is a local store: the data
         * must have landed before the signal can be seen. */
        shoal_net_rma(fn, nbi ? SHOAL_RMA_PUT_NBI : SHOAL_RMA_PUT, pe, &dw, (void *)source, len);
        shoal_net_pe_quiet(fn, &pe, 1);
    }
    if (sk == SHOAL_ROUTE_LOCAL)
        shoal_signal_local(sw.ptr, signal, sig_op);
    else
        shoal_net_amo(fn, shoal_signal_amo_op(sig_op), pe, &sw, sizeof(uint64_t), &signal, NULL,
                      NULL);
}

void shoal_put_signal_routed(const char *fn, void *dest, const void *source, size_t len,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi)
{
    if (SHOAL_UNLIKELY(shoal_trace_on) && shoal_trace_enter()) {
        uint64_t t0 = shoal_trace_now();
        put_signal_routed(fn, dest, source, len, sig_addr, signal, sig_op, pe, nbi);
        shoal_trace_leave();
        shoal_trace_record(fn, SHOAL_TRACE_SIGNAL, t0, pe, len, sig_addr);
    } else {
        put_signal_routed(fn, dest, source, len, sig_addr, signal, sig_op, pe, nbi);
    }
    shoal_flight_note(SHOAL_FLIGHT_SIGNAL, fn, pe, sig_addr, signal, len, (unsigned)sig_op, 8, 0);
}
