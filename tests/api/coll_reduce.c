/*
 * coll_reduce: team-based reductions (OpenSHMEM 1.5) for every type and
 * operation of Table "teamreducetypes", on every team shape (the world, a
 * strided subteam, the world reversed, both 2-D teams; see check.h).
 *
 *  - AND/OR/XOR on the unsigned and fixed-width integer types, MAX/MIN on
 *    every integer and real type, SUM/PROD on those and on complexd and
 *    complexf; integer results are exact, real ones within a relative 1e-5
 *    (the inputs are small dyadic numbers, so they come out exact);
 *  - 1, 7, 1000 and 9000 elements, so that both the small-message and the
 *    large-message (two-shot) algorithms run, with guard elements after dest
 *    that must stay untouched and a source that must stay unchanged, and
 *    is overwritten the moment the call returns (the spec lets a PE reuse
 *    it then, so a peer still reading it would get garbage);
 *  - in-place reductions (dest == source);
 *  - nreduce == 0 leaves dest alone;
 *  - back to back: eight reductions with no synchronization between them,
 *    each PE overwriting its source as soon as a call returns (the spec lets
 *    it reuse the source then), then all results checked;
 *  - reductions over global (static) arrays as well as the heap.
 *
 * Across hosts (SHOAL_TEST_HOSTS > 1: tests/netns) the table runs one
 * reduction of each element size (1, 2, 4, 8 and 16 bytes), still at every
 * count and in place: src/coll/reduce.c picks its algorithm and moves data
 * by bytes (count * elem) and applies the operation locally, so the other
 * types and operations of a size repeated the same transfers (each of them
 * is checked by the one-host runs, which keep the whole table).
 */
#include "check.h"

#include <complex.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("coll_reduce", "needs the OpenSHMEM 1.5 team API")
#else

#include "coll_bufs.h"

/* One reduction: fill source (and dest with the sentinel), synchronize the
 * team so that no PE writes into a dest that is still being filled, call,
 * and check every element against the fold of the members' inputs. */
#define DEF_REDUCE(T, N, OP, GEN, COMB)                                                            \
    static void reduce_##N##_##OP(const sht_shape_t *s, unsigned char *sbuf, unsigned char *dbuf,  \
                                  size_t n, int inplace)                                           \
    {                                                                                              \
        T *src = (T *)sbuf, *dst = inplace ? src : (T *)dbuf;                                      \
        int me = shmem_my_pe();                                                                    \
        if (!inplace)                                                                              \
            memset(dst, SENTINEL, (n + GUARD) * sizeof(T));                                        \
        memset(src + n, SENTINEL, GUARD * sizeof(T));                                              \
        for (size_t i = 0; i < n; i++)                                                             \
            src[i] = GEN(T, me, (int)i);                                                           \
        shmem_team_sync(s->team);                                                                  \
        int rc = shmem_##N##_##OP##_reduce(s->team, dst, src, n);                                  \
        snprintf(what, sizeof what, "%s: shmem_%s_%s_reduce n=%zu%s%s", s->name, #N, #OP, n,       \
                 inplace ? " in place" : "", sbuf == (unsigned char *)g_src ? " (globals)" : "");  \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        if (!inplace) {                                                                            \
            /* Unchanged, and free for reuse now: scribble over it, so a peer                      \
             * that still reads it gets garbage. */                                                \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, i, src[i], GEN(T, me, (int)i));                                    \
            check_guard(what, (unsigned char *)src, n, sizeof(T));                                 \
            memset(src, 0x5A, n * sizeof(T));                                                      \
        }                                                                                          \
        for (size_t i = 0; i < n; i++) {                                                           \
            T e = GEN(T, s->world[0], (int)i);                                                     \
            for (int k = 1; k < s->n; k++)                                                         \
                e = COMB(T, e, GEN(T, s->world[k], (int)i));                                       \
            CHECK_ARITH(T, what, i, dst[i], e);                                                    \
        }                                                                                          \
        check_guard(what, (unsigned char *)dst, n, sizeof(T));                                     \
    }

#define DEF_BIT(T, N)                                                                              \
    DEF_REDUCE(T, N, and, SHT_GEN_AND, SHT_OP_AND)                                                 \
    DEF_REDUCE(T, N, or, SHT_GEN_OR, SHT_OP_OR)                                                    \
    DEF_REDUCE(T, N, xor, SHT_GEN_XOR, SHT_OP_XOR)
