/*
 * coll_scan: the OpenSHMEM 1.6 prefix sums shmem_TYPENAME_sum_inscan and
 * shmem_TYPENAME_sum_exscan(team, dest, source, nelems) for every SUM type
 * of Table "teamreducetypes" (complex included) on every team shape.
 *
 *  - inscan: dest on team PE k is the sum of source over team PEs 0..k;
 *    exscan: over team PEs 0..k-1, and 0 on team PE 0.  Team order is what
 *    counts: on the reversed team, world PE N-1 is first;
 *  - 1, 7, 1000 and 9000 elements, guard elements after dest untouched,
 *    source unchanged and then overwritten as soon as the call returns;
 *    in place (dest == source); nelems == 0;
 *  - back to back, alternating inscan and exscan without synchronization
 *    and with the source overwritten as soon as each call returns;
 *  - on global (static) arrays too.
 */
#include "check.h"

#include <complex.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("coll_scan", "needs the OpenSHMEM 1.5 team API")
#else

#include "coll_bufs.h"

/* Sum over team PEs [0, upto) of the generator; `zero` is T's 0. */
#define DEF_SCAN_KIND(T, N, KIND, INCL, GEN, EXPECT_CHECK)                                         \
    static void scan_##N##_##KIND(const sht_shape_t *s, unsigned char *sbuf, unsigned char *dbuf,  \
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
        int rc = shmem_##N##_sum_##KIND(s->team, dst, src, n);                                     \
        snprintf(what, sizeof what, "%s: shmem_%s_sum_%s n=%zu%s%s (team PE %d)", s->name, #N,     \
                 #KIND, n, inplace ? " in place" : "",                                             \
                 sbuf == (unsigned char *)g_src ? " (globals)" : "", s->me);                       \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        if (!inplace) {                                                                            \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK(src[i] == GEN(T, me, (int)i), "%s: source[%zu] changed", what, i);           \
            check_guard(what, (unsigned char *)src, n, sizeof(T));                                 \
            memset(src, 0x5A, n * sizeof(T)); /* free for reuse now */                             \
        }                                                                                          \
        int upto = s->me + (INCL);                                                                 \
        for (size_t i = 0; i < n; i++) {                                                           \
            T e = (T)0;                                                                            \
            for (int k = 0; k < upto; k++)                                                         \
                e = e + GEN(T, s->world[k], (int)i);                                               \
            EXPECT_CHECK(T, what, i, dst[i], e);                                                   \
        }                                                                                          \
        check_guard(what, (unsigned char *)dst, n, sizeof(T));                                     \
    }

#define REAL_CHECK(T, what, i, seen, e) CHECK_ARITH(T, what, i, seen, (T)(e))
#define DEF_SCAN(T, N)                                                                             \
    DEF_SCAN_KIND(T, N, inscan, 1, SHT_GEN_SUM, REAL_CHECK)                                        \
    DEF_SCAN_KIND(T, N, exscan, 0, SHT_GEN_SUM, REAL_CHECK)
SHT_REDUCE_ARITH_TYPES(DEF_SCAN)

#define GEN_CD(T, p, i)                                                                            \
    ((T)((double)(((p)*3 + (i)) % 7) - 2.5 + (double)(((p) + (i)) % 5) * 0.5 * I))
#define COMPLEX_CHECK(T, what, i, seen, e)                                                         \
    do {                                                                                           \
        CHECK_NEAR(what, i, creal(seen), creal(e), 1e-5);                                          \
        CHECK_NEAR(what, i, cimag(seen), cimag(e), 1e-5);                                          \
    } while (0)
DEF_SCAN_KIND(double _Complex, complexd, inscan, 1, GEN_CD, COMPLEX_CHECK)
DEF_SCAN_KIND(double _Complex, complexd, exscan, 0, GEN_CD, COMPLEX_CHECK)
DEF_SCAN_KIND(float _Complex, complexf, inscan, 1, GEN_CD, COMPLEX_CHECK)
DEF_SCAN_KIND(float _Complex, complexf, exscan, 0, GEN_CD, COMPLEX_CHECK)

typedef void (*scan_fn)(const sht_shape_t *, unsigned char *, unsigned char *, size_t, int);
static const scan_fn scans[] = {
#define ROW(T, N) scan_##N##_inscan, scan_##N##_exscan,
    SHT_REDUCE_ARITH_TYPES(ROW) scan_complexd_inscan,
    scan_complexd_exscan,
    scan_complexf_inscan,
    scan_complexf_exscan,
};
#define NSCANS (sizeof scans / sizeof scans[0])

/* Eight scans back to back (inscan, exscan, ...), each with its own source
 * and dest, the source overwritten as soon as the call returns. */
static void back_to_back(const sht_shape_t *s, size_t n)
{
    enum { K = 8 };
    long *src = (long *)src_buf, *dst = (long *)dst_buf;
    int me = shmem_my_pe();
    for (int k = 0; k < K; k++)
        for (size_t i = 0; i < n; i++) {
            src[k * n + i] = SHT_GEN_SUM(long, me, (int)i) * (k + 1);
            dst[k * n + i] = -1;
        }
    shmem_team_sync(s->team);
    for (int k = 0; k < K; k++) {
        int rc = k % 2 ? shmem_long_sum_exscan(s->team, dst + k * n, src + k * n, n)
                       : shmem_long_sum_inscan(s->team, dst + k * n, src + k * n, n);
        CHECK(rc == 0, "%s: back-to-back scan %d failed", s->name, k);
        for (size_t i = 0; i < n; i++)
            src[k * n + i] = 0x5a5a5a5a;
    }
    for (int k = 0; k < K; k++) {
        snprintf(what, sizeof what, "%s: back-to-back long_sum_%s #%d n=%zu (team PE %d)", s->name,
                 k % 2 ? "exscan" : "inscan", k, n, s->me);
        int upto = s->me + (k % 2 ? 0 : 1);
        for (size_t i = 0; i < n; i++) {
            long e = 0;
            for (int m = 0; m < upto; m++)
                e += SHT_GEN_SUM(long, s->world[m], (int)i) * (k + 1);
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
            for (size_t f = 0; f < NSCANS; f++)
                for (size_t z = 0; z < NSIZES; z++)
                    scans[f](s, src_buf, dst_buf, sizes[z], 0);
            for (size_t f = 0; f < NSCANS; f++)
                scans[f](s, src_buf, dst_buf, 7, 1);
            for (size_t z = 0; z < NSIZES; z++) {
                scan_long_inscan(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 0);
                scan_double_exscan(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 0);
                scan_int_exscan(s, (unsigned char *)g_src, (unsigned char *)g_dst, sizes[z], 1);
            }
            memset(dst_buf, SENTINEL, GUARD * sizeof(long));
            shmem_team_sync(s->team);
            CHECK(shmem_long_sum_inscan(s->team, (long *)dst_buf, (long *)src_buf, 0) == 0,
                  "%s: long_sum_inscan with nelems 0 failed", s->name);
            CHECK(shmem_long_sum_exscan(s->team, (long *)dst_buf, (long *)src_buf, 0) == 0,
                  "%s: long_sum_exscan with nelems 0 failed", s->name);
            check_guard("sum_inscan/exscan nelems 0", dst_buf, 0, sizeof(long));
            shmem_team_sync(s->team);
            back_to_back(s, 5);
            back_to_back(s, 1000);
        }
        shmem_barrier_all();
    }

    sht_shapes_destroy(shapes);
    shmem_free(src_buf);
    shmem_free(dst_buf);
    sht_pass("coll_scan");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
