/*
 * Signal updates: the 64-bit signal word at the target is set or added to
 * with release ordering after the data of a put-with-signal, so a PE that
 * sees the signal (acquire) also sees the data.
 */
#ifndef SHOAL_CORE_SIGNAL_H
#define SHOAL_CORE_SIGNAL_H

#include <shmem.h>

#include "core/amo.h"
#include "core/barrier.h"

void shoal_signal_bad_op(const char *fn, int sig_op) __attribute__((cold, noreturn));

static inline void shoal_signal_update(const char *fn, uint64_t *sig_addr, uint64_t signal,
                                       int sig_op, int pe)
{
    if (SHOAL_UNLIKELY(sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD))
        shoal_signal_bad_op(fn, sig_op);
    uint64_t *p = shoal_peer_addr_or_fail(fn, "sig_addr", sig_addr, sizeof(uint64_t), pe);
    if (SHOAL_UNLIKELY(((uintptr_t)sig_addr & 7) != 0))
        shoal_amo_misaligned(fn, sig_addr, sizeof(uint64_t));
    if (SHOAL_LIKELY(p != NULL)) {
        if (sig_op == SHMEM_SIGNAL_SET)
            __atomic_store_n(p, signal, __ATOMIC_RELEASE);
        else
            __atomic_fetch_add(p, signal, __ATOMIC_RELEASE);
        return;
    }
    uint64_t ignored;
    shoal_fence(); /* the data goes first */
    shoal_amo(fn, sig_op == SHMEM_SIGNAL_SET ? SHOAL_AMO_SET : SHOAL_AMO_ADD, sig_addr, 8, &signal,
              NULL, &ignored, pe);
}

static inline void shoal_put_signal(const char *fn, void *dest, const void *source, size_t len,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    shoal_put(fn, dest, source, len, pe);
    shoal_signal_update(fn, sig_addr, signal, sig_op, pe);
}

#endif
