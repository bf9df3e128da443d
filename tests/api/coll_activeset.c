/*
 * coll_activeset: the deprecated active-set collectives, which a great many
 * existing programs still call.  Only OpenSHMEM 1.4 API, so it also builds
 * against Open MPI's OSHMEM (tests/api/run_oshmem.sh).
 *
 * Active sets (PE_start, logPE_stride, PE_size): the world; the even and
 * the odd PEs at the same time (each with the same pSync array); PEs 1..N-1
 * (PE 0 sits out); every fourth PE; the last PE alone.  For each:
 *
 *  - shmem_barrier: data put before it is at the target after it;
 *  - shmem_broadcast32/64 from the last and the first PE of the set: dest
 *    updated on every other member;
 *  - shmem_collect32/64 with per-PE counts (zero on some), fcollect32/64,
 *    alltoall32/64, alltoalls32/64 with strides 2 and 3;
 *  - shmem_TYPE_OP_to_all for every type and operation of Table
 *    "asetreducetypes" (complex SUM/PROD included) with pWrk of the minimum
 *    size, 1, 7 and 1000 elements, and in place;
 *  - pSync initialized once to SHMEM_SYNC_VALUE and reused (the library
 *    must restore it), on globals; buffers on the heap and on globals;
 *  - every source overwritten as soon as its call returns (the spec lets a
 *    PE reuse it then), before the others have checked their results;
 *  - back to back without barriers, as OSU's benchmarks call them: 300
 *    fcollect64, alltoall64 and long_sum_to_all calls on the world
 *    alternating two pSyncs (the spec's way to reuse one without
 *    synchronizing) and two dests, every result checked before the next
 *    call, each source overwritten as soon as its call returns.
 */
#include "check.h"

#include <complex.h>

#define PSYNC_N 64 /* at least every SHMEM_*_SYNC_SIZE */
#define NMAX 1000
#define GUARD 8
#define SENTINEL 0xA5

static long pSync[PSYNC_N], pSync_bar[PSYNC_N];
static long g_src[64 * NMAX * 3 + GUARD], g_dst[64 * NMAX * 2 + GUARD]; /* up to 64 PEs */
static unsigned char *src_buf, *dst_buf, *wrk_buf;
static char what[256];

typedef struct {
    const char *name;
    int start, log, size; /* the active set */
    int idx;              /* this PE's index in it, -1 if not a member */
    int world[64];
} aset_t;

static void aset(aset_t *a, const char *name, int start, int log, int size)
{
    a->name = name;
    a->start = start;
    a->log = log;
    a->size = size;
    a->idx = sht_in_set(shmem_my_pe(), start, 1 << log, size);
    for (int i = 0; i < size && i < 64; i++)
        a->world[i] = start + (i << log);
}

/* Back-to-back fcollect64/alltoall64 on the world: a PE may run one call
 * ahead of another, never two (each waits for every block), so the dest of
 * call k is free again once its owner is in call k + 1. */
static long b2b_psync[2][PSYNC_N], b2b_src[64], b2b_dst[2][64 * 64];
static long b2b_wrk[2][SHMEM_REDUCE_MIN_WRKDATA_SIZE + 64];

static void back_to_back(int me, int npes)
{
    if (npes > 64)
        return;
    for (int k = 0; k < 300; k++) {
        long *dst = b2b_dst[k & 1];
        long *psync = b2b_psync[k & 1];
        for (int j = 0; j < 64; j++)
            b2b_src[j] = 1000000L * k + 1000L * me + j;
        if (k % 3 == 2) {
            /* two elements: every PE's (k, me, j) summed */
            shmem_long_sum_to_all(dst, b2b_src, 2, 0, 0, npes, b2b_wrk[k & 1], psync);
            for (int j = 0; j < npes; j++)
                b2b_src[j] = -1; /* reused at once, as the spec allows */
            for (int j = 0; j < 2; j++) {
                long want = npes * (1000000L * k + j) + 1000L * npes * (npes - 1) / 2;
                snprintf(what, sizeof(what), "back-to-back long_sum_to_all call %d, element", k);
                CHECK_VAL(what, j, dst[j], want);
            }
            continue;
        }
        if (k % 3 == 0)
            shmem_fcollect64(dst, b2b_src, 1, 0, 0, npes, psync);
        else
            shmem_alltoall64(dst, b2b_src, 1, 0, 0, npes, psync);
        for (int j = 0; j < npes; j++)
            b2b_src[j] = -1;
        for (int i = 0; i < npes; i++) {
            /* fcollect: PE i's first element; alltoall: PE i's element for me */
            long want = 1000000L * k + 1000L * i + (k % 3 == 0 ? 0 : me);
            snprintf(what, sizeof(what), "back-to-back %s call %d, block of PE",
                     k % 3 == 0 ? "fcollect64" : "alltoall64", k);
            CHECK_VAL(what, i, dst[i], want);
        }
    }
    shmem_barrier_all();
    for (int i = 0; i < PSYNC_N; i++) {
        CHECK_VAL("back-to-back pSync 0 restored", i, b2b_psync[0][i], (long)SHMEM_SYNC_VALUE);
        CHECK_VAL("back-to-back pSync 1 restored", i, b2b_psync[1][i], (long)SHMEM_SYNC_VALUE);
    }
}

