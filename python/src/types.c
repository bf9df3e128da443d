/*
 * The dtype dispatch table of shoal._core, generated from the specification's
 * type tables in include/shmem/types.h: one wrapper per (table row, family),
 * entered under the NumPy type number of the row's C type. A dtype is allowed
 * in a family exactly when the family's table has a row for its C type, so the
 * Python package accepts what the C API accepts and nothing else.
 *
 * Only base C types have NumPy numbers; the fixed-width rows (int32_t, ...) are
 * typedefs of base types and land in the same slot with the same routine. Plain
 * `char` has no NumPy dtype of its own (int8 is signed char) and is left out.
 */
#include "shoalpy.h"

shoalpy_type_t shoalpy_types[NPY_NTYPES];

/* clang-format 14 splits _Generic associations at the colon. */
/* clang-format off */
#define SHOALPY_NPY(TYPE)                                                                      \
    _Generic((TYPE){0},                                                                        \
        signed char: NPY_BYTE, unsigned char: NPY_UBYTE, short: NPY_SHORT,                     \
        unsigned short: NPY_USHORT, int: NPY_INT, unsigned int: NPY_UINT, long: NPY_LONG,      \
        unsigned long: NPY_ULONG, long long: NPY_LONGLONG, unsigned long long: NPY_ULONGLONG,  \
        float: NPY_FLOAT, double: NPY_DOUBLE, long double: NPY_LONGDOUBLE,                     \
        float _Complex: NPY_CFLOAT, double _Complex: NPY_CDOUBLE, default: -1)
/* clang-format on */

#define SHOALPY_UNUSED __attribute__((unused)) static

/* ---- standard RMA: p and g ------------------------------------------------- */
#define DEF_RMA(TYPE, NAME, ...)                                                                   \
    SHOALPY_UNUSED void p_##NAME(shmem_ctx_t c, void *d, const void *v, int pe)                    \
    {                                                                                              \
        shmem_ctx_##NAME##_p(c, (TYPE *)d, *(const TYPE *)v, pe);                                  \
    }                                                                                              \
    SHOALPY_UNUSED void g_##NAME(shmem_ctx_t c, void *o, const void *s, int pe)                    \
    {                                                                                              \
        *(TYPE *)o = shmem_ctx_##NAME##_g(c, (const TYPE *)s, pe);                                 \
    }
SHMEM_RMA_BASE(DEF_RMA, unused)

/* ---- AMOs: extended (fetch, set, swap), standard, bitwise ------------------- */
#define AMO_ARGS shmem_ctx_t c, void *f, void *d, const void *v, const void *k, int pe
#define DEF_AMO_EXT(TYPE, NAME, ...)                                                               \
    SHOALPY_UNUSED void fetch_##NAME(AMO_ARGS)                                                     \
    {                                                                                              \
        *(TYPE *)f = shmem_ctx_##NAME##_atomic_fetch(c, (const TYPE *)d, pe);                      \
    }                                                                                              \
    SHOALPY_UNUSED void set_##NAME(AMO_ARGS)                                                       \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_set(c, (TYPE *)d, *(const TYPE *)v, pe);                         \
    }                                                                                              \
    SHOALPY_UNUSED void swap_##NAME(AMO_ARGS)                                                      \
    {                                                                                              \
        *(TYPE *)f = shmem_ctx_##NAME##_atomic_swap(c, (TYPE *)d, *(const TYPE *)v, pe);           \
    }                                                                                              \
    SHOALPY_UNUSED void fetch_nbi_##NAME(AMO_ARGS)                                                 \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_fetch_nbi(c, (TYPE *)f, (const TYPE *)d, pe);                    \
    }                                                                                              \
    SHOALPY_UNUSED void swap_nbi_##NAME(AMO_ARGS)                                                  \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_swap_nbi(c, (TYPE *)f, (TYPE *)d, *(const TYPE *)v, pe);         \
    }
SHMEM_EXTENDED_AMO_BASE(DEF_AMO_EXT, unused)

