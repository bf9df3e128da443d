/*
 * The untyped AMO core. Every typed atomic routine passes its operands by
 * address with their size (4 or 8 bytes); signed, unsigned and floating
 * types share the same integer atomics (two's complement, bit copies).
 * To a mapped peer an AMO is one CPU atomic instruction on the translated
 * pointer, so it is atomic with respect to every other PE's AMOs.
 */
#ifndef SHOAL_CORE_AMO_H
#define SHOAL_CORE_AMO_H

#include <string.h>

#include "core/rma.h"

void shoal_amo_misaligned(const char *fn, const void *dest, size_t size)
    __attribute__((cold, noreturn));

#define SHOAL_AMO_IMPL(BITS)                                                                       \
    SHOAL_INLINE void shoal_amo##BITS(shoal_amo_op_t op, uint##BITS##_t *p, const void *operand,   \
                                      const void *compare, void *fetch_p)                          \
    {                                                                                              \
        uint##BITS##_t v = 0, c, r = 0;                                                            \
        if (operand)                                                                               \
            memcpy(&v, operand, sizeof(v));                                                        \
        switch (op) {                                                                              \
        case SHOAL_AMO_FETCH:                                                                      \
            r = __atomic_load_n(p, __ATOMIC_ACQUIRE);                                              \
            break;                                                                                 \
        case SHOAL_AMO_SET:                                                                        \
            __atomic_store_n(p, v, __ATOMIC_RELEASE);                                              \
            return;                                                                                \
        case SHOAL_AMO_SWAP:                                                                       \
            r = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                       \
            break;                                                                                 \
        case SHOAL_AMO_CSWAP:                                                                      \
            memcpy(&c, compare, sizeof(c));                                                        \
            __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
            r = c;                                                                                 \
            break;                                                                                 \
        case SHOAL_AMO_ADD:                                                                        \
        case SHOAL_AMO_SYNC_ADD:                                                                   \
            __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                            \
            return;                                                                                \
        case SHOAL_AMO_FETCH_ADD:                                                                  \
            r = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                        \
            break;                                                                                 \
        case SHOAL_AMO_AND:                                                                        \
            __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                            \
            return;                                                                                \
        case SHOAL_AMO_FETCH_AND:                                                                  \
            r = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                        \
            break;                                                                                 \
        case SHOAL_AMO_OR:                                                                         \
            __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                             \
            return;                                                                                \
        case SHOAL_AMO_FETCH_OR:                                                                   \
            r = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                         \
            break;                                                                                 \
        case SHOAL_AMO_XOR:                                                                        \
            __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                            \
            return;                                                                                \
        case SHOAL_AMO_FETCH_XOR:                                                                  \
            r = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                        \
            break;                                                                                 \
        }                                                                                          \
        memcpy(fetch_p, &r, sizeof(r));                                                            \
    }
SHOAL_AMO_IMPL(32)
SHOAL_AMO_IMPL(64)
#undef SHOAL_AMO_IMPL

_Static_assert(__atomic_always_lock_free(8, 0), "64-bit atomics must be lock-free");

/* An AMO on a PE this PE does not map, through the transport (core/net_path.c). */
void shoal_net_amo(const char *fn, shoal_amo_op_t op, int pe, const shoal_where_t *w, size_t size,
                   const void *operand, const void *compare, void *fetch_p);

/* Every AMO the inline lookup did not map (core/amo_route.c): routed in full. */
void shoal_amo_routed(const char *fn, shoal_amo_op_t op, void *dest, size_t size,
                      const void *operand, const void *compare, void *fetch_p, int pe);

SHOAL_INLINE void shoal_amo(const char *fn, shoal_amo_op_t op, void *dest, size_t size,
                            const void *operand, const void *compare, void *fetch_p, int pe)
{
    void *p = shoal_route_ptr(&shoal.route_fast, pe, dest, size);
    if (SHOAL_UNLIKELY(((uintptr_t)dest & (size - 1)) != 0))
        shoal_amo_misaligned(fn, dest, size);
    if (SHOAL_LIKELY(p != NULL)) {
        if (size == 8)
            shoal_amo64(op, p, operand, compare, fetch_p);
        else
            shoal_amo32(op, p, operand, compare, fetch_p);
        return;
    }
    shoal_amo_routed(fn, op, dest, size, operand, compare, fetch_p, pe);
}

#endif
