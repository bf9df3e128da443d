/*
 * Put-with-signal, signal updates and signal waits.
 */
#include <shmem.h>

#include "api/api.h"
#include "core/barrier.h"
#include "core/signal.h"
#include "core/team.h"
#include "core/wait.h"

void shoal_signal_bad_op(const char *fn, int sig_op)
{
    shoal_fatal("%s: sig_op %d is not a signal operation; use SHMEM_SIGNAL_SET or "
                "SHMEM_SIGNAL_ADD",
                fn, sig_op);
}

/* NAME(suffix) spells the routine; ELEM is the element size. */
/* NBI: 1 for the _nbi forms (the source may not be reused before quiet). */
#define SHOAL_DEF_PUT_SIGNAL_OPS(NAME, CTXNAME, TYPE, ELEM, NBI)                                   \
    SHOAL_API_DEF(void, NAME)                                                                      \
    (TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,          \
     int sig_op, int pe)                                                                           \
    {                                                                                              \
        shoal_put_signal(SHOAL_FN, dest, source, nelems *(ELEM), sig_addr, signal, sig_op, pe,     \
                         NBI);                                                                     \
    }                                                                                              \
    SHOAL_API_DEF(void, CTXNAME)                                                                   \
    (shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,          \
     uint64_t signal, int sig_op, int pe)                                                          \
    {                                                                                              \
        shoal_put_signal(SHOAL_FN, dest, source, nelems *(ELEM), sig_addr, signal, sig_op,         \
                         SHOAL_CTX_PE(ctx, pe), NBI);                                              \
    }

#define SHOAL_DEF_PUT_SIGNAL_TYPED(TYPE, NAME, ...)                                                \
    SHOAL_DEF_PUT_SIGNAL_OPS(shmem_##NAME##_put_signal, shmem_ctx_##NAME##_put_signal, TYPE,       \
                             sizeof(TYPE), 0)                                                      \
    SHOAL_DEF_PUT_SIGNAL_OPS(shmem_##NAME##_put_signal_nbi, shmem_ctx_##NAME##_put_signal_nbi,     \
                             TYPE, sizeof(TYPE), 1)
SHMEM_RMA_TYPES(SHOAL_DEF_PUT_SIGNAL_TYPED, unused)

#define SHOAL_DEF_PUT_SIGNAL_SIZED(BITS, ELEM)                                                     \
    SHOAL_DEF_PUT_SIGNAL_OPS(shmem_put##BITS##_signal, shmem_ctx_put##BITS##_signal, void, ELEM,   \
                             0)                                                                    \
    SHOAL_DEF_PUT_SIGNAL_OPS(shmem_put##BITS##_signal_nbi, shmem_ctx_put##BITS##_signal_nbi, void, \
                             ELEM, 1)
SHOAL_DEF_PUT_SIGNAL_SIZED(8, 1)
SHOAL_DEF_PUT_SIGNAL_SIZED(16, 2)
SHOAL_DEF_PUT_SIGNAL_SIZED(32, 4)
SHOAL_DEF_PUT_SIGNAL_SIZED(64, 8)
SHOAL_DEF_PUT_SIGNAL_SIZED(128, 16)
SHOAL_DEF_PUT_SIGNAL_SIZED(mem, 1)

SHOAL_API_DEF(uint64_t, shmem_signal_fetch)(const uint64_t *sig_addr)
{
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

SHOAL_API_DEF(void, shmem_signal_add)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shoal_signal_update(SHOAL_FN, sig_addr, signal, SHMEM_SIGNAL_ADD, pe);
}

SHOAL_API_DEF(void, shmem_ctx_signal_add)
(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shoal_signal_update(SHOAL_FN, sig_addr, signal, SHMEM_SIGNAL_ADD, SHOAL_CTX_PE(ctx, pe));
}

SHOAL_API_DEF(void, shmem_signal_set)(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shoal_signal_update(SHOAL_FN, sig_addr, signal, SHMEM_SIGNAL_SET, pe);
}

SHOAL_API_DEF(void, shmem_ctx_signal_set)
(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shoal_signal_update(SHOAL_FN, sig_addr, signal, SHMEM_SIGNAL_SET, SHOAL_CTX_PE(ctx, pe));
}

SHOAL_API_DEF(uint64_t, shmem_signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    if (SHOAL_UNLIKELY(shoal_trace_on))
        shoal_trace_wait_one(SHOAL_FN, sig_addr, SHOAL_DTYPE_OF(uint64_t), cmp, cmp_value);
    else
        shoal_wait_one(SHOAL_FN, sig_addr, SHOAL_DTYPE_OF(uint64_t), cmp, cmp_value);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
