/*
 * The routines the test tool (prof_tool.c) interposes and counts, as one
 * table shared by the tool, which defines a counting shmem_* wrapper for
 * each row that forwards to its pshmem_* twin, and by the program
 * (prof_calls.c), which counts its own calls through the same rows.
 *
 * PROF_VALUE rows return RET; PROF_VOID rows return nothing. Each row:
 * (RET,) NAME, (PARAMS), (ARGS).
 */
#ifndef SHOAL_TESTS_PROFILING_COUNTED_H
#define SHOAL_TESTS_PROFILING_COUNTED_H

#include <shmem.h>

#define PROF_VOID(X)                                                                               \
    X(shmem_init, (void), ())                                                                      \
    X(shmem_finalize, (void), ())                                                                  \
    X(shmem_barrier_all, (void), ())                                                               \
    X(shmem_sync_all, (void), ())                                                                  \
    X(shmem_quiet, (void), ())                                                                     \
    X(shmem_ctx_pe_quiet, (shmem_ctx_t ctx, const int *pes, size_t n), (ctx, pes, n))              \
    X(shmem_long_p, (long *dest, long value, int pe), (dest, value, pe))                           \
    X(shmem_long_put, (long *dest, const long *src, size_t n, int pe), (dest, src, n, pe))         \
    X(shmem_putmem, (void *dest, const void *src, size_t n, int pe), (dest, src, n, pe))           \
    X(shmem_long_atomic_add, (long *dest, long value, int pe), (dest, value, pe))                  \
    X(shmem_long_wait_until, (long *ivar, int cmp, long value), (ivar, cmp, value))                \
    X(shmem_free, (void *ptr), (ptr))                                                              \
    X(shfree, (void *ptr), (ptr))

#define PROF_VALUE(X)                                                                              \
    X(int, shmem_my_pe, (void), ())                                                                \
    X(int, shmem_n_pes, (void), ())                                                                \
    X(void *, shmem_malloc, (size_t size), (size))                                                 \
    X(void *, shmalloc, (size_t size), (size))                                                     \
    X(void *, shmem_ptr, (const void *p, int pe), (p, pe))                                         \
    X(long, shmem_long_g, (const long *src, int pe), (src, pe))                                    \
    X(long, shmem_long_atomic_fetch, (const long *src, int pe), (src, pe))                         \
    X(long, shmem_long_atomic_fetch_add, (long *dest, long value, int pe), (dest, value, pe))      \
    X(int, shmem_long_sum_reduce, (shmem_team_t t, long *d, const long *s, size_t n),              \
      (t, d, s, n))                                                                                \
    X(int, shmem_long_broadcast, (shmem_team_t t, long *d, const long *s, size_t n, int root),     \
      (t, d, s, n, root))                                                                          \
    X(int, shmem_fcollectmem, (shmem_team_t t, void *d, const void *s, size_t n), (t, d, s, n))    \
    X(int, shmem_team_sync, (shmem_team_t t), (t))

/* shmem_pcontrol is variadic, so the tool writes its wrapper by hand; it
 * has a counter all the same. */
#define PROF_ID_OF_VOID(NAME, PARAMS, ARGS) PROF_ID_##NAME,
#define PROF_ID_OF_VALUE(RET, NAME, PARAMS, ARGS) PROF_ID_##NAME,
enum {
    PROF_VOID(PROF_ID_OF_VOID) PROF_VALUE(PROF_ID_OF_VALUE) PROF_ID_shmem_pcontrol,
    PROF_NCOUNTED
};

/* The tool's counters, indexed by PROF_ID_*; found with dlsym, so the
 * program works with the tool linked in front of libshoal or preloaded. */
#define PROF_COUNTS_SYMBOL "prof_tool_counts"
typedef const long *(*prof_counts_fn)(void);

#endif
