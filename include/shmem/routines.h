/*
 * Every routine of shmem.h, declared once. Each name is spelled
 * SHMEM_FN(name), so that the list serves twice: <shmem.h> includes it with
 * SHMEM_FN(name) as `name`, and <pshmem.h>, the profiling interface, again
 * with `p ## name` (pshmem_long_put, pstart_pes, ...). Hence no include
 * guard: the guards of shmem.h and pshmem.h let each pass run once. Not
 * meant to be included on its own.
 */
#ifndef SHMEM_FN
#error "include <shmem.h> or <pshmem.h>, not <shmem/routines.h>"
#endif

/* ---- setup, exit and query ------------------------------------------------- */
SHMEM_API void SHMEM_FN(shmem_init)(void);
SHMEM_API int SHMEM_FN(shmem_init_thread)(int requested, int *provided);
SHMEM_API void SHMEM_FN(shmem_finalize)(void);
SHMEM_API void SHMEM_FN(shmem_query_initialized)(int *initialized);
SHMEM_API void SHMEM_FN(shmem_query_finalized)(int *finalized);
SHMEM_API void SHMEM_FN(shmem_query_thread)(int *provided);
SHMEM_API void SHMEM_FN(shmem_global_exit)(int status) __attribute__((noreturn));
SHMEM_API int SHMEM_FN(shmem_my_pe)(void);
SHMEM_API int SHMEM_FN(shmem_n_pes)(void);
SHMEM_API int SHMEM_FN(shmem_pe_accessible)(int pe);
SHMEM_API int SHMEM_FN(shmem_addr_accessible)(const void *addr, int pe);
SHMEM_API void *SHMEM_FN(shmem_ptr)(const void *dest, int pe);
SHMEM_API void SHMEM_FN(shmem_info_get_version)(int *major, int *minor);
SHMEM_API void SHMEM_FN(shmem_info_get_name)(char *name);
SHMEM_API void SHMEM_FN(shmem_pcontrol)(int level, ...);
/* Deprecated names. */
SHMEM_API void SHMEM_FN(start_pes)(int npes);
SHMEM_API int SHMEM_FN(_my_pe)(void);
SHMEM_API int SHMEM_FN(_num_pes)(void);
SHMEM_API int SHMEM_FN(num_pes)(void);
SHMEM_API int SHMEM_FN(my_pe)(void);

/* ---- memory management ------------------------------------------------------ */
SHMEM_API void *SHMEM_FN(shmem_malloc)(size_t size);
SHMEM_API void *SHMEM_FN(shmem_calloc)(size_t count, size_t size);
SHMEM_API void *SHMEM_FN(shmem_align)(size_t alignment, size_t size);
SHMEM_API void *SHMEM_FN(shmem_realloc)(void *ptr, size_t size);
SHMEM_API void SHMEM_FN(shmem_free)(void *ptr);
SHMEM_API void *SHMEM_FN(shmem_malloc_with_hints)(size_t size, long hints);
/* Deprecated names. */
SHMEM_API void *SHMEM_FN(shmalloc)(size_t size);
SHMEM_API void *SHMEM_FN(shmemalign)(size_t alignment, size_t size);
SHMEM_API void *SHMEM_FN(shrealloc)(void *ptr, size_t size);
SHMEM_API void SHMEM_FN(shfree)(void *ptr);