#define DEF_MINMAX(T, N)                                                                           \
    DEF_REDUCE(T, N, max, SHT_GEN_MINMAX, SHT_OP_MAX)                                              \
    DEF_REDUCE(T, N, min, SHT_GEN_MINMAX, SHT_OP_MIN)
#define DEF_ARITH(T, N)                                                                            \
    DEF_REDUCE(T, N, sum, SHT_GEN_SUM, SHT_OP_SUM)                                                 \
    DEF_REDUCE(T, N, prod, SHT_GEN_PROD, SHT_OP_PROD)
SHT_REDUCE_BIT_TYPES(DEF_BIT)
SHT_REDUCE_MINMAX_TYPES(DEF_MINMAX)
SHT_REDUCE_ARITH_TYPES(DEF_ARITH)

/* Complex SUM and PROD: real and imaginary parts checked apart. */
#define GEN_CSUM(T, R, p, i)                                                                       \
    ((T)((R)(((p)*3 + (i)) % 7) - (R)2.5 + (R)(((p) + (i)*5) % 9) * (R)0.5 * I))
/* (1 + i) from every fourth PE, -1 from some, 1 elsewhere: exact. */
#define GEN_CPROD(T, R, p, i)                                                                      \
    (((p) + (i)) % 4 == 0 ? (T)((R)1 + (R)1 * I) : ((p) + (i)) % 4 == 1 ? (T)(R)-1 : (T)(R)1)
#define DEF_COMPLEX(T, N, R)                                                                       \
    DEF_COMPLEX_OP(T, N, R, sum, GEN_CSUM, +)                                                      \
    DEF_COMPLEX_OP(T, N, R, prod, GEN_CPROD, *)
#define DEF_COMPLEX_OP(T, N, R, OP, GEN, SYM)                                                      \
    static void reduce_##N##_##OP(const sht_shape_t *s, unsigned char *sbuf, unsigned char *dbuf,  \
                                  size_t n, int inplace)                                           \
    {                                                                                              \
        T *src = (T *)sbuf, *dst = inplace ? src : (T *)dbuf;                                      \
        int me = shmem_my_pe();                                                                    \
        if (!inplace)                                                                              \
            memset(dst, SENTINEL, (n + GUARD) * sizeof(T));                                        \
        for (size_t i = 0; i < n; i++)                                                             \
            src[i] = GEN(T, R, me, (int)i);                                                        \
        shmem_team_sync(s->team);                                                                  \
        int rc = shmem_##N##_##OP##_reduce(s->team, dst, src, n);                                  \
        snprintf(what, sizeof what, "%s: shmem_%s_%s_reduce n=%zu%s", s->name, #N, #OP, n,         \
                 inplace ? " in place" : "");                                                      \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        if (!inplace)                                                                              \
            memset(src, 0x5A, n * sizeof(T)); /* free for reuse */                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            T e = GEN(T, R, s->world[0], (int)i);                                                  \
            for (int k = 1; k < s->n; k++)                                                         \
                e = e SYM GEN(T, R, s->world[k], (int)i);                                          \
            CHECK_NEAR(what, i, creal(dst[i]), creal(e), 1e-5);                                    \
            CHECK_NEAR(what, i, cimag(dst[i]), cimag(e), 1e-5);                                    \
        }                                                                                          \
        if (!inplace)                                                                              \
            check_guard(what, (unsigned char *)dst, n, sizeof(T));                                 \
    }
SHT_REDUCE_COMPLEX_TYPES(DEF_COMPLEX)

