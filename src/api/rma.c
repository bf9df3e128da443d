/*
 * RMA entry points: typed, sized and mem forms, each a call into the untyped
 * core with the element size folded in. The ctx forms share the default
 * context's path until contexts get their own state.
 */
#include <shmem.h>

#include "api/api.h"
#include "core/rma.h"
#include "core/team.h"

/* RMA routines of one family in one direction (DIR put or get).
 * NAME(base, suffix, ARG) spells a routine's name (api/api.h); CTX_PARAM() is
 * the ctx parameter or nothing, PE(pe) the target as a world PE; TYPE is
 * what dest and source point to and ELEM one element's bytes. */
#define SHOAL_DEF_RMA_CONTIG(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM, DIR)                            \
    SHOAL_API_DEF(void, NAME(DIR, , ARG))                                                          \
    (CTX_PARAM() TYPE * dest, const TYPE *source, size_t nelems, int pe)                           \
    {                                                                                              \
        shoal_##DIR(SHOAL_FN, dest, source, nelems *(ELEM), PE(pe));                               \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(DIR, _nbi, ARG))                                                      \
    (CTX_PARAM() TYPE * dest, const TYPE *source, size_t nelems, int pe)                           \
    {                                                                                              \
        shoal_##DIR##_nbi(SHOAL_FN, dest, source, nelems *(ELEM), PE(pe));                         \
    }
/* iput is ibput with blocks of one element; IS_PUT is 1 for put, 0 for get. */
#define SHOAL_DEF_RMA_STRIDED(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM, DIR, IS_PUT)                   \
    SHOAL_API_DEF(void, NAME(i##DIR, , ARG))                                                       \
    (CTX_PARAM() TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,     \
     int pe)                                                                                       \
    {                                                                                              \
        shoal_strided(SHOAL_FN, IS_PUT, dest, source, dst, sst, ELEM, 1, nelems, PE(pe));          \
    }                                                                                              \
    SHOAL_API_DEF(void, NAME(ib##DIR, , ARG))                                                      \
    (CTX_PARAM() TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,      \
     size_t nblocks, int pe)                                                                       \
    {                                                                                              \
        shoal_strided(SHOAL_FN, IS_PUT, dest, source, dst, sst, ELEM, bsize, nblocks, PE(pe));     \
    }
/* One whole family: the mem family has no strided routines. */
#define SHOAL_DEF_RMA_OPS(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM)                                    \
    SHOAL_DEF_RMA_CONTIG(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM, put)                                \
    SHOAL_DEF_RMA_CONTIG(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM, get)                                \
    SHOAL_DEF_RMA_STRIDED(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM, put, 1)                            \
    SHOAL_DEF_RMA_STRIDED(NAME, ARG, CTX_PARAM, PE, TYPE, ELEM, get, 0)

#define SHOAL_CTX() shmem_ctx_t ctx,
#define SHOAL_NOCTX()
/* The PE argument as a world PE: ctx forms count PEs in the context's team. */
#define SHOAL_PE_WORLD(pe) (pe)
#define SHOAL_PE_OF_CTX(pe) SHOAL_CTX_PE(ctx, pe)

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
SHOAL_DEF_RMA_CONTIG(SHOAL_NAME_MEM, , SHOAL_NOCTX, SHOAL_PE_WORLD, void, 1, put)
SHOAL_DEF_RMA_CONTIG(SHOAL_NAME_MEM, , SHOAL_NOCTX, SHOAL_PE_WORLD, void, 1, get)
SHOAL_DEF_RMA_CONTIG(SHOAL_NAME_CTX_MEM, , SHOAL_CTX, SHOAL_PE_OF_CTX, void, 1, put)
SHOAL_DEF_RMA_CONTIG(SHOAL_NAME_CTX_MEM, , SHOAL_CTX, SHOAL_PE_OF_CTX, void, 1, get)