/* ---- RMA ------------------------------------------------------------------ */
#define SHMEM_DECL_RMA(TYPE, NAME, ...)                                                            \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_put)(TYPE * dest, const TYPE *source, size_t nelems,    \
                                                int pe);                                           \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_put)(shmem_ctx_t ctx, TYPE * dest,                  \
                                                    const TYPE *source, size_t nelems, int pe);    \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_get)(TYPE * dest, const TYPE *source, size_t nelems,    \
                                                int pe);                                           \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_get)(shmem_ctx_t ctx, TYPE * dest,                  \
                                                    const TYPE *source, size_t nelems, int pe);    \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_put_nbi)(TYPE * dest, const TYPE *source,               \
                                                    size_t nelems, int pe);                        \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_put_nbi)(                                           \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, int pe);                  \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_get_nbi)(TYPE * dest, const TYPE *source,               \
                                                    size_t nelems, int pe);                        \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_get_nbi)(                                           \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, int pe);                  \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_p)(TYPE * dest, TYPE value, int pe);                    \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_p)(shmem_ctx_t ctx, TYPE * dest, TYPE value,        \
                                                  int pe);                                         \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_g)(const TYPE *source, int pe);                         \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_g)(shmem_ctx_t ctx, const TYPE *source, int pe);    \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_iput)(TYPE * dest, const TYPE *source, ptrdiff_t dst,   \
                                                 ptrdiff_t sst, size_t nelems, int pe);            \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_iput)(shmem_ctx_t ctx, TYPE * dest,                 \
                                                     const TYPE *source, ptrdiff_t dst,            \
                                                     ptrdiff_t sst, size_t nelems, int pe);        \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_iget)(TYPE * dest, const TYPE *source, ptrdiff_t dst,   \
                                                 ptrdiff_t sst, size_t nelems, int pe);            \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_iget)(shmem_ctx_t ctx, TYPE * dest,                 \
                                                     const TYPE *source, ptrdiff_t dst,            \
                                                     ptrdiff_t sst, size_t nelems, int pe);        \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_ibput)(TYPE * dest, const TYPE *source, ptrdiff_t dst,  \
                                                  ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                                                  int pe);                                         \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_ibput)(                                             \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,            \
        size_t bsize, size_t nblocks, int pe);                                                     \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_ibget)(TYPE * dest, const TYPE *source, ptrdiff_t dst,  \
                                                  ptrdiff_t sst, size_t bsize, size_t nblocks,     \
                                                  int pe);                                         \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_ibget)(                                             \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,            \
        size_t bsize, size_t nblocks, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_RMA, unused)
#undef SHMEM_DECL_RMA

