/*
 * Signal updates: the 64-bit signal word at the target is set or added to
 * with release ordering after the data of a put-with-signal, so a PE that
 * sees the signal (acquire) also sees the data. To a PE on another host the
 * data and the signal go to the transport as one ordered operation, with no
 * round trip (transport.h, put_signal).
 */
#ifndef SHOAL_CORE_SIGNAL_H
#define SHOAL_CORE_SIGNAL_H

#include <shmem.h>

#include "core/amo.h"
#include "core/barrier.h"

void shoal_signal_bad_op(const char *fn, int sig_op) __attribute__((cold, noreturn));

/* Routes a signal word: local pointer or (row, offset) in `w`. */
SHOAL_INLINE shoal_route_kind_t shoal_signal_route(const char *fn, uint64_t *sig_addr, int sig_op,
                                                   int pe, shoal_where_t *w)
{
    if (SHOAL_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        shoal_signal_bad_op(fn, sig_op);
    shoal_route_kind_t k = shoal_route_pe(fn, "sig_addr", sig_addr, sizeof(uint64_t), pe, w);
    if (SHOAL_UNLIKELY(((uintptr_t)sig_addr & 7) != 0))
        shoal_amo_misaligned(fn, sig_addr, sizeof(uint64_t));
    return k;
}

SHOAL_INLINE void shoal_signal_local(uint64_t *p, uint64_t signal, int sig_op)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(p, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(p, signal, __ATOMIC_RELEASE);
}

static inline shoal_amo_op_t shoal_signal_amo_op(int sig_op)
{
    return sig_op == SHMEM_SIGNAL_SET ? SHOAL_AMO_SET : SHOAL_AMO_ADD;
}

static inline void shoal_signal_update(const char *fn, uint64_t *sig_addr, uint64_t signal,
                                       int sig_op, int pe)
{
    shoal_where_t w;
    if (SHOAL_LIKELY(shoal_signal_route(fn, sig_addr, sig_op, pe, &w) == SHOAL_ROUTE_LOCAL)) {
        shoal_signal_local(w.ptr, signal, sig_op);
        return;
    }
    shoal_net_amo(fn, shoal_signal_amo_op(sig_op), pe, &w, sizeof(uint64_t), &signal, NULL, NULL);
}

/* Both on another host (rma.c): the transport's ordered put-with-signal. */
void shoal_net_put_signal(const char *fn, int pe, const shoal_where_t *dest, const void *source,
                          size_t len, const shoal_where_t *sig, uint64_t signal, int sig_op,
                          int nbi);

/* Data and signal routed differently (a row mapped here, the other not). */
void shoal_put_signal_mixed(const char *fn, void *dest, const void *source, size_t len,
                            uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi);

static inline void shoal_put_signal(const char *fn, void *dest, const void *source, size_t len,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    int nbi)
{
    shoal_where_t sw, dw;
    shoal_route_kind_t sk = shoal_signal_route(fn, sig_addr, sig_op, pe, &sw);
    shoal_route_kind_t dk =
        len == 0 ? sk : shoal_route_pe(fn, "dest", dest, len, pe, &dw);
    if (SHOAL_LIKELY(sk == SHOAL_ROUTE_LOCAL && dk == SHOAL_ROUTE_LOCAL)) {
        if (len > 0)
            memcpy(dw.ptr, source, len);
        shoal_signal_local(sw.ptr, signal, sig_op);
        return;
    }
    if (sk == SHOAL_ROUTE_NET && dk == SHOAL_ROUTE_NET) {
        shoal_net_put_signal(fn, pe, len == 0 ? &sw : &dw, source, len, &sw, signal, sig_op, nbi);
        return;
    }
    shoal_put_signal_mixed(fn, dest, source, len, sig_addr, signal, sig_op, pe, nbi);
}

#endif