#define DEF_AMO_STD(TYPE, NAME, ...)                                                               \
    SHOALPY_UNUSED void cswap_##NAME(AMO_ARGS)                                                     \
    {                                                                                              \
        *(TYPE *)f = shmem_ctx_##NAME##_atomic_compare_swap(c, (TYPE *)d, *(const TYPE *)k,        \
                                                            *(const TYPE *)v, pe);                 \
    }                                                                                              \
    SHOALPY_UNUSED void finc_##NAME(AMO_ARGS)                                                      \
    {                                                                                              \
        *(TYPE *)f = shmem_ctx_##NAME##_atomic_fetch_inc(c, (TYPE *)d, pe);                        \
    }                                                                                              \
    SHOALPY_UNUSED void inc_##NAME(AMO_ARGS)                                                       \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_inc(c, (TYPE *)d, pe);                                           \
    }                                                                                              \
    SHOALPY_UNUSED void fadd_##NAME(AMO_ARGS)                                                      \
    {                                                                                              \
        *(TYPE *)f = shmem_ctx_##NAME##_atomic_fetch_add(c, (TYPE *)d, *(const TYPE *)v, pe);      \
    }                                                                                              \
    SHOALPY_UNUSED void add_##NAME(AMO_ARGS)                                                       \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_add(c, (TYPE *)d, *(const TYPE *)v, pe);                         \
    }                                                                                              \
    SHOALPY_UNUSED void cswap_nbi_##NAME(AMO_ARGS)                                                 \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_compare_swap_nbi(c, (TYPE *)f, (TYPE *)d, *(const TYPE *)k,      \
                                                   *(const TYPE *)v, pe);                          \
    }                                                                                              \
    SHOALPY_UNUSED void finc_nbi_##NAME(AMO_ARGS)                                                  \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_fetch_inc_nbi(c, (TYPE *)f, (TYPE *)d, pe);                      \
    }                                                                                              \
    SHOALPY_UNUSED void fadd_nbi_##NAME(AMO_ARGS)                                                  \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_fetch_add_nbi(c, (TYPE *)f, (TYPE *)d, *(const TYPE *)v, pe);    \
    }
SHMEM_STANDARD_AMO_BASE(DEF_AMO_STD, unused)

#define DEF_AMO_BIT_OP(TYPE, NAME, OP)                                                             \
    SHOALPY_UNUSED void f##OP##_##NAME(AMO_ARGS)                                                   \
    {                                                                                              \
        *(TYPE *)f = shmem_ctx_##NAME##_atomic_fetch_##OP(c, (TYPE *)d, *(const TYPE *)v, pe);     \
    }                                                                                              \
    SHOALPY_UNUSED void OP##_##NAME(AMO_ARGS)                                                      \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_##OP(c, (TYPE *)d, *(const TYPE *)v, pe);                        \
    }                                                                                              \
    SHOALPY_UNUSED void f##OP##_nbi_##NAME(AMO_ARGS)                                               \
    {                                                                                              \
        shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi(c, (TYPE *)f, (TYPE *)d, *(const TYPE *)v, pe); \
    }
SHMEM_BITWISE_AMO_GENERIC(DEF_AMO_BIT_OP, and)
SHMEM_BITWISE_AMO_GENERIC(DEF_AMO_BIT_OP, or)
SHMEM_BITWISE_AMO_GENERIC(DEF_AMO_BIT_OP, xor)

