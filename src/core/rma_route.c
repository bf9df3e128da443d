/*
 * The routed path of RMA: every transfer the inline lookup of core/rma.h
 * did not map (local through a row past the inline ones, GPU memory, the
 * network, or the error message), with tracing around it; and strided RMA.
 */
#include "core/check.h"
#include "core/flight.h"
#include "core/rma.h"
#include "core/trace.h"
#include "device/device_heap.h"

/* A local transfer that touches GPU memory (a device heap, or a device
 * buffer of the caller's): the host cannot load or store it, so the copy
 * engine moves it, complete on return. */
void shoal_rma_device_copy(const char *fn, void *dst, const void *src, size_t len)
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
    const shoal_route_kind_t route =
        shoal_route_pe(fn, is_put ? "dest" : "source", is_put ? dest : source, len, pe, &w);
    if (SHOAL_UNLIKELY(shoal_check_on))
        shoal_check_heap_access(fn, is_put, pe, is_put ? dest : source, len);
    if (route == SHOAL_ROUTE_LOCAL) {
        if (SHOAL_UNLIKELY(shoal_check_on))
            shoal_check_overlap(fn, is_put, w.ptr, is_put ? dest : source, is_put ? source : dest,
                                len, pe);
        void *to = is_put ? w.ptr : dest;
        const void *from = is_put ? source : w.ptr;
        if (SHOAL_UNLIKELY(shoal_device_owns(to) || shoal_device_owns(from)))
            shoal_rma_device_copy(fn, to, from, len);
        else
            memcpy(to, from, len);
        return;
    }
    shoal_net_rma(fn, kind, pe, &w, is_put ? (void *)source : dest, len);
}

/* The flight recorder's note of a transfer (core/flight.h): the remote
 * address as this PE names it, and what a put of up to 8 bytes carried. */
static __attribute__((cold, noinline)) void flight_rma(const char *fn, shoal_rma_t kind,
                                                       const void *dest, const void *source,
                                                       size_t len, int pe)
{
    const int is_put = kind == SHOAL_RMA_PUT || kind == SHOAL_RMA_PUT_NBI;
    uint64_t value = 0;
    if (is_put && len <= sizeof(value) && source != NULL)
        memcpy(&value, source, len);
    shoal_flight_record(is_put ? SHOAL_FLIGHT_PUT : SHOAL_FLIGHT_GET, fn, pe,
                        is_put ? dest : source, value, len, (unsigned)kind, 0, 0);
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
        shoal_trace_record(fn, is_put ? SHOAL_TRACE_PUT : SHOAL_TRACE_GET, t0, pe, len,
                           is_put ? dest : source);
    } else {
        rma_routed(fn, kind, dest, source, len, pe);
    }
    if (SHOAL_UNLIKELY(shoal_flight_on))
        flight_rma(fn, kind, dest, source, len, pe);
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
                shoal_rma_device_copy(fn, to, from, block);
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
    shoal_flight_note(to_remote ? SHOAL_FLIGHT_PUT : SHOAL_FLIGHT_GET, fn, pe,
                      (const char *)remote + lo, 0, (uint64_t)(hi - lo), 0, 0, 0);
}