#define SHMEM_DECL_SIZED_RMA(BITS, ...)                                                            \
    SHMEM_API void SHMEM_FN(shmem_put##BITS)(void *dest, const void *source, size_t nelems,        \
                                             int pe);                                              \
    SHMEM_API void SHMEM_FN(shmem_ctx_put##BITS)(shmem_ctx_t ctx, void *dest, const void *source,  \
                                                 size_t nelems, int pe);                           \
    SHMEM_API void SHMEM_FN(shmem_get##BITS)(void *dest, const void *source, size_t nelems,        \
                                             int pe);                                              \
    SHMEM_API void SHMEM_FN(shmem_ctx_get##BITS)(shmem_ctx_t ctx, void *dest, const void *source,  \
                                                 size_t nelems, int pe);                           \
    SHMEM_API void SHMEM_FN(shmem_put##BITS##_nbi)(void *dest, const void *source, size_t nelems,  \
                                                   int pe);                                        \
    SHMEM_API void SHMEM_FN(shmem_ctx_put##BITS##_nbi)(shmem_ctx_t ctx, void *dest,                \
                                                       const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_FN(shmem_get##BITS##_nbi)(void *dest, const void *source, size_t nelems,  \
                                                   int pe);                                        \
    SHMEM_API void SHMEM_FN(shmem_ctx_get##BITS##_nbi)(shmem_ctx_t ctx, void *dest,                \
                                                       const void *source, size_t nelems, int pe); \
    SHMEM_API void SHMEM_FN(shmem_iput##BITS)(void *dest, const void *source, ptrdiff_t dst,       \
                                              ptrdiff_t sst, size_t nelems, int pe);               \
    SHMEM_API void SHMEM_FN(shmem_ctx_iput##BITS)(shmem_ctx_t ctx, void *dest, const void *source, \
                                                  ptrdiff_t dst, ptrdiff_t sst, size_t nelems,     \
                                                  int pe);                                         \
    SHMEM_API void SHMEM_FN(shmem_iget##BITS)(void *dest, const void *source, ptrdiff_t dst,       \
                                              ptrdiff_t sst, size_t nelems, int pe);               \
    SHMEM_API void SHMEM_FN(shmem_ctx_iget##BITS)(shmem_ctx_t ctx, void *dest, const void *source, \
                                                  ptrdiff_t dst, ptrdiff_t sst, size_t nelems,     \
                                                  int pe);                                         \
    SHMEM_API void SHMEM_FN(shmem_ibput##BITS)(void *dest, const void *source, ptrdiff_t dst,      \
                                               ptrdiff_t sst, size_t bsize, size_t nblocks,        \
                                               int pe);                                            \
    SHMEM_API void SHMEM_FN(shmem_ctx_ibput##BITS)(                                                \
        shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,             \
        size_t bsize, size_t nblocks, int pe);                                                     \
    SHMEM_API void SHMEM_FN(shmem_ibget##BITS)(void *dest, const void *source, ptrdiff_t dst,      \
                                               ptrdiff_t sst, size_t bsize, size_t nblocks,        \
                                               int pe);                                            \
    SHMEM_API void SHMEM_FN(shmem_ctx_ibget##BITS)(                                                \
        shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,             \
        size_t bsize, size_t nblocks, int pe);
SHMEM_SIZED_RMA(SHMEM_DECL_SIZED_RMA, unused)
#undef SHMEM_DECL_SIZED_RMA

SHMEM_API void SHMEM_FN(shmem_putmem)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_ctx_putmem)(shmem_ctx_t ctx, void *dest, const void *source,
                                          size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_getmem)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_ctx_getmem)(shmem_ctx_t ctx, void *dest, const void *source,
                                          size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_putmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_ctx_putmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source,
                                              size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_getmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
SHMEM_API void SHMEM_FN(shmem_ctx_getmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source,
                                              size_t nelems, int pe);

/* ---- AMO ------------------------------------------------------------------ */
#define SHMEM_DECL_AMO_EXTENDED(TYPE, NAME, ...)                                                   \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_atomic_fetch)(const TYPE *source, int pe);              \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch)(shmem_ctx_t ctx, const TYPE *source,  \
                                                             int pe);                              \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_set)(TYPE * dest, TYPE value, int pe);           \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_set)(shmem_ctx_t ctx, TYPE * dest,           \
                                                           TYPE value, int pe);                    \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_atomic_swap)(TYPE * dest, TYPE value, int pe);          \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_atomic_swap)(shmem_ctx_t ctx, TYPE * dest,          \
                                                            TYPE value, int pe);                   \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_fetch_nbi)(TYPE * fetch, const TYPE *source,     \
                                                             int pe);                              \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_nbi)(shmem_ctx_t ctx, TYPE * fetch,    \
                                                                 const TYPE *source, int pe);      \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_swap_nbi)(TYPE * fetch, TYPE * dest, TYPE value, \
                                                            int pe);                               \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_swap_nbi)(shmem_ctx_t ctx, TYPE * fetch,     \
                                                                TYPE * dest, TYPE value, int pe);
SHMEM_EXTENDED_AMO_TYPES(SHMEM_DECL_AMO_EXTENDED, unused)
#undef SHMEM_DECL_AMO_EXTENDED

#define SHMEM_DECL_AMO_STANDARD(TYPE, NAME, ...)                                                   \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_atomic_compare_swap)(TYPE * dest, TYPE cond,            \
                                                                TYPE value, int pe);               \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_atomic_compare_swap)(                               \
        shmem_ctx_t ctx, TYPE * dest, TYPE cond, TYPE value, int pe);                              \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_atomic_fetch_inc)(TYPE * dest, int pe);                 \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_inc)(shmem_ctx_t ctx, TYPE * dest,     \
                                                                 int pe);                          \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_inc)(TYPE * dest, int pe);                       \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_inc)(shmem_ctx_t ctx, TYPE * dest, int pe);  \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_atomic_fetch_add)(TYPE * dest, TYPE value, int pe);     \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_add)(shmem_ctx_t ctx, TYPE * dest,     \
                                                                 TYPE value, int pe);              \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_add)(TYPE * dest, TYPE value, int pe);           \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_add)(shmem_ctx_t ctx, TYPE * dest,           \
                                                           TYPE value, int pe);                    \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_compare_swap_nbi)(                               \
        TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe);                                 \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_compare_swap_nbi)(                           \
        shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe);                \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_fetch_inc_nbi)(TYPE * fetch, TYPE * dest,        \
                                                                 int pe);                          \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_inc_nbi)(                              \
        shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, int pe);                                       \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_fetch_add_nbi)(TYPE * fetch, TYPE * dest,        \
                                                                 TYPE value, int pe);              \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_add_nbi)(                              \
        shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe);