/* ---- point-to-point synchronization --------------------------------------- */
#define DEF_SYNC(TYPE, NAME, ...)                                                                  \
    SHOALPY_UNUSED void wu_##NAME(void *i, int c, const void *v)                                   \
    {                                                                                              \
        shmem_##NAME##_wait_until((TYPE *)i, c, *(const TYPE *)v);                                 \
    }                                                                                              \
    SHOALPY_UNUSED int t_##NAME(void *i, int c, const void *v)                                     \
    {                                                                                              \
        return shmem_##NAME##_test((TYPE *)i, c, *(const TYPE *)v);                                \
    }                                                                                              \
    SHOALPY_UNUSED void wual_##NAME(void *i, size_t n, const int *s, int c, const void *v)         \
    {                                                                                              \
        shmem_##NAME##_wait_until_all((TYPE *)i, n, s, c, *(const TYPE *)v);                       \
    }                                                                                              \
    SHOALPY_UNUSED size_t wuan_##NAME(void *i, size_t n, const int *s, int c, const void *v)       \
    {                                                                                              \
        return shmem_##NAME##_wait_until_any((TYPE *)i, n, s, c, *(const TYPE *)v);                \
    }                                                                                              \
    SHOALPY_UNUSED size_t wuso_##NAME(void *i, size_t n, size_t *x, const int *s, int c,           \
                                      const void *v)                                               \
    {                                                                                              \
        return shmem_##NAME##_wait_until_some((TYPE *)i, n, x, s, c, *(const TYPE *)v);            \
    }                                                                                              \
    SHOALPY_UNUSED void wualv_##NAME(void *i, size_t n, const int *s, int c, const void *v)        \
    {                                                                                              \
        shmem_##NAME##_wait_until_all_vector((TYPE *)i, n, s, c, (TYPE *)v);                       \
    }                                                                                              \
    SHOALPY_UNUSED size_t wuanv_##NAME(void *i, size_t n, const int *s, int c, const void *v)      \
    {                                                                                              \
        return shmem_##NAME##_wait_until_any_vector((TYPE *)i, n, s, c, (TYPE *)v);                \
    }                                                                                              \
    SHOALPY_UNUSED size_t wusov_##NAME(void *i, size_t n, size_t *x, const int *s, int c,          \
                                       const void *v)                                              \
    {                                                                                              \
        return shmem_##NAME##_wait_until_some_vector((TYPE *)i, n, x, s, c, (TYPE *)v);            \
    }                                                                                              \
    SHOALPY_UNUSED int tal_##NAME(void *i, size_t n, const int *s, int c, const void *v)           \
    {                                                                                              \
        return shmem_##NAME##_test_all((TYPE *)i, n, s, c, *(const TYPE *)v);                      \
    }                                                                                              \
    SHOALPY_UNUSED size_t tan_##NAME(void *i, size_t n, const int *s, int c, const void *v)        \
    {                                                                                              \
        return shmem_##NAME##_test_any((TYPE *)i, n, s, c, *(const TYPE *)v);                      \
    }                                                                                              \
    SHOALPY_UNUSED size_t tso_##NAME(void *i, size_t n, size_t *x, const int *s, int c,            \
                                     const void *v)                                                \
    {                                                                                              \
        return shmem_##NAME##_test_some((TYPE *)i, n, x, s, c, *(const TYPE *)v);                  \
    }                                                                                              \
    SHOALPY_UNUSED int talv_##NAME(void *i, size_t n, const int *s, int c, const void *v)          \
    {                                                                                              \
        return shmem_##NAME##_test_all_vector((TYPE *)i, n, s, c, (TYPE *)v);                      \
    }                                                                                              \
    SHOALPY_UNUSED size_t tanv_##NAME(void *i, size_t n, const int *s, int c, const void *v)       \
    {                                                                                              \
        return shmem_##NAME##_test_any_vector((TYPE *)i, n, s, c, (TYPE *)v);                      \
    }                                                                                              \
    SHOALPY_UNUSED size_t tsov_##NAME(void *i, size_t n, size_t *x, const int *s, int c,           \
                                      const void *v)                                               \
    {                                                                                              \
        return shmem_##NAME##_test_some_vector((TYPE *)i, n, x, s, c, (TYPE *)v);                  \
    }                                                                                              \
    static const shoalpy_sync_ops_t sync_##NAME = {wu_##NAME,    t_##NAME,     wual_##NAME,        \
                                                   wuan_##NAME,  wuso_##NAME,  wualv_##NAME,       \
                                                   wuanv_##NAME, wusov_##NAME, tal_##NAME,         \
                                                   tan_##NAME,   tso_##NAME,   talv_##NAME,        \
                                                   tanv_##NAME,  tsov_##NAME};
SHMEM_SYNC_BASE(DEF_SYNC, unused)

/* ---- team reductions and scans -------------------------------------------- */
#define DEF_REDUCE(TYPE, NAME, OP)                                                                 \
    SHOALPY_UNUSED int OP##_reduce_##NAME(shmem_team_t t, void *d, const void *s, size_t n)        \
    {                                                                                              \
        return shmem_##NAME##_##OP##_reduce(t, (TYPE *)d, (const TYPE *)s, n);                     \
    }
SHMEM_REDUCE_BITWISE_TYPES(DEF_REDUCE, and)
SHMEM_REDUCE_BITWISE_TYPES(DEF_REDUCE, or)
SHMEM_REDUCE_BITWISE_TYPES(DEF_REDUCE, xor)
SHMEM_REDUCE_MINMAX_TYPES(DEF_REDUCE, max)
SHMEM_REDUCE_MINMAX_TYPES(DEF_REDUCE, min)
SHMEM_REDUCE_ARITH_TYPES(DEF_REDUCE, sum)
SHMEM_REDUCE_ARITH_TYPES(DEF_REDUCE, prod)
#define DEF_SCAN(TYPE, NAME, ...)                                                                  \
    SHOALPY_UNUSED int inscan_##NAME(shmem_team_t t, void *d, const void *s, size_t n)             \
    {                                                                                              \
        return shmem_##NAME##_sum_inscan(t, (TYPE *)d, (const TYPE *)s, n);                        \
    }                                                                                              \
    SHOALPY_UNUSED int exscan_##NAME(shmem_team_t t, void *d, const void *s, size_t n)             \
    {                                                                                              \
        return shmem_##NAME##_sum_exscan(t, (TYPE *)d, (const TYPE *)s, n);                        \
    }
SHMEM_REDUCE_ARITH_TYPES(DEF_SCAN, unused)

/* ---- filling the table ----------------------------------------------------- */
#define ROW(TYPE) (SHOALPY_NPY(TYPE) >= 0 ? &shoalpy_types[SHOALPY_NPY(TYPE)] : &unused_row)
#define REG_RMA(TYPE, NAME, ...)                                                                   \
    ROW(TYPE)->name = #NAME;                                                                       \
    ROW(TYPE)->p = p_##NAME;                                                                       \
    ROW(TYPE)->g = g_##NAME;