static void check_sentinel(const char *name, const unsigned char *p, size_t from, size_t to)
{
    for (size_t b = from; b < to; b++)
        CHECK(p[b] == SENTINEL, "%s: byte %zu of dest, outside the result, was written (0x%02x)",
              name, b, p[b]);
}

#define ASET(a) (a)->start, (a)->log, (a)->size

static void t_barrier(const aset_t *a, int round)
{
    static long box;
    int nxt = a->world[(a->idx + 1) % a->size];
    int prv = a->world[(a->idx + a->size - 1) % a->size];
    box = -1;
    shmem_barrier(ASET(a), pSync_bar); /* box is reset everywhere */
    shmem_long_p(&box, 100L * shmem_my_pe() + round, nxt);
    shmem_barrier(ASET(a), pSync_bar); /* completes the p */
    snprintf(what, sizeof what, "%s: data put before shmem_barrier", a->name);
    CHECK_VAL(what, round, SHT_READ(long, &box), 100L * prv + round);
    shmem_barrier(ASET(a), pSync_bar);
}

#define VAL(T, pe, i, r) ((T)(SHT_VAL(uint64_t, pe, (i) % 100000, r) * 0x10001ULL + (i)))
/* A source may be reused as soon as the call returns: overwrite it, so a
 * peer that still reads it gets garbage. */
#define SCRIBBLE(p, n) memset((p), 0x5A, (size_t)(n) * sizeof *(p))