SHMEM_STANDARD_AMO_TYPES(SHMEM_DECL_AMO_STANDARD, unused)
#undef SHMEM_DECL_AMO_STANDARD

#define SHMEM_DECL_AMO_BITWISE_OP(TYPE, NAME, OP)                                                  \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_atomic_fetch_##OP)(TYPE * dest, TYPE value, int pe);    \
    SHMEM_API TYPE SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_##OP)(shmem_ctx_t ctx, TYPE * dest,    \
                                                                  TYPE value, int pe);             \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_##OP)(TYPE * dest, TYPE value, int pe);          \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_##OP)(shmem_ctx_t ctx, TYPE * dest,          \
                                                            TYPE value, int pe);                   \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_atomic_fetch_##OP##_nbi)(TYPE * fetch, TYPE * dest,     \
                                                                    TYPE value, int pe);           \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_atomic_fetch_##OP##_nbi)(                           \
        shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE value, int pe);
SHMEM_BITWISE_AMO_TYPES(SHMEM_DECL_AMO_BITWISE_OP, and)
SHMEM_BITWISE_AMO_TYPES(SHMEM_DECL_AMO_BITWISE_OP, or)
SHMEM_BITWISE_AMO_TYPES(SHMEM_DECL_AMO_BITWISE_OP, xor)
#undef SHMEM_DECL_AMO_BITWISE_OP

/* Deprecated AMO names (OpenSHMEM 1.3 and earlier). */
#define SHMEM_DECL_AMO_LEGACY(TYPE, NAME, ...)                                                     \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_cswap)(TYPE * dest, TYPE cond, TYPE value, int pe);     \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_finc)(TYPE * dest, int pe);                             \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_inc)(TYPE * dest, int pe);                              \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_fadd)(TYPE * dest, TYPE value, int pe);                 \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_add)(TYPE * dest, TYPE value, int pe);
SHMEM_LEGACY_AMO_TYPES(SHMEM_DECL_AMO_LEGACY, unused)
#undef SHMEM_DECL_AMO_LEGACY
#define SHMEM_DECL_AMO_LEGACY_EXTENDED(TYPE, NAME, ...)                                            \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_fetch)(const TYPE *source, int pe);                     \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_set)(TYPE * dest, TYPE value, int pe);                  \
    SHMEM_API TYPE SHMEM_FN(shmem_##NAME##_swap)(TYPE * dest, TYPE value, int pe);
SHMEM_LEGACY_EXTENDED_AMO_TYPES(SHMEM_DECL_AMO_LEGACY_EXTENDED, unused)
#undef SHMEM_DECL_AMO_LEGACY_EXTENDED
/* The pre-1.3 untyped swap on a long, kept for C99 and C++ callers and the ABI; in C11
 * shmem/generic.h replaces it with the generic shmem_swap over the extended AMO types. */
SHMEM_API long SHMEM_FN(shmem_swap)(long *dest, long value, int pe);

/* ---- memory ordering -------------------------------------------------------- */
SHMEM_API void SHMEM_FN(shmem_fence)(void);
SHMEM_API void SHMEM_FN(shmem_ctx_fence)(shmem_ctx_t ctx);
SHMEM_API void SHMEM_FN(shmem_quiet)(void);
SHMEM_API void SHMEM_FN(shmem_ctx_quiet)(shmem_ctx_t ctx);
SHMEM_API void SHMEM_FN(shmem_pe_quiet)(const int *target_pes, size_t npes);
SHMEM_API void SHMEM_FN(shmem_ctx_pe_quiet)(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- point-to-point synchronization ----------------------------------------- */
#define SHMEM_DECL_SYNC(TYPE, NAME, ...)                                                           \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_wait_until)(TYPE * ivar, int cmp, TYPE cmp_value);      \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_wait_until_all)(                                        \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);                  \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_wait_until_any)(                                      \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);                  \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_wait_until_some)(TYPE * ivars, size_t nelems,         \
                                                              size_t * indices, const int *status, \
                                                              int cmp, TYPE cmp_value);            \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_wait_until_all_vector)(                                 \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);                \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_wait_until_any_vector)(                               \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);                \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_wait_until_some_vector)(                              \
        TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp,                 \
        TYPE *cmp_values);                                                                         \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_test)(TYPE * ivar, int cmp, TYPE cmp_value);             \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_test_all)(TYPE * ivars, size_t nelems,                   \
                                                    const int *status, int cmp, TYPE cmp_value);   \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_test_any)(                                            \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value);                  \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_test_some)(TYPE * ivars, size_t nelems,               \
                                                        size_t * indices, const int *status,       \
                                                        int cmp, TYPE cmp_value);                  \
    SHMEM_API int SHMEM_FN(shmem_##NAME##_test_all_vector)(                                        \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);                \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_test_any_vector)(                                     \
        TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values);                \
    SHMEM_API size_t SHMEM_FN(shmem_##NAME##_test_some_vector)(                                    \
        TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp,                 \
        TYPE *cmp_values);