#define REG_AMO_EXT(TYPE, NAME, ...)                                                               \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH] = fetch_##NAME;                                              \
    ROW(TYPE)->amo[SHOALPY_AMO_SET] = set_##NAME;                                                  \
    ROW(TYPE)->amo[SHOALPY_AMO_SWAP] = swap_##NAME;                                                \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_NBI] = fetch_nbi_##NAME;                                      \
    ROW(TYPE)->amo[SHOALPY_AMO_SWAP_NBI] = swap_nbi_##NAME;
#define REG_AMO_STD(TYPE, NAME, ...)                                                               \
    ROW(TYPE)->amo[SHOALPY_AMO_COMPARE_SWAP] = cswap_##NAME;                                       \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_INC] = finc_##NAME;                                           \
    ROW(TYPE)->amo[SHOALPY_AMO_INC] = inc_##NAME;                                                  \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_ADD] = fadd_##NAME;                                           \
    ROW(TYPE)->amo[SHOALPY_AMO_ADD] = add_##NAME;                                                  \
    ROW(TYPE)->amo[SHOALPY_AMO_COMPARE_SWAP_NBI] = cswap_nbi_##NAME;                               \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_INC_NBI] = finc_nbi_##NAME;                                   \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_ADD_NBI] = fadd_nbi_##NAME;
#define REG_AMO_BIT(TYPE, NAME, ...)                                                               \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_AND] = fand_##NAME;                                           \
    ROW(TYPE)->amo[SHOALPY_AMO_AND] = and_##NAME;                                                  \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_AND_NBI] = fand_nbi_##NAME;                                   \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_OR] = for_##NAME;                                             \
    ROW(TYPE)->amo[SHOALPY_AMO_OR] = or_##NAME;                                                    \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_OR_NBI] = for_nbi_##NAME;                                     \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_XOR] = fxor_##NAME;                                           \
    ROW(TYPE)->amo[SHOALPY_AMO_XOR] = xor_##NAME;                                                  \
    ROW(TYPE)->amo[SHOALPY_AMO_FETCH_XOR_NBI] = fxor_nbi_##NAME;
#define REG_SYNC(TYPE, NAME, ...) ROW(TYPE)->sync = &sync_##NAME;
#define REG_REDUCE(TYPE, NAME, OP) ROW(TYPE)->reduce[SHOALPY_OP_##OP] = OP##_reduce_##NAME;
#define REG_SCAN(TYPE, NAME, ...)                                                                  \
    ROW(TYPE)->reduce[SHOALPY_OP_INSCAN] = inscan_##NAME;                                          \
    ROW(TYPE)->reduce[SHOALPY_OP_EXSCAN] = exscan_##NAME;

/* The op names are upper case in the enum; these map the macro's argument. */
#define SHOALPY_OP_and SHOALPY_OP_AND
#define SHOALPY_OP_or SHOALPY_OP_OR
#define SHOALPY_OP_xor SHOALPY_OP_XOR
#define SHOALPY_OP_max SHOALPY_OP_MAX
#define SHOALPY_OP_min SHOALPY_OP_MIN
#define SHOALPY_OP_sum SHOALPY_OP_SUM
#define SHOALPY_OP_prod SHOALPY_OP_PROD

void shoalpy_types_init(void)
{
    static shoalpy_type_t unused_row; /* plain char: no NumPy dtype */
    SHMEM_RMA_BASE(REG_RMA, unused)
    SHMEM_EXTENDED_AMO_BASE(REG_AMO_EXT, unused)
    SHMEM_STANDARD_AMO_BASE(REG_AMO_STD, unused)
    SHMEM_BITWISE_AMO_GENERIC(REG_AMO_BIT, unused)
    SHMEM_SYNC_BASE(REG_SYNC, unused)
    SHMEM_REDUCE_BITWISE_TYPES(REG_REDUCE, and)
    SHMEM_REDUCE_BITWISE_TYPES(REG_REDUCE, or)
    SHMEM_REDUCE_BITWISE_TYPES(REG_REDUCE, xor)
    SHMEM_REDUCE_MINMAX_TYPES(REG_REDUCE, max)
    SHMEM_REDUCE_MINMAX_TYPES(REG_REDUCE, min)
    SHMEM_REDUCE_ARITH_TYPES(REG_REDUCE, sum)
    SHMEM_REDUCE_ARITH_TYPES(REG_REDUCE, prod)
    SHMEM_REDUCE_ARITH_TYPES(REG_SCAN, unused)
    (void)unused_row;
}