/* Data-movement forms for 32- or 64-bit elements (T = uint32_t/uint64_t). */
#define DEF_MOVE(BITS, T)                                                                          \
    static void t_broadcast##BITS(const aset_t *a, unsigned char *sb, unsigned char *db, size_t n, \
                                  int root, int r)                                                 \
    {                                                                                              \
        T *src = (T *)sb, *dst = (T *)db;                                                          \
        int me = shmem_my_pe();                                                                    \
        for (size_t i = 0; i < n; i++)                                                             \
            src[i] = VAL(T, me, i, r);                                                             \
        memset(dst, SENTINEL, (n + GUARD) * sizeof(T));                                            \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_broadcast##BITS(dst, src, n, root, ASET(a), pSync);                                  \
        snprintf(what, sizeof what, "%s: shmem_broadcast" #BITS " n=%zu root %d", a->name, n,      \
                 root);                                                                            \
        for (size_t i = 0; i < n; i++)                                                             \
            CHECK_VAL(what, i, src[i], VAL(T, me, i, r));                                          \
        SCRIBBLE(src, n);                                                                          \
        if (a->idx != root)                                                                        \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, i, dst[i], VAL(T, a->world[root], i, r));                          \
        check_sentinel(what, db, n * sizeof(T), (n + GUARD) * sizeof(T));                          \
    }                                                                                              \
    static size_t count##BITS(int k, size_t n, int r)                                              \
    {                                                                                              \
        return (k + r) % 3 == 1 ? 0 : n + (size_t)k;                                               \
    }                                                                                              \
    static void t_collect##BITS(const aset_t *a, unsigned char *sb, unsigned char *db, size_t n,   \
                                int r)                                                             \
    {                                                                                              \
        T *src = (T *)sb, *dst = (T *)db;                                                          \
        int me = shmem_my_pe();                                                                    \
        size_t mine = count##BITS(a->idx, n, r), total = 0;                                        \
        for (int k = 0; k < a->size; k++)                                                          \
            total += count##BITS(k, n, r);                                                         \
        for (size_t i = 0; i < mine; i++)                                                          \
            src[i] = VAL(T, me, i, r);                                                             \
        memset(dst, SENTINEL, (total + GUARD) * sizeof(T));                                        \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_collect##BITS(dst, src, mine, ASET(a), pSync);                                       \
        SCRIBBLE(src, mine);                                                                       \
        snprintf(what, sizeof what, "%s: shmem_collect" #BITS " n=%zu (here %zu of %zu)", a->name, \
                 n, mine, total);                                                                  \
        size_t at = 0;                                                                             \
        for (int k = 0; k < a->size; k++)                                                          \
            for (size_t i = 0; i < count##BITS(k, n, r); i++, at++)                                \
                CHECK_VAL(what, at, dst[at], VAL(T, a->world[k], i, r));                           \
        check_sentinel(what, db, total * sizeof(T), (total + GUARD) * sizeof(T));                  \
        /* fcollect */                                                                             \
        for (size_t i = 0; i < n; i++)                                                             \
            src[i] = VAL(T, me, i, r + 1);                                                         \
        total = n * (size_t)a->size;                                                               \
        memset(dst, SENTINEL, (total + GUARD) * sizeof(T));                                        \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_fcollect##BITS(dst, src, n, ASET(a), pSync);                                         \
        SCRIBBLE(src, n);                                                                          \
        snprintf(what, sizeof what, "%s: shmem_fcollect" #BITS " n=%zu", a->name, n);              \
        for (int k = 0; k < a->size; k++)                                                          \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, k *n + i, dst[k * n + i], VAL(T, a->world[k], i, r + 1));          \
        check_sentinel(what, db, total * sizeof(T), (total + GUARD) * sizeof(T));                  \
    }                                                                                              \
    static void t_alltoall##BITS(const aset_t *a, unsigned char *sb, unsigned char *db, size_t n,  \
                                 int r)                                                            \
    {                                                                                              \
        T *src = (T *)sb, *dst = (T *)db;                                                          \
        int me = shmem_my_pe();                                                                    \
        size_t total = n * (size_t)a->size;                                                        \
        for (size_t i = 0; i < total; i++)                                                         \
            src[i] = VAL(T, me, i, r);                                                             \
        memset(dst, SENTINEL, (total + GUARD) * sizeof(T));                                        \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_alltoall##BITS(dst, src, n, ASET(a), pSync);                                         \
        SCRIBBLE(src, total);                                                                      \
        snprintf(what, sizeof what, "%s: shmem_alltoall" #BITS " n=%zu", a->name, n);              \
        for (int k = 0; k < a->size; k++)                                                          \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, k *n + i, dst[k * n + i], VAL(T, a->world[k], a->idx * n + i, r)); \
        check_sentinel(what, db, total * sizeof(T), (total + GUARD) * sizeof(T));                  \
        /* alltoalls, dest stride 2, source stride 3 */                                            \
        for (size_t i = 0; i < 3 * total; i++)                                                     \
            src[i] = i % 3 ? (T)0 : VAL(T, me, i / 3, r + 1);                                      \
        size_t span = 2 * (total - 1) + 1;                                                         \
        memset(dst, SENTINEL, (span + GUARD) * sizeof(T));                                         \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_alltoalls##BITS(dst, src, 2, 3, n, ASET(a), pSync);                                  \
        SCRIBBLE(src, 3 * total);                                                                  \
        snprintf(what, sizeof what, "%s: shmem_alltoalls" #BITS " n=%zu dst 2 sst 3", a->name, n); \
        for (int k = 0; k < a->size; k++)                                                          \
            for (size_t i = 0; i < n; i++) {                                                       \
                size_t at = 2 * (k * n + i);                                                       \
                CHECK_VAL(what, at, dst[at], VAL(T, a->world[k], a->idx *n + i, r + 1));           \
                if (at + 1 < span)                                                                 \
                    check_sentinel(what, db, (at + 1) * sizeof(T), (at + 2) * sizeof(T));          \
            }                                                                                      \
        check_sentinel(what, db, span * sizeof(T), (span + GUARD) * sizeof(T));                    \
    }
DEF_MOVE(32, uint32_t)
DEF_MOVE(64, uint64_t)

/* TYPE_OP_to_all with the minimum pWrk. */
#define WRK_ELEMS(n)                                                                               \
    ((n) / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? (n) / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE)
#define DEF_TOALL(T, N, OP, GEN, COMB)                                                             \
    static void toall_##N##_##OP(const aset_t *a, unsigned char *sb, unsigned char *db, int n,     \
                                 int inplace)                                                      \
    {                                                                                              \
        T *src = (T *)sb, *dst = inplace ? src : (T *)db;                                          \
        int me = shmem_my_pe();                                                                    \
        if (!inplace)                                                                              \
            memset(dst, SENTINEL, (size_t)(n + GUARD) * sizeof(T));                                \
        for (int i = 0; i < n; i++)                                                                \
            src[i] = GEN(T, me, i);                                                                \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_##N##_##OP##_to_all(dst, src, n, ASET(a), (T *)wrk_buf, pSync);                      \
        if (!inplace)                                                                              \
            SCRIBBLE(src, n);                                                                      \
        snprintf(what, sizeof what, "%s: shmem_%s_%s_to_all n=%d%s%s", a->name, #N, #OP, n,        \
                 inplace ? " in place" : "", sb == (unsigned char *)g_src ? " (globals)" : "");    \
        for (int i = 0; i < n; i++) {                                                              \
            T e = GEN(T, a->world[0], i);                                                          \
            for (int k = 1; k < a->size; k++)                                                      \
                e = COMB(T, e, GEN(T, a->world[k], i));                                            \
            CHECK_ARITH(T, what, i, dst[i], e);                                                    \
        }                                                                                          \
        if (!inplace)                                                                              \
            check_sentinel(what, (unsigned char *)dst, (size_t)n * sizeof(T),                      \
                           (size_t)(n + GUARD) * sizeof(T));                                       \
    }