SHMEM_SYNC_TYPES(SHMEM_DECL_SYNC, unused)
#undef SHMEM_DECL_SYNC

/* Deprecated waits. */
#define SHMEM_DECL_WAIT_LEGACY(TYPE, NAME, ...)                                                    \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_wait)(TYPE * ivar, TYPE cmp_value);
SHMEM_LEGACY_WAIT_TYPES(SHMEM_DECL_WAIT_LEGACY, unused)
#undef SHMEM_DECL_WAIT_LEGACY
SHMEM_API void SHMEM_FN(shmem_wait)(long *ivar, long cmp_value);
SHMEM_API void SHMEM_FN(shmem_wait_until)(long *ivar, int cmp, long cmp_value);

/* ---- teams ------------------------------------------------------------------ */
SHMEM_API int SHMEM_FN(shmem_team_my_pe)(shmem_team_t team);
SHMEM_API int SHMEM_FN(shmem_team_n_pes)(shmem_team_t team);
SHMEM_API int SHMEM_FN(shmem_team_get_config)(shmem_team_t team, long config_mask,
                                              shmem_team_config_t *config);
SHMEM_API int SHMEM_FN(shmem_team_translate_pe)(shmem_team_t src_team, int src_pe,
                                                shmem_team_t dest_team);
SHMEM_API int SHMEM_FN(shmem_team_split_strided)(shmem_team_t parent_team, int start, int stride,
                                                 int size, const shmem_team_config_t *config,
                                                 long config_mask, shmem_team_t *new_team);
SHMEM_API int SHMEM_FN(shmem_team_split_2d)(shmem_team_t parent_team, int xrange,
                                            const shmem_team_config_t *xaxis_config,
                                            long xaxis_mask, shmem_team_t *xaxis_team,
                                            const shmem_team_config_t *yaxis_config,
                                            long yaxis_mask, shmem_team_t *yaxis_team);
SHMEM_API void SHMEM_FN(shmem_team_destroy)(shmem_team_t team);
SHMEM_API void *SHMEM_FN(shmem_team_ptr)(shmem_team_t team, const void *dest, int pe);

/* ---- contexts ---------------------------------------------------------------- */
SHMEM_API int SHMEM_FN(shmem_ctx_create)(long options, shmem_ctx_t *ctx);
SHMEM_API int SHMEM_FN(shmem_team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
SHMEM_API void SHMEM_FN(shmem_ctx_destroy)(shmem_ctx_t ctx);
SHMEM_API int SHMEM_FN(shmem_ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);
SHMEM_API void SHMEM_FN(shmem_ctx_session_start)(shmem_ctx_t ctx, long options,
                                                 const shmem_session_config_t *config,
                                                 long config_mask);
SHMEM_API void SHMEM_FN(shmem_ctx_session_stop)(shmem_ctx_t ctx);

/* ---- signals ------------------------------------------------------------------ */
#define SHMEM_DECL_PUT_SIGNAL(TYPE, NAME, ...)                                                     \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_put_signal)(TYPE * dest, const TYPE *source,            \
                                                       size_t nelems, uint64_t *sig_addr,          \
                                                       uint64_t signal, int sig_op, int pe);       \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_put_signal)(                                        \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,       \
        uint64_t signal, int sig_op, int pe);                                                      \
    SHMEM_API void SHMEM_FN(shmem_##NAME##_put_signal_nbi)(TYPE * dest, const TYPE *source,        \
                                                           size_t nelems, uint64_t *sig_addr,      \
                                                           uint64_t signal, int sig_op, int pe);   \
    SHMEM_API void SHMEM_FN(shmem_ctx_##NAME##_put_signal_nbi)(                                    \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,       \
        uint64_t signal, int sig_op, int pe);
