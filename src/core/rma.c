/*
 * The network branch of the data path (what the route table sends to the
 * transport), strided RMA, and the transport's error path.
 */
#include "core/check.h"
#include "core/hang.h"
#include "core/rma.h"
#include "core/trace.h"
#include "device/heap.h"

void shoal_net_fail(const char *fn, shoal_status_t status, int pe)
{
    const char *why =
        shoal_net != NULL ? shoal_transport_strerror(shoal_net) : shoal_status_str(status);
    if (pe >= 0)
        shoal_fatal("%s: the operation with PE %d over %s failed: %s; the job cannot go on "
                    "with that PE",
                    fn, pe, shoal_net ? shoal_transport_name(shoal_net) : "the network", why);
    shoal_fatal("%s: completing this PE's network operations over %s failed: %s; they may not "
                "have reached their targets, so the job cannot go on",
                fn, shoal_net ? shoal_transport_name(shoal_net) : "the network", why);
}

void shoal_net_rma(const char *fn, shoal_rma_t kind, int pe, const shoal_where_t *w, void *local,
                   size_t len)
{
    const int nbi = kind == SHOAL_RMA_PUT_NBI || kind == SHOAL_RMA_GET_NBI;
    shoal_status_t status =
        kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI
            ? shoal_transport_put(shoal_net, pe, shoal_remote_of(w), local, len, nbi)
            : shoal_transport_get(shoal_net, pe, local, shoal_remote_of(w), len, nbi);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

/* A local transfer that touches GPU memory (a device heap, or a device
 * buffer of the caller's): the host cannot load or store it, so the copy
 * engine moves it, complete on return. */
static void device_copy(const char *fn, void *dst, const void *src, size_t len)
{
    char msg[600];
    if (shoal_device_copy(fn, dst, src, len, msg, sizeof(msg)) != SHOAL_OK)
        shoal_fatal("%s", msg);
}

static void rma_routed(const char *fn, shoal_rma_t kind, void *dest, const void *source, size_t len,
                       int pe)
{
    const int is_put = kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI;
    /* The inline path finds a NULL local buffer by its fault (core/fault.c);
     * this path can say so before handing it to a memcpy or the network. */
    if (SHOAL_UNLIKELY((is_put ? source : dest) == NULL))
        shoal_fatal("%s: %s is NULL but the transfer has %zu bytes; pass a pointer to %zu bytes "
                    "of local memory",
                    fn, is_put ? "source" : "dest", len, len);
    shoal_where_t w;
    if (shoal_route_pe(fn, is_put ? "dest" : "source", is_put ? dest : source, len, pe, &w) ==
        SHOAL_ROUTE_LOCAL) {
        if (SHOAL_UNLIKELY(shoal_check_on))
            shoal_check_overlap(fn, is_put, w.ptr, is_put ? dest : source, is_put ? source : dest,
                                len, pe);
        void *to = is_put ? w.ptr : dest;
        const void *from = is_put ? source : w.ptr;
        if (SHOAL_UNLIKELY(shoal_device_owns(to) || shoal_device_owns(from)))
            device_copy(fn, to, from, len);
        else
            memcpy(to, from, len);
        return;
    }
    shoal_net_rma(fn, kind, pe, &w, is_put ? (void *)source : dest, len);
}

/* While tracing or profiling is on, every transfer comes here (the inline
 * lookup reads a table that maps nothing) and is recorded around the real
 * routing; an inner transfer of a recorded routine is not recorded again. */
void shoal_rma_routed(const char *fn, shoal_rma_t kind, void *dest, const void *source, size_t len,
                      int pe)
{
    if (SHOAL_UNLIKELY(shoal_trace_on) && shoal_trace_enter()) {
        const int is_put = kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI;
        uint64_t t0 = shoal_trace_now();
        rma_routed(fn, kind, dest, source, len, pe);
        shoal_trace_leave();
        shoal_trace_record(fn, is_put ? SHOAL_TRACE_PUT : SHOAL_TRACE_GET, t0, pe, len, NULL);
        return;
    }
    rma_routed(fn, kind, dest, source, len, pe);
}

/* Byte range [lo, hi) touched by a strided access with stride `stride` elements. */
static void strided_extent(ptrdiff_t stride, size_t elem, size_t bsize, size_t nblocks,
                           ptrdiff_t *lo_p, ptrdiff_t *hi_p)
{
    ptrdiff_t last = (ptrdiff_t)(nblocks - 1) * stride * (ptrdiff_t)elem;
    ptrdiff_t block = (ptrdiff_t)(bsize * elem);
    *lo_p = last < 0 ? last : 0;
    *hi_p = (last < 0 ? 0 : last) + block;
}

void shoal_strided(const char *fn, int to_remote, void *dest, const void *source, ptrdiff_t dst,
                   ptrdiff_t sst, size_t elem, size_t bsize, size_t nblocks, int pe)
{
    if (nblocks == 0 || bsize == 0)
        return;
    SHOAL_TRACE_SCOPE(fn, to_remote ? SHOAL_TRACE_PUT : SHOAL_TRACE_GET, pe,
                      (uint64_t)nblocks * bsize * elem, NULL);
    const void *remote = to_remote ? dest : source;
    ptrdiff_t rstride = to_remote ? dst : sst;
    ptrdiff_t lo, hi;
    strided_extent(rstride, elem, bsize, nblocks, &lo, &hi);
    shoal_where_t w = {0}; /* (gcc cannot see that a NULL `mapped` means w was set) */
    char *mapped = NULL;
    if (shoal_route_pe(fn, to_remote ? "dest" : "source", (const char *)remote + lo,
                       (size_t)(hi - lo), pe, &w) == SHOAL_ROUTE_LOCAL)
        mapped = w.ptr;
    const size_t block = bsize * elem;
    for (size_t i = 0; i < nblocks; i++) {
        char *d = (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem;
        const char *s = (const char *)source + (ptrdiff_t)i * sst * (ptrdiff_t)elem;
        if (mapped != NULL) {
            char *to = to_remote ? mapped - lo + (d - (char *)dest) : d;
            const char *from = to_remote ? s : mapped - lo + (s - (const char *)source);
            if (SHOAL_UNLIKELY(shoal_device_owns(to) || shoal_device_owns(from)))
                device_copy(fn, to, from, block);
            else
                memcpy(to, from, block);
            continue;
        }
        /* Another host: start every block, then wait for them together. */
        const char *r = to_remote ? d : s;
        shoal_where_t bw = {.row = w.row,
                            .off = w.off + (uint64_t)(r - ((const char *)remote + lo))};
        shoal_net_rma(fn, to_remote ? SHOAL_RMA_PUT_NBI : SHOAL_RMA_GET_NBI, pe, &bw,
                      to_remote ? (void *)s : d, block);
    }
    if (mapped == NULL)
        shoal_net_pe_quiet(fn, &pe, 1);
}

void shoal_net_quiet(const char *fn)
{
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    shoal_status_t status = shoal_transport_quiet(shoal_net);
    shoal_hang_leave();
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, -1);
}

void shoal_net_pe_quiet(const char *fn, const int *pes, size_t npes)
{
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    shoal_status_t status = shoal_transport_pe_quiet(shoal_net, pes, npes);
    shoal_hang_leave();
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, -1);
}