typedef void (*reduce_fn)(const sht_shape_t *, unsigned char *, unsigned char *, size_t, int);
static const struct {
    const char *name;
    reduce_fn fn;
    size_t elem;
} reductions[] = {
#define ROW_BIT(T, N)                                                                              \
    {#N "_and", reduce_##N##_and, sizeof(T)}, {#N "_or", reduce_##N##_or, sizeof(T)},              \
        {#N "_xor", reduce_##N##_xor, sizeof(T)},
#define ROW_MINMAX(T, N)                                                                           \
    {#N "_max", reduce_##N##_max, sizeof(T)}, {#N "_min", reduce_##N##_min, sizeof(T)},
#define ROW_ARITH(T, N)                                                                            \
    {#N "_sum", reduce_##N##_sum, sizeof(T)}, {#N "_prod", reduce_##N##_prod, sizeof(T)},
#define ROW_COMPLEX(T, N, R) ROW_ARITH(T, N)
    SHT_REDUCE_BIT_TYPES(ROW_BIT) SHT_REDUCE_MINMAX_TYPES(ROW_MINMAX)
        SHT_REDUCE_ARITH_TYPES(ROW_ARITH) SHT_REDUCE_COMPLEX_TYPES(ROW_COMPLEX)};
#define NREDUCTIONS (sizeof reductions / sizeof reductions[0])

/* Whether reductions[r] runs: always on one host; across hosts only the
 * first row of its element size (see the top). */
static int reduction_runs(size_t r)
{
    if (sht_hosts() == 1)
        return 1;
    for (size_t u = 0; u < r; u++)
        if (reductions[u].elem == reductions[r].elem)
            return 0;
    return 1;
}

/* Eight long sums back to back, each into its own dest and from its own
 * source, without synchronization between them; each source is overwritten
 * as soon as its call returns.  A PE that still read a peer's source after
 * that peer returned, or wrote a peer's dest for call k+1 into call k's
 * slot, shows up as a wrong sum. */
static void back_to_back(const sht_shape_t *s, size_t n)
{
    enum { K = 8 };
    long *src = (long *)src_buf, *dst = (long *)dst_buf;
    int me = shmem_my_pe();
    CHECK(K * n * sizeof(long) <= BUF_BYTES, "buffer too small");
    for (int k = 0; k < K; k++)
        for (size_t i = 0; i < n; i++) {
            src[k * n + i] = SHT_GEN_SUM(long, me, (int)i) + k * 1000;
            dst[k * n + i] = -1;
        }
    shmem_team_sync(s->team);
    for (int k = 0; k < K; k++) {
        CHECK(shmem_long_sum_reduce(s->team, dst + k * n, src + k * n, n) == 0,
              "%s: back-to-back long_sum_reduce %d failed", s->name, k);
        for (size_t i = 0; i < n; i++)
            src[k * n + i] = 0x5a5a5a5a; /* the source may be reused now */
    }
    for (int k = 0; k < K; k++) {
        snprintf(what, sizeof what, "%s: back-to-back long_sum_reduce #%d n=%zu", s->name, k, n);
        for (size_t i = 0; i < n; i++) {
            long e = 0;
            for (int m = 0; m < s->n; m++)
                e += SHT_GEN_SUM(long, s->world[m], (int)i) + k * 1000;
            CHECK_VAL(what, i, dst[k * n + i], e);
        }
    }
    shmem_team_sync(s->team);
}

int main(void)
{
    shmem_init();
    src_buf = shmem_malloc(BUF_BYTES);
    dst_buf = shmem_malloc(BUF_BYTES);
    CHECK(src_buf && dst_buf, "shmem_malloc of %zu bytes failed", BUF_BYTES);
    sht_shapes_make(shapes);

    for (int sh = 0; sh < SHT_NSHAPES; sh++) {
        const sht_shape_t *s = &shapes[sh];
        if (s->me >= 0) {
            for (size_t r = 0; r < NREDUCTIONS; r++)
                for (size_t z = 0; reduction_runs(r) && z < NSIZES; z++)
                    reductions[r].fn(s, src_buf, dst_buf, sizes[z], 0);
            for (size_t r = 0; r < NREDUCTIONS; r++)
                if (reduction_runs(r))
                    reductions[r].fn(s, src_buf, dst_buf, 7, 1);
            /* Globals: a few types, every size, separate and in place. */
            for (size_t z = 0; z < NSIZES; z++) {
                reduce_long_sum(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 0);
                reduce_double_max(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 0);
                reduce_uint_xor(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 0);
                reduce_int_prod(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 1);
            }
            /* nreduce == 0: nothing is written. */
            memset(dst_buf, SENTINEL, GUARD * sizeof(long));
            shmem_team_sync(s->team);
            CHECK(shmem_long_sum_reduce(s->team, (long *)dst_buf, (long *)src_buf, 0) == 0,
                  "%s: long_sum_reduce with nreduce 0 failed", s->name);
            check_guard("long_sum_reduce nreduce 0", dst_buf, 0, sizeof(long));
            shmem_team_sync(s->team);
            back_to_back(s, 5);
            back_to_back(s, 1000);
        }
        shmem_barrier_all(); /* the next shape reuses the buffers */
    }

    sht_shapes_destroy(shapes);
    shmem_free(src_buf);
    shmem_free(dst_buf);
    sht_pass("coll_reduce");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