#define DEF_TOALL_BIT(T, N)                                                                        \
    DEF_TOALL(T, N, and, SHT_GEN_AND, SHT_OP_AND)                                                  \
    DEF_TOALL(T, N, or, SHT_GEN_OR, SHT_OP_OR)                                                     \
    DEF_TOALL(T, N, xor, SHT_GEN_XOR, SHT_OP_XOR)
#define DEF_TOALL_MINMAX(T, N)                                                                     \
    DEF_TOALL(T, N, max, SHT_GEN_MINMAX, SHT_OP_MAX)                                               \
    DEF_TOALL(T, N, min, SHT_GEN_MINMAX, SHT_OP_MIN)                                               \
    DEF_TOALL(T, N, sum, SHT_GEN_SUM, SHT_OP_SUM)                                                  \
    DEF_TOALL(T, N, prod, SHT_GEN_PROD, SHT_OP_PROD)
SHT_TOALL_BIT_TYPES(DEF_TOALL_BIT)
SHT_TOALL_MINMAX_TYPES(DEF_TOALL_MINMAX)

/* Complex SUM/PROD to_all; parts checked apart. */
#define GEN_C(T, p, i, prod)                                                                       \
    ((prod) ? (((p) + (i)) % 4 == 0   ? (T)(1.0 + 1.0 * I)                                         \
               : ((p) + (i)) % 4 == 1 ? (T)-1                                                      \
                                      : (T)1)                                                      \
            : (T)((double)(((p)*3 + (i)) % 7) - 2.5 + (double)(((p) + (i)) % 5) * 0.5 * I))
#define DEF_CTOALL(T, N, OP, PROD, SYM)                                                            \
    static void toall_##N##_##OP(const aset_t *a, unsigned char *sb, unsigned char *db, int n,     \
                                 int inplace)                                                      \
    {                                                                                              \
        T *src = (T *)sb, *dst = inplace ? src : (T *)db;                                          \
        int me = shmem_my_pe();                                                                    \
        for (int i = 0; i < n; i++)                                                                \
            src[i] = GEN_C(T, me, i, PROD);                                                        \
        shmem_barrier(ASET(a), pSync_bar);                                                         \
        shmem_##N##_##OP##_to_all(dst, src, n, ASET(a), (T *)wrk_buf, pSync);                      \
        if (!inplace)                                                                              \
            SCRIBBLE(src, n);                                                                      \
        snprintf(what, sizeof what, "%s: shmem_%s_%s_to_all n=%d%s", a->name, #N, #OP, n,          \
                 inplace ? " in place" : "");                                                      \
        for (int i = 0; i < n; i++) {                                                              \
            T e = GEN_C(T, a->world[0], i, PROD);                                                  \
            for (int k = 1; k < a->size; k++)                                                      \
                e = e SYM GEN_C(T, a->world[k], i, PROD);                                          \
            CHECK_NEAR(what, i, creal(dst[i]), creal(e), 1e-5);                                    \
            CHECK_NEAR(what, i, cimag(dst[i]), cimag(e), 1e-5);                                    \
        }                                                                                          \
    }
DEF_CTOALL(double _Complex, complexd, sum, 0, +)
DEF_CTOALL(double _Complex, complexd, prod, 1, *)
DEF_CTOALL(float _Complex, complexf, sum, 0, +)
DEF_CTOALL(float _Complex, complexf, prod, 1, *)

