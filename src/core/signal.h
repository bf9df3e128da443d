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

static inline void shoal_signal_check(const char *fn, const uint64_t *sig_addr, int sig_op)
{
    if (SHOAL_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        shoal_signal_bad_op(fn, sig_op);
    if (SHOAL_UNLIKELY(((uintptr_t)sig_addr & 7) != 0))
        shoal_amo_misaligned(fn, sig_addr, sizeof(uint64_t));
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
    shoal_signal_check(fn, sig_addr, sig_op);
    uint64_t *p = shoal_route_ptr(&shoal.route_fast, pe, sig_addr, sizeof(uint64_t));
    if (SHOAL_LIKELY(p != NULL)) {
        shoal_signal_local(p, signal, sig_op);
        return;
    }
    shoal_amo_routed(fn, shoal_signal_amo_op(sig_op), sig_addr, sizeof(uint64_t), &signal, NULL,
                     NULL, pe);
}

/* What the inline lookup did not map (core/signal_route.c): both on
 * another host go to the transport's ordered put-with-signal; data and
 * signal routed differently (one row mapped here, the other not) are
 * ordered here. */
void shoal_put_signal_routed(const char *fn, void *dest, const void *source, size_t len,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi);

static inline void shoal_put_signal(const char *fn, void *dest, const void *source, size_t len,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    int nbi)
{
    shoal_signal_check(fn, sig_addr, sig_op);
    uint64_t *sp = shoal_route_ptr(&shoal.route_fast, pe, sig_addr, sizeof(uint64_t));
    void *dp = len == 0 ? sp : shoal_route_ptr(&shoal.route_fast, pe, dest, len);
    if (SHOAL_LIKELY(sp != NULL && dp != NULL)) {
        if (len > 0)
            memcpy(dp, source, len);
        shoal_signal_local(sp, signal, sig_op);
        return;
    }
    shoal_put_signal_routed(fn, dest, source, len, sig_addr, signal, sig_op, pe, nbi);
}

#endif
