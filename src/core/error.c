/*
 * The error paths of the data path, kept out of line so the fast path stays
 * small: they work out what exactly was wrong and say so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/error.h"
#include "core/peer.h"
#include "device/device_heap.h"
#include "util/log.h"
#include "shmemx.h"

void shoal_fatal(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    SHOAL_ERROR("%s", msg);
    if (shoal.bs.ops != NULL)
        shoal.bs.ops->abort(&shoal.bs, 1, NULL);
    _exit(1);
}

void shoal_device_unsupported(const char *fn, const char *what, const void *addr, int pe)
{
    shoal_fatal("%s: %s %p is in PE %d's device symmetric heap; host code can put to and get "
                "from GPU memory, but host atomics, signals and waits on it need device-side "
                "calls (a kernel using <shmemx_device.h>); keep words the host updates in host "
                "symmetric memory",
                fn, what, addr, pe);
}

void shoal_require_init(const char *fn)
{
    if (!shoal.initialized)
        shoal_fatal("%s: called %s shmem_init; call shmem_init (or shmem_init_thread) first", fn,
                    shoal.finalized ? "after shmem_finalize and without a new" : "before");
}

const char *shoal_route_row_name(unsigned row)
{
    switch (row) {
    case SHOAL_ROUTE_HEAP:
        return "the symmetric heap";
    case SHOAL_ROUTE_GLOBALS:
        return "the program's symmetric global data";
    case SHOAL_ROUTE_DEVICE:
        return "the device symmetric heap";
    default:
        return "symmetric memory (a heap segment added as the heap grew, or a registered buffer)";
    }
}

/* Works out why (addr, len, pe) cannot be reached, into msg. Returns 0 when
 * it can (the route table maps it here or sends it to the network), 1 with
 * the message otherwise. The one place that knows the causes: the data path
 * dies with this message, shoal_route_check (shmemx_addr_check) returns it. */
static int route_diagnose(const char *fn, const char *what, const void *addr, size_t len, int pe,
                          char *msg, size_t size)
{
#define SHOAL_DIAG(...) return snprintf(msg, size, __VA_ARGS__), 1
    const shoal_route_t *rt = &shoal.route;
    if (!shoal.initialized)
        SHOAL_DIAG("%s: called %s shmem_init; call shmem_init (or shmem_init_thread) first", fn,
                   shoal.finalized ? "after shmem_finalize and without a new" : "before");
    if (!shoal_pe_valid(pe))
        SHOAL_DIAG("%s: pe %d is out of range; valid PEs are 0..%d", fn, pe, SHOAL_NPES - 1);
    shoal_where_t w;
    if (shoal_route_find(rt, pe, addr, len, &w) != SHOAL_ROUTE_ERROR)
        return 0;
    uint64_t off;
    const int r = shoal_route_row_of(rt->row, rt->nrows, addr, &off);
    if (r < 0)
        SHOAL_DIAG("%s: %s %p is not a symmetric address (neither in the symmetric heap nor a "
                   "global or static variable); allocate it with shmem_malloc or make it "
                   "global or static",
                   fn, what, addr);
    const uint64_t rsize = rt->row[r].size;
    if (len > rsize - off) {
        if (r == SHOAL_ROUTE_HEAP)
            SHOAL_DIAG("%s: %s %p + %zu bytes runs %zu bytes past the end of the symmetric "
                       "heap; the object is smaller than the transfer",
                       fn, what, addr, len, (size_t)(off + len - rsize));
        SHOAL_DIAG("%s: %s %p + %zu bytes runs past the end of %s", fn, what, addr, len,
                   shoal_route_row_name((unsigned)r));
    }
    if (r == SHOAL_ROUTE_GLOBALS && !rt->net)
        SHOAL_DIAG("%s: %s %p is a global variable, but PE %d runs a different executable, so "
                   "globals are not symmetric with it",
                   fn, what, addr, pe);
    if (r == SHOAL_ROUTE_DEVICE)
        SHOAL_DIAG("%s: %s %p is in the device symmetric heap, and PE %d is on another host: "
                   "only the PEs of one host reach each other's device heaps so far (no network "
                   "transport with GPU support is built yet)",
                   fn, what, addr, pe);
    SHOAL_DIAG("%s: PE %d is not reachable from PE %d (no shared memory mapping and no network "
               "transport)",
               fn, pe, SHOAL_MY_PE);
#undef SHOAL_DIAG
}

void shoal_route_fail(const char *fn, const char *what, const void *addr, size_t len, int pe)
{
    char msg[1024];
    if (!route_diagnose(fn, what, addr, len, pe, msg, sizeof(msg)))
        snprintf(msg, sizeof(msg),
                 "%s: internal error: %s %p (%zu bytes) on PE %d routes, but "
                 "the data path found no route",
                 fn, what, addr, len, pe);
    shoal_fatal("%s", msg);
}

int shoal_route_check(const char *fn, const char *what, const void *addr, size_t len, int pe,
                      char *msg, size_t msglen)
{
    char buf[1024];
    if (!route_diagnose(fn != NULL ? fn : "shmemx_addr_check", what != NULL ? what : "addr", addr,
                        len, pe, buf, sizeof(buf)))
        return 0;
    if (msg != NULL && msglen > 0)
        snprintf(msg, msglen, "%s", buf);
    return -1;
}
