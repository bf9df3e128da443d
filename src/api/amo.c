/*
 * AMO entry points, generated from the extended, standard and bitwise AMO
 * type tables. Each passes its operands by address to the untyped core.
 */
#include <shmem.h>
#include <string.h>

#include "api/api.h"
#include "core/amo.h"
#include "core/team.h"

/* One AMO routine with and without ctx, and for a fetching one its _nbi
 * forms. The trailing arguments are the routine's parameters, which name
 * the target `dest` and end with `int pe`; OPERAND and COMPARE point to
 * the operands. */
#define SHOAL_AMO_FETCHING(TYPE, NAME, OPNAME, OP, OPERAND, COMPARE, ...)                          \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_atomic_##OPNAME)(__VA_ARGS__)                               \
    {                                                                                              \
        TYPE old;                                                                                  \
        shoal_amo(SHOAL_FN, OP, (void *)dest, sizeof(TYPE), OPERAND, COMPARE, &old, pe);           \
        return old;                                                                                \
    }                                                                                              \
    SHOAL_API_DEF(TYPE, shmem_ctx_##NAME##_atomic_##OPNAME)(shmem_ctx_t ctx, __VA_ARGS__)          \
    {                                                                                              \
        TYPE old;                                                                                  \
        shoal_amo(SHOAL_FN, OP, (void *)dest, sizeof(TYPE), OPERAND, COMPARE, &old,                \
                  SHOAL_CTX_PE(ctx, pe));                                                          \
        return old;                                                                                \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_##NAME##_atomic_##OPNAME##_nbi)(TYPE * fetch, __VA_ARGS__)           \
    {                                                                                              \
        shoal_amo(SHOAL_FN, OP, (void *)dest, sizeof(TYPE), OPERAND, COMPARE, fetch, pe);          \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_ctx_##NAME##_atomic_##OPNAME##_nbi)                                  \
    (shmem_ctx_t ctx, TYPE * fetch, __VA_ARGS__)                                                   \
    {                                                                                              \
        shoal_amo(SHOAL_FN, OP, (void *)dest, sizeof(TYPE), OPERAND, COMPARE, fetch,               \
                  SHOAL_CTX_PE(ctx, pe));                                                          \
    }

#define SHOAL_AMO_NONFETCHING(TYPE, NAME, OPNAME, OP, OPERAND, ...)                                \
    SHOAL_API_DEF(void, shmem_##NAME##_atomic_##OPNAME)(__VA_ARGS__)                               \
    {                                                                                              \
        shoal_amo(SHOAL_FN, OP, dest, sizeof(TYPE), OPERAND, NULL, NULL, pe);                      \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_ctx_##NAME##_atomic_##OPNAME)(shmem_ctx_t ctx, __VA_ARGS__)          \
    {                                                                                              \
        shoal_amo(SHOAL_FN, OP, dest, sizeof(TYPE), OPERAND, NULL, NULL, SHOAL_CTX_PE(ctx, pe));   \
    }

/* The routines that take one value operand: add, set, swap, and, ... */
#define SHOAL_AMO_FETCHING_VALUE(TYPE, NAME, OPNAME, OP)                                           \
    SHOAL_AMO_FETCHING(TYPE, NAME, OPNAME, OP, &value, NULL, TYPE *dest, TYPE value, int pe)
#define SHOAL_AMO_NONFETCHING_VALUE(TYPE, NAME, OPNAME, OP)                                        \
    SHOAL_AMO_NONFETCHING(TYPE, NAME, OPNAME, OP, &value, TYPE *dest, TYPE value, int pe)

/* fetch, set and swap: the extended AMO types. fetch reads `source`, which
 * the spec's parameter list names; the generator calls the target dest. */
#define SHOAL_DEF_AMO_EXTENDED(TYPE, NAME, ...)                                                    \
    SHOAL_AMO_FETCHING(TYPE, NAME, fetch, SHOAL_AMO_FETCH, NULL, NULL, const TYPE *dest, int pe)   \
    SHOAL_AMO_NONFETCHING_VALUE(TYPE, NAME, set, SHOAL_AMO_SET)                                    \
    SHOAL_AMO_FETCHING_VALUE(TYPE, NAME, swap, SHOAL_AMO_SWAP)
SHMEM_EXTENDED_AMO_TYPES(SHOAL_DEF_AMO_EXTENDED)

/* compare_swap, inc, add and their fetching forms: the standard AMO types. */
#define SHOAL_DEF_AMO_STANDARD(TYPE, NAME, ...)                                                    \
    SHOAL_AMO_FETCHING(TYPE, NAME, compare_swap, SHOAL_AMO_CSWAP, &value, &cond, TYPE *dest,       \
                       TYPE cond, TYPE value, int pe)                                              \
    SHOAL_AMO_FETCHING(TYPE, NAME, fetch_inc, SHOAL_AMO_FETCH_ADD, &(TYPE){1}, NULL, TYPE *dest,   \
                       int pe)                                                                     \
    SHOAL_AMO_NONFETCHING(TYPE, NAME, inc, SHOAL_AMO_ADD, &(TYPE){1}, TYPE *dest, int pe)          \
    SHOAL_AMO_FETCHING_VALUE(TYPE, NAME, fetch_add, SHOAL_AMO_FETCH_ADD)                           \
    SHOAL_AMO_NONFETCHING_VALUE(TYPE, NAME, add, SHOAL_AMO_ADD)
SHMEM_STANDARD_AMO_TYPES(SHOAL_DEF_AMO_STANDARD)

/* and, or, xor: the bitwise AMO types. */
#define SHOAL_DEF_AMO_BITWISE(TYPE, NAME, ...)                                                     \
    SHOAL_AMO_FETCHING_VALUE(TYPE, NAME, fetch_and, SHOAL_AMO_FETCH_AND)                           \
    SHOAL_AMO_NONFETCHING_VALUE(TYPE, NAME, and, SHOAL_AMO_AND)                                    \
    SHOAL_AMO_FETCHING_VALUE(TYPE, NAME, fetch_or, SHOAL_AMO_FETCH_OR)                             \
    SHOAL_AMO_NONFETCHING_VALUE(TYPE, NAME, or, SHOAL_AMO_OR)                                      \
    SHOAL_AMO_FETCHING_VALUE(TYPE, NAME, fetch_xor, SHOAL_AMO_FETCH_XOR)                           \
    SHOAL_AMO_NONFETCHING_VALUE(TYPE, NAME, xor, SHOAL_AMO_XOR)
SHMEM_BITWISE_AMO_TYPES(SHOAL_DEF_AMO_BITWISE)

/* Deprecated names, forwarding to the current ones. */
#define SHOAL_DEF_AMO_LEGACY(TYPE, NAME, ...)                                                      \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_cswap)(TYPE * dest, TYPE cond, TYPE value, int pe)          \
    {                                                                                              \
        return pshmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);                         \
    }                                                                                              \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_finc)(TYPE * dest, int pe)                                  \
    {                                                                                              \
        TYPE one = 1, old;                                                                         \
        shoal_amo(SHOAL_FN, SHOAL_AMO_FETCH_ADD, dest, sizeof(TYPE), &one, NULL, &old, pe);        \
        return old;                                                                                \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_##NAME##_inc)(TYPE * dest, int pe)                                   \
    {                                                                                              \
        TYPE one = 1;                                                                              \
        shoal_amo(SHOAL_FN, SHOAL_AMO_ADD, dest, sizeof(TYPE), &one, NULL, NULL, pe);              \
    }                                                                                              \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_fadd)(TYPE * dest, TYPE value, int pe)                      \
    {                                                                                              \
        return pshmem_##NAME##_atomic_fetch_add(dest, value, pe);                                  \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_##NAME##_add)(TYPE * dest, TYPE value, int pe)                       \
    {                                                                                              \
        pshmem_##NAME##_atomic_add(dest, value, pe);                                               \
    }
SHMEM_LEGACY_AMO_TYPES(SHOAL_DEF_AMO_LEGACY)

#define SHOAL_DEF_AMO_LEGACY_EXTENDED(TYPE, NAME, ...)                                             \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_fetch)(const TYPE *source, int pe)                          \
    {                                                                                              \
        return pshmem_##NAME##_atomic_fetch(source, pe);                                           \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_##NAME##_set)(TYPE * dest, TYPE value, int pe)                       \
    {                                                                                              \
        pshmem_##NAME##_atomic_set(dest, value, pe);                                               \
    }                                                                                              \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_swap)(TYPE * dest, TYPE value, int pe)                      \
    {                                                                                              \
        return pshmem_##NAME##_atomic_swap(dest, value, pe);                                       \
    }
SHMEM_LEGACY_EXTENDED_AMO_TYPES(SHOAL_DEF_AMO_LEGACY_EXTENDED)

SHOAL_API_DEF(long, shmem_swap)(long *dest, long value, int pe)
{
    return pshmem_long_atomic_swap(dest, value, pe);
}

/* shmemx_{float,double}_atomic_{fetch_,}add: no transport has a floating
 * add, so it is a compare-and-swap loop on the word's bits, through the
 * same core AMO path as the integer ones (a mapped PE or the network). */
#define SHOAL_FLOAT_ADD(TYPE, NAME, WORD)                                                          \
    SHOAL_API_DEF(TYPE, shmemx_##NAME##_atomic_fetch_add)(TYPE * dest, TYPE value, int pe)         \
    {                                                                                              \
        WORD old, seen;                                                                            \
        shoal_amo(SHOAL_FN, SHOAL_AMO_FETCH, dest, sizeof(TYPE), NULL, NULL, &old, pe);            \
        for (;;) {                                                                                 \
            TYPE f;                                                                                \
            WORD want;                                                                             \
            memcpy(&f, &old, sizeof(f));                                                           \
            f += value;                                                                            \
            memcpy(&want, &f, sizeof(want));                                                       \
            shoal_amo(SHOAL_FN, SHOAL_AMO_CSWAP, dest, sizeof(TYPE), &want, &old, &seen, pe);      \
            if (seen == old) {                                                                     \
                memcpy(&f, &old, sizeof(f));                                                       \
                return f;                                                                          \
            }                                                                                      \
            old = seen;                                                                            \
        }                                                                                          \
    }                                                                                              \
    SHOAL_API_DEF(void, shmemx_##NAME##_atomic_add)(TYPE * dest, TYPE value, int pe)               \
    {                                                                                              \
        (void)pshmemx_##NAME##_atomic_fetch_add(dest, value, pe);                                  \
    }
SHOAL_FLOAT_ADD(float, float, uint32_t)
SHOAL_FLOAT_ADD(double, double, uint64_t)
