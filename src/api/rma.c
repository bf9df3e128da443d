/*
 * RMA entry points: typed, sized and mem forms, each a call into the untyped
 * core with the element size folded in. The ctx forms share the default
 * context's path until contexts get their own state.
 */
#include <shmem.h>

#include "api/api.h"
#include "core/rma.h"
#include "core/team.h"

/* One family of RMA routines. NAME(base, suffix, ARG) spells a routine's
 * name: typed names put the type first (shmem_long_put_nbi), sized names put
 * the size after the base (shmem_put64_nbi). */
#define SHOAL_DEF_RMA_OPS(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM)                                    \
    SHOAL_API_DEF(void, NAME(put, , ARG))                                                          \
    (CTX_PARAM TYPE * dest, const TYPE *source, size_t nelems, int pe)                             \
    {                                                                                              \
        shoal_put(SHOAL_FN, dest, source, nelems *(ELEM), PE(pe));                                 \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(get, , ARG))                                                          \
    (CTX_PARAM TYPE * dest, const TYPE *source, size_t nelems, int pe)                             \
    {                                                                                              \
        shoal_get(SHOAL_FN, dest, source, nelems *(ELEM), PE(pe));                                 \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(put, _nbi, ARG))                                                      \
    (CTX_PARAM TYPE * dest, const TYPE *source, size_t nelems, int pe)                             \
    {                                                                                              \
        shoal_put_nbi(SHOAL_FN, dest, source, nelems *(ELEM), PE(pe));                             \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(get, _nbi, ARG))                                                      \
    (CTX_PARAM TYPE * dest, const TYPE *source, size_t nelems, int pe)                             \
    {                                                                                              \
        shoal_get_nbi(SHOAL_FN, dest, source, nelems *(ELEM), PE(pe));                             \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(iput, , ARG))                                                         \
    (CTX_PARAM TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
     int pe)                                                                                       \
    {                                                                                              \
        shoal_strided(SHOAL_FN, 1, dest, source, dst, sst, ELEM, 1, nelems, PE(pe));               \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(iget, , ARG))                                                         \
    (CTX_PARAM TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,       \
     int pe)                                                                                       \
    {                                                                                              \
        shoal_strided(SHOAL_FN, 0, dest, source, dst, sst, ELEM, 1, nelems, PE(pe));               \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(ibput, , ARG))                                                        \
    (CTX_PARAM TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
     size_t nblocks, int pe)                                                                       \
    {                                                                                              \
        shoal_strided(SHOAL_FN, 1, dest, source, dst, sst, ELEM, bsize, nblocks, PE(pe));          \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(ibget, , ARG))                                                        \
    (CTX_PARAM TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,        \
     size_t nblocks, int pe)                                                                       \
    {                                                                                              \
        shoal_strided(SHOAL_FN, 0, dest, source, dst, sst, ELEM, bsize, nblocks, PE(pe));          \
    }

#define SHOAL_CTX shmem_ctx_t ctx,
#define SHOAL_NOCTX
/* The PE argument as a world PE: ctx forms count PEs in the context's team. */
#define SHOAL_PE_WORLD(pe) (pe)
#define SHOAL_PE_OF_CTX(pe) SHOAL_CTX_PE(ctx, pe)
#define SHOAL_NAME_TYPED(base, suffix, NAME) shmem_##NAME##_##base##suffix
#define SHOAL_NAME_CTX_TYPED(base, suffix, NAME) shmem_ctx_##NAME##_##base##suffix
#define SHOAL_NAME_SIZED(base, suffix, BITS) shmem_##base##BITS##suffix
#define SHOAL_NAME_CTX_SIZED(base, suffix, BITS) shmem_ctx_##base##BITS##suffix

