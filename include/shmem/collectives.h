/*
 * Collective routines: team-based (OpenSHMEM 1.5), the 1.6 scans, and the
 * deprecated active-set forms that many existing programs still call.
 * Included by shmem/routines.h, once for shmem.h and once for pshmem.h (so
 * no include guard; names are spelled SHMEM_FN(name) as there); not meant to
 * be included on its own.
 */
#ifndef SHMEM_FN
#error "include <shmem.h> or <pshmem.h>, not <shmem/collectives.h>"
#endif

/* ---- team-based data movement ---------------------------------------------- */
#define SHMEM_DECL_COLL_RMA(TYPE, NAME, ...)                                                       \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_broadcast)(                                              \
        shmem_team_t team, TYPE * dest, const TYPE *source, size_t nelems, int PE_root);           \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_collect)(shmem_team_t team, TYPE * dest,                 \
                                                   const TYPE *source, size_t nelems);             \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_fcollect)(shmem_team_t team, TYPE * dest,                \
                                                    const TYPE *source, size_t nelems);            \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_alltoall)(shmem_team_t team, TYPE * dest,                \
                                                    const TYPE *source, size_t nelems);            \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_alltoalls)(shmem_team_t team, TYPE * dest,               \
                                                     const TYPE *source, ptrdiff_t dst,            \
                                                     ptrdiff_t sst, size_t nelems);
SHMEM_RMA_TYPES(SHMEM_DECL_COLL_RMA, unused)
#undef SHMEM_DECL_COLL_RMA
SHMEM_API int SHMEM_FN(shmem_broadcastmem)(shmem_team_t team, void *dest, const void *source,
                                           size_t nelems, int PE_root);
SHMEM_API int SHMEM_FN(shmem_collectmem)(shmem_team_t team, void *dest, const void *source,
                                         size_t nelems);
SHMEM_API int SHMEM_FN(shmem_fcollectmem)(shmem_team_t team, void *dest, const void *source,
                                          size_t nelems);
SHMEM_API int SHMEM_FN(shmem_alltoallmem)(shmem_team_t team, void *dest, const void *source,
                                          size_t nelems);
SHMEM_API int SHMEM_FN(shmem_alltoallsmem)(shmem_team_t team, void *dest, const void *source,
                                           ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

/* ---- team-based reductions and scans ---------------------------------------- */
#define SHMEM_DECL_REDUCE(TYPE, NAME, OP)                                                          \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_##OP##_reduce)(shmem_team_t team, TYPE * dest,           \
                                                         const TYPE *source, size_t nreduce);
SHMEM_REDUCE_BITWISE_TYPES(SHMEM_DECL_REDUCE, and)
SHMEM_REDUCE_BITWISE_TYPES(SHMEM_DECL_REDUCE, or)
SHMEM_REDUCE_BITWISE_TYPES(SHMEM_DECL_REDUCE, xor)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_DECL_REDUCE, max)
SHMEM_REDUCE_MINMAX_TYPES(SHMEM_DECL_REDUCE, min)
SHMEM_REDUCE_ARITH_TYPES(SHMEM_DECL_REDUCE, sum)
SHMEM_REDUCE_ARITH_TYPES(SHMEM_DECL_REDUCE, prod)
#undef SHMEM_DECL_REDUCE
#define SHMEM_DECL_SCAN(TYPE, NAME, ...)                                                           \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_sum_inscan)(shmem_team_t team, TYPE * dest,              \
                                                      const TYPE *source, size_t nelems);          \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_sum_exscan)(shmem_team_t team, TYPE * dest,              \
                                                      const TYPE *source, size_t nelems);
SHMEM_REDUCE_ARITH_TYPES(SHMEM_DECL_SCAN, unused)
#undef SHMEM_DECL_SCAN

/* ---- deprecated active-set forms --------------------------------------------- */
SHMEM_API void SHMEM_FN(shmem_barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM_API void SHMEM_FN(shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHMEM_DECL_ACTIVE_SET(BITS, ...)                                                           \
    SHMEM_API void SHMEM_FN(shmem_broadcast##BITS)(void *dest, const void *source, size_t nelems,  \
                                                   int PE_root, int PE_start, int logPE_stride,    \
                                                   int PE_size, long *pSync);                      \
    SHMEM_API void SHMEM_FN(shmem_collect##BITS)(void *dest, const void *source, size_t nelems,    \
                                                 int PE_start, int logPE_stride, int PE_size,      \
                                                 long *pSync);                                     \
    SHMEM_API void SHMEM_FN(shmem_fcollect##BITS)(void *dest, const void *source, size_t nelems,   \
                                                  int PE_start, int logPE_stride, int PE_size,     \
                                                  long *pSync);                                    \
    SHMEM_API void SHMEM_FN(shmem_alltoall##BITS)(void *dest, const void *source, size_t nelems,   \
                                                  int PE_start, int logPE_stride, int PE_size,     \
                                                  long *pSync);                                    \
    SHMEM_API void SHMEM_FN(shmem_alltoalls##BITS)(void *dest, const void *source, ptrdiff_t dst,  \
                                                   ptrdiff_t sst, size_t nelems, int PE_start,     \
                                                   int logPE_stride, int PE_size, long *pSync);
SHMEM_DECL_ACTIVE_SET(32, unused)
SHMEM_DECL_ACTIVE_SET(64, unused)
#undef SHMEM_DECL_ACTIVE_SET
#define SHMEM_DECL_TO_ALL(TYPE, NAME, OP)                                                          \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_##OP##_to_all)(                                         \
        TYPE * dest, const TYPE *source, int nreduce, int PE_start, int logPE_stride, int PE_size, \
        TYPE *pWrk, long *pSync);
SHMEM_TOALL_BITWISE_TYPES(SHMEM_DECL_TO_ALL, and)
SHMEM_TOALL_BITWISE_TYPES(SHMEM_DECL_TO_ALL, or)
SHMEM_TOALL_BITWISE_TYPES(SHMEM_DECL_TO_ALL, xor)
SHMEM_TOALL_MINMAX_TYPES(SHMEM_DECL_TO_ALL, max)
SHMEM_TOALL_MINMAX_TYPES(SHMEM_DECL_TO_ALL, min)
SHMEM_TOALL_ARITH_TYPES(SHMEM_DECL_TO_ALL, sum)
SHMEM_TOALL_ARITH_TYPES(SHMEM_DECL_TO_ALL, prod)
#undef SHMEM_DECL_TO_ALL