void shoal_net_fence(const char *fn)
{
    shoal_hang_simple(SHOAL_HANG_NET, fn);
    shoal_status_t status = shoal_transport_fence(shoal_net);
    shoal_hang_leave();
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, -1);
}

#include "core/amo.h"

void shoal_net_amo(const char *fn, shoal_amo_op_t op, int pe, const shoal_where_t *w, size_t size,
                   const void *operand, const void *compare, void *fetch_p)
{
    shoal_status_t status =
        shoal_transport_amo(shoal_net, pe, shoal_remote_of(w), op, size, operand, compare, fetch_p);
    if (status != SHOAL_OK)
        shoal_net_fail(fn, status, pe);
}

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
                           is_signal ? dest : NULL);
        return;
    }
    amo_routed(fn, op, dest, size, operand, compare, fetch_p, pe);
}

void shoal_amo_misaligned(const char *fn, const void *dest, size_t size)
{
    shoal_fatal("%s: dest %p is not aligned to its %zu-byte type; atomics need naturally "
                "aligned objects",
                fn, dest, size);
}

#include "core/signal.h"

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
        device_copy(fn, dw.ptr, source, len); /* complete: the signal may follow */
        dk = SHOAL_ROUTE_ERROR;               /* nothing left to move */
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
        return;
    }
    put_signal_routed(fn, dest, source, len, sig_addr, signal, sig_op, pe, nbi);
}