SHMEM_RMA_TYPES(SHMEM_DECL_PUT_SIGNAL, unused)
#undef SHMEM_DECL_PUT_SIGNAL
#define SHMEM_DECL_PUT_SIGNAL_SIZED(BITS, ...)                                                     \
    SHMEM_API void SHMEM_FN(shmem_put##BITS##_signal)(void *dest, const void *source,              \
                                                      size_t nelems, uint64_t *sig_addr,           \
                                                      uint64_t signal, int sig_op, int pe);        \
    SHMEM_API void SHMEM_FN(shmem_ctx_put##BITS##_signal)(                                         \
        shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,        \
        uint64_t signal, int sig_op, int pe);                                                      \
    SHMEM_API void SHMEM_FN(shmem_put##BITS##_signal_nbi)(void *dest, const void *source,          \
                                                          size_t nelems, uint64_t *sig_addr,       \
                                                          uint64_t signal, int sig_op, int pe);    \
    SHMEM_API void SHMEM_FN(shmem_ctx_put##BITS##_signal_nbi)(                                     \
        shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,        \
        uint64_t signal, int sig_op, int pe);
SHMEM_SIZED_RMA(SHMEM_DECL_PUT_SIGNAL_SIZED, unused)
SHMEM_DECL_PUT_SIGNAL_SIZED(mem, unused)
#undef SHMEM_DECL_PUT_SIGNAL_SIZED
SHMEM_API uint64_t SHMEM_FN(shmem_signal_fetch)(const uint64_t *sig_addr);
SHMEM_API void SHMEM_FN(shmem_signal_add)(uint64_t *sig_addr, uint64_t signal, int pe);
SHMEM_API void SHMEM_FN(shmem_ctx_signal_add)(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                                              int pe);
SHMEM_API void SHMEM_FN(shmem_signal_set)(uint64_t *sig_addr, uint64_t signal, int pe);
SHMEM_API void SHMEM_FN(shmem_ctx_signal_set)(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal,
                                              int pe);
SHMEM_API uint64_t SHMEM_FN(shmem_signal_wait_until)(uint64_t *sig_addr, int cmp,
                                                     uint64_t cmp_value);

/* ---- collectives ----------------------------------------------------------------- */
SHMEM_API void SHMEM_FN(shmem_barrier_all)(void);
SHMEM_API void SHMEM_FN(shmem_sync_all)(void);
SHMEM_API int SHMEM_FN(shmem_team_sync)(shmem_team_t team);
#include <shmem/collectives.h>

/* ---- distributed locking ---------------------------------------------------- */
SHMEM_API void SHMEM_FN(shmem_set_lock)(long *lock);
SHMEM_API void SHMEM_FN(shmem_clear_lock)(long *lock);
SHMEM_API int SHMEM_FN(shmem_test_lock)(long *lock);

/* ---- cache management (deprecated no-ops on cache-coherent machines) --------- */
SHMEM_API void SHMEM_FN(shmem_clear_cache_inv)(void);
SHMEM_API void SHMEM_FN(shmem_set_cache_inv)(void);
SHMEM_API void SHMEM_FN(shmem_clear_cache_line_inv)(void *dest);
SHMEM_API void SHMEM_FN(shmem_set_cache_line_inv)(void *dest);
SHMEM_API void SHMEM_FN(shmem_udcflush)(void);
SHMEM_API void SHMEM_FN(shmem_udcflush_line)(void *dest);