/* Typed: shmem_long_put, shmem_ctx_long_put, ... plus p and g. */
#define SHOAL_DEF_RMA_TYPED(TYPE, NAME, ...)                                                       \
    SHOAL_DEF_RMA_OPS(SHOAL_NAME_TYPED, NAME, SHOAL_NOCTX, SHOAL_PE_WORLD, TYPE, sizeof(TYPE))     \
    SHOAL_DEF_RMA_OPS(SHOAL_NAME_CTX_TYPED, NAME, SHOAL_CTX, SHOAL_PE_OF_CTX, TYPE, sizeof(TYPE))  \
    SHOAL_API_DEF(void, shmem_##NAME##_p)(TYPE * dest, TYPE value, int pe)                         \
    {                                                                                              \
        shoal_put(SHOAL_FN, dest, &value, sizeof(TYPE), pe);                                       \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_ctx_##NAME##_p)(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe)    \
    {                                                                                              \
        shoal_put(SHOAL_FN, dest, &value, sizeof(TYPE), SHOAL_CTX_PE(ctx, pe));                    \
    }                                                                                              \
    SHOAL_API_DEF(TYPE, shmem_##NAME##_g)(const TYPE *source, int pe)                              \
    {                                                                                              \
        TYPE value;                                                                                \
        shoal_get(SHOAL_FN, &value, source, sizeof(TYPE), pe);                                     \
        return value;                                                                              \
    }                                                                                              \
    SHOAL_API_DEF(TYPE, shmem_ctx_##NAME##_g)(shmem_ctx_t ctx, const TYPE *source, int pe)         \
    {                                                                                              \
        TYPE value;                                                                                \
        shoal_get(SHOAL_FN, &value, source, sizeof(TYPE), SHOAL_CTX_PE(ctx, pe));                  \
        return value;                                                                              \
    }
SHMEM_RMA_TYPES(SHOAL_DEF_RMA_TYPED)

/* Sized: shmem_put64, shmem_ctx_iget32, shmem_put128_nbi, ... */
#define SHOAL_DEF_RMA_SIZED(BITS, ...)                                                             \
    SHOAL_DEF_RMA_OPS(SHOAL_NAME_SIZED, BITS, SHOAL_NOCTX, SHOAL_PE_WORLD, void, (BITS) / 8)       \
    SHOAL_DEF_RMA_OPS(SHOAL_NAME_CTX_SIZED, BITS, SHOAL_CTX, SHOAL_PE_OF_CTX, void, (BITS) / 8)
SHMEM_SIZED_RMA(SHOAL_DEF_RMA_SIZED)

/* mem: byte-addressed. */
SHOAL_API_DEF(void, shmem_putmem)(void *dest, const void *source, size_t nelems, int pe)
{
    shoal_put(SHOAL_FN, dest, source, nelems, pe);
}
SHOAL_API_DEF(void, shmem_ctx_putmem)
(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shoal_put(SHOAL_FN, dest, source, nelems, SHOAL_CTX_PE(ctx, pe));
}
SHOAL_API_DEF(void, shmem_getmem)(void *dest, const void *source, size_t nelems, int pe)
{
    shoal_get(SHOAL_FN, dest, source, nelems, pe);
}
SHOAL_API_DEF(void, shmem_ctx_getmem)
(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shoal_get(SHOAL_FN, dest, source, nelems, SHOAL_CTX_PE(ctx, pe));
}
SHOAL_API_DEF(void, shmem_putmem_nbi)(void *dest, const void *source, size_t nelems, int pe)
{
    shoal_put_nbi(SHOAL_FN, dest, source, nelems, pe);
}
SHOAL_API_DEF(void, shmem_ctx_putmem_nbi)
(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shoal_put_nbi(SHOAL_FN, dest, source, nelems, SHOAL_CTX_PE(ctx, pe));
}
SHOAL_API_DEF(void, shmem_getmem_nbi)(void *dest, const void *source, size_t nelems, int pe)
{
    shoal_get_nbi(SHOAL_FN, dest, source, nelems, pe);
}
SHOAL_API_DEF(void, shmem_ctx_getmem_nbi)
(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    shoal_get_nbi(SHOAL_FN, dest, source, nelems, SHOAL_CTX_PE(ctx, pe));
}
