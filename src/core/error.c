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
#include "transport/transport.h"
#include "util/log.h"
#include "shmemx.h"

shoal_transport_t *shoal_net = NULL;

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

void shoal_require_init(const char *fn)
{
    if (!shoal.initialized)
        shoal_fatal("%s: called %s shmem_init; call shmem_init (or shmem_init_thread) first",
                    fn, shoal.finalized ? "after shmem_finalize and without a new" : "before");
}

/* Works out why (addr, len, pe) cannot be reached, into msg. Returns 0 when it
 * can (mapped here, or symmetric on another host with a network transport
 * present), 1 with the message otherwise. The one place that knows the causes:
 * the data path dies with this message, shmemx_addr_check returns it. */
static int shoal_peer_addr_diagnose(const char *fn, const char *what, const void *addr,
                                    size_t len, int pe, char *msg, size_t size)
{
#define SHOAL_DIAG(...) return snprintf(msg, size, __VA_ARGS__), 1
    if (!shoal.initialized)
        SHOAL_DIAG("%s: called %s shmem_init; call shmem_init (or shmem_init_thread) first", fn,
                   shoal.finalized ? "after shmem_finalize and without a new" : "before");
    if (!shoal_pe_valid(pe))
        SHOAL_DIAG("%s: pe %d is out of range; valid PEs are 0..%d", fn, pe, shoal.npes - 1);

    uintptr_t a = (uintptr_t)addr;
    if (a - shoal.heap_base < shoal.heap_size) {
        size_t past = (size_t)(a + len - (shoal.heap_base + shoal.heap_size));
        if (len > shoal.heap_base + shoal.heap_size - a)
            SHOAL_DIAG("%s: %s %p + %zu bytes runs %zu bytes past the end of the symmetric "
                       "heap; the object is smaller than the transfer",
                       fn, what, addr, len, past);
    } else if (a - shoal.data_base < shoal.data_size) {
        if (len > shoal.data_base + shoal.data_size - a)
            SHOAL_DIAG("%s: %s %p + %zu bytes runs past the end of the program's symmetric "
                       "global data",
                       fn, what, addr, len);
        if (shoal.peers[pe].base[SHOAL_SEGMENT_DATA] == NULL && shoal_net == NULL)
            SHOAL_DIAG("%s: %s %p is a global variable, but PE %d runs a different "
                       "executable, so globals are not symmetric with it",
                       fn, what, addr, pe);
    } else {
        SHOAL_DIAG("%s: %s %p is not a symmetric address (neither in the symmetric heap nor a "
                   "global or static variable); allocate it with shmem_malloc or make it "
                   "global or static",
                   fn, what, addr);
    }
    if (shoal_net != NULL || shoal_peer_addr(addr, len, pe) != NULL)
        return 0; /* mapped, or symmetric on another host: the transport carries it */
    SHOAL_DIAG("%s: PE %d is not reachable from PE %d (no shared memory mapping and no network "
               "transport)",
               fn, pe, shoal.my_pe);
#undef SHOAL_DIAG
}

void *shoal_peer_addr_fail(const char *fn, const char *what, const void *addr, size_t len,
                           int pe)
{
    char msg[1024];
    if (shoal_peer_addr_diagnose(fn, what, addr, len, pe, msg, sizeof(msg)))
        shoal_fatal("%s", msg);
    return NULL; /* symmetric, on another host: the caller uses the transport */
}

int shmemx_addr_check(const char *fn, const char *what, const void *addr, size_t len, int pe,
                      char *msg, size_t msglen)
{
    char buf[1024];
    if (!shoal_peer_addr_diagnose(fn != NULL ? fn : "shmemx_addr_check",
                                  what != NULL ? what : "addr", addr, len, pe, buf, sizeof(buf)))
        return 0;
    if (msg != NULL && msglen > 0)
        snprintf(msg, msglen, "%s", buf);
    return -1;
}