typedef void (*toall_fn)(const aset_t *, unsigned char *, unsigned char *, int, int);
static const toall_fn toalls[] = {
#define ROW_BIT(T, N) toall_##N##_and, toall_##N##_or, toall_##N##_xor,
#define ROW_MM(T, N) toall_##N##_max, toall_##N##_min, toall_##N##_sum, toall_##N##_prod,
    SHT_TOALL_BIT_TYPES(ROW_BIT) SHT_TOALL_MINMAX_TYPES(ROW_MM) toall_complexd_sum,
    toall_complexd_prod,
    toall_complexf_sum,
    toall_complexf_prod,
};

/* Everything on one active set; every PE calls this, members do the work,
 * and all PEs meet in shmem_barrier_all after each collective so that the
 * shared pSync is free again. */
static void run_set(const aset_t *a, int r)
{
    static const int sizes[] = {1, 7, NMAX};
    int member = a->idx >= 0;
#define STEP(call)                                                                                 \
    do {                                                                                           \
        if (member) {                                                                              \
            call;                                                                                  \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
    } while (0)
    for (int k = 0; k < 5; k++)
        STEP(t_barrier(a, r * 10 + k));
    for (int z = 0; z < 3; z++) {
        size_t n = (size_t)sizes[z];
        STEP(t_broadcast32(a, src_buf, dst_buf, n, a->size - 1, r + z));
        STEP(t_broadcast64(a, src_buf, dst_buf, n, 0, r + z));
        STEP(t_broadcast64(a, (unsigned char *)g_src, (unsigned char *)g_dst, n, a->size / 2, r));
        STEP(t_collect32(a, src_buf, dst_buf, n, r + z));
        STEP(t_collect64(a, (unsigned char *)g_src, (unsigned char *)g_dst, n, r + z));
        STEP(t_alltoall32(a, src_buf, dst_buf, n, r + z));
        STEP(t_alltoall64(a, src_buf, dst_buf, n, r + z));
        STEP(t_alltoall64(a, (unsigned char *)g_src, (unsigned char *)g_dst, n, r + z + 1));
        for (size_t f = 0; f < sizeof toalls / sizeof toalls[0]; f++)
            STEP(toalls[f](a, src_buf, dst_buf, (int)n, 0));
    }
    for (size_t f = 0; f < sizeof toalls / sizeof toalls[0]; f++)
        STEP(toalls[f](a, src_buf, dst_buf, 7, 1));
    STEP(toall_long_sum(a, (unsigned char *)g_src, (unsigned char *)g_dst, NMAX, 0));
    STEP(toall_double_max(a, (unsigned char *)g_src, (unsigned char *)g_dst, 7, 0));
#undef STEP
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < PSYNC_N; i++)
        pSync[i] = pSync_bar[i] = SHMEM_SYNC_VALUE;
    size_t bytes = (size_t)npes * NMAX * 3 * sizeof(long double) + 1024;
    src_buf = shmem_malloc(bytes);
    dst_buf = shmem_malloc(bytes);
    wrk_buf = shmem_malloc((WRK_ELEMS(NMAX) + 16) * sizeof(long double _Complex));
    CHECK(src_buf && dst_buf && wrk_buf, "shmem_malloc failed");
    shmem_barrier_all(); /* every pSync initialized before anyone uses it */

    aset_t a;
    aset(&a, "world (0,0,N)", 0, 0, npes);
    run_set(&a, 0);
    if (me % 2 == 0)
        aset(&a, "evens (0,1,N/2) beside the odds", 0, 1, (npes + 1) / 2);
    else
        aset(&a, "odds (1,1,N/2) beside the evens", 1, 1, npes / 2);
    run_set(&a, 1);
    if (npes >= 2) {
        aset(&a, "PEs 1..N-1 (1,0,N-1)", 1, 0, npes - 1);
        run_set(&a, 2);
    }
    aset(&a, "every fourth PE (0,2,N/4)", 0, 2, (npes + 3) / 4);
    run_set(&a, 3);
    aset(&a, "the last PE alone", npes - 1, 0, 1);
    run_set(&a, 4);
    back_to_back(me, npes);

    for (int i = 0; i < PSYNC_N; i++) {
        CHECK_VAL("pSync restored after use", i, pSync[i], (long)SHMEM_SYNC_VALUE);
        CHECK_VAL("barrier pSync restored after use", i, pSync_bar[i], (long)SHMEM_SYNC_VALUE);
    }
    shmem_free(src_buf);
    shmem_free(dst_buf);
    shmem_free(wrk_buf);
    sht_pass("coll_activeset");
    shmem_finalize();
    return 0;
}
