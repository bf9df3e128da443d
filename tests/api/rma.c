/*
 * rma: put/get/p/g, the nbi forms, the strided iput/iget and (1.6) the
 * block-strided ibput/ibget for every standard RMA type, each run once on
 * the symmetric heap and once on global arrays, always to the right
 * neighbour (which is the caller itself at one PE).  Then the untyped forms:
 * putmem/getmem, putSIZE/getSIZE, their nbi forms and iputSIZE/igetSIZE,
 * zero-length transfers with NULL pointers, and one 4 MiB transfer.
 *
 * Every value carries the writer's PE number and its index (SHT_VAL), and
 * every destination starts filled with a sentinel, so a missing, misplaced,
 * truncated or overlong transfer is reported with the index and both values.
 */
#include "check.h"

#define NE 32
#define SENT(T) ((T)120) /* never produced by SHT_VAL */

#define DEFINE_RMA_TEST(T, N)                                                                      \
    static T g_dst_##N[NE];                                                                        \
    static T g_src_##N[NE];                                                                        \
                                                                                                   \
    static void rma_##N(T *dst, T *src, const char *where)                                         \
    {                                                                                              \
        int me = shmem_my_pe(), right = sht_right(), left = sht_left();                            \
        char what[96];                                                                             \
        T buf[NE];                                                                                 \
        T src2[NE];                                                                                \
                                                                                                   \
        /* Contiguous put into an offset window of the neighbour's array. */                       \
        for (int i = 0; i < NE; i++) {                                                             \
            src[i] = SHT_VAL(T, me, i, 1);                                                         \
            dst[i] = SENT(T);                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_##N##_put(dst + 1, src, NE - 2, right);                                              \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s put", #N, where);                                       \
        CHECK_VAL(what, 0, dst[0], SENT(T));                                                       \
        for (int i = 1; i < NE - 1; i++)                                                           \
            CHECK_VAL(what, i, dst[i], SHT_VAL(T, left, i - 1, 1));                                \
        CHECK_VAL(what, NE - 1, dst[NE - 1], SENT(T));                                             \
                                                                                                   \
        /* Contiguous get, whole and from an offset. */                                            \
        for (int i = 0; i < NE; i++)                                                               \
            buf[i] = SENT(T);                                                                      \
        shmem_##N##_get(buf, src, NE, right);                                                      \
        snprintf(what, sizeof what, "%s %s get", #N, where);                                       \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, buf[i], SHT_VAL(T, right, i, 1));                                   \
        for (int i = 0; i < NE; i++)                                                               \
            buf[i] = SENT(T);                                                                      \
        shmem_##N##_get(buf + 2, src + 5, 7, right);                                               \
        for (int i = 0; i < NE; i++) {                                                             \
            T e = (i >= 2 && i < 9) ? SHT_VAL(T, right, i + 3, 1) : SENT(T);                       \
            CHECK_VAL(what, i, buf[i], e);                                                         \
        }                                                                                          \
                                                                                                   \
        /* Single elements: p into the neighbour, g from the other side. */                        \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NE; i += 3)                                                            \
            shmem_##N##_p(&dst[i], SHT_VAL(T, me, i, 2), right);                                   \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s p", #N, where);                                         \
        for (int i = 0; i < NE; i += 3)                                                            \
            CHECK_VAL(what, i, dst[i], SHT_VAL(T, left, i, 2));                                    \
        snprintf(what, sizeof what, "%s %s g", #N, where);                                         \
        for (int i = 0; i < NE; i += 5)                                                            \
            CHECK_VAL(what, i, shmem_##N##_g(&src[i], left), SHT_VAL(T, left, i, 1));              \
                                                                                                   \
        /* Non-blocking put and get completed by quiet. */                                         \
        for (int i = 0; i < NE; i++)                                                               \
            src2[i] = SHT_VAL(T, me, i, 3);                                                        \
        shmem_barrier_all();                                                                       \
        shmem_##N##_put_nbi(dst, src2, NE, right);                                                 \
        shmem_quiet();                                                                             \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s put_nbi", #N, where);                                   \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, dst[i], SHT_VAL(T, left, i, 3));                                    \
        for (int i = 0; i < NE; i++)                                                               \
            buf[i] = SENT(T);                                                                      \
        shmem_##N##_get_nbi(buf, src, NE / 2, left);                                               \
        shmem_##N##_get_nbi(buf + NE / 2, src + NE / 2, NE / 2, right);                            \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "%s %s get_nbi", #N, where);                                   \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, buf[i], SHT_VAL(T, i < NE / 2 ? left : right, i, 1));               \
                                                                                                   \
        /* Strided: target stride 3, source stride 2, 10 elements. */                              \
        for (int i = 0; i < NE; i++)                                                               \
            dst[i] = SENT(T);                                                                      \
        shmem_barrier_all();                                                                       \
        shmem_##N##_iput(dst, src, 3, 2, 10, right);                                               \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s iput", #N, where);                                      \
        for (int i = 0; i < NE; i++) {                                                             \
            T e = (i % 3 == 0 && i / 3 < 10) ? SHT_VAL(T, left, (i / 3) * 2, 1) : SENT(T);         \
            CHECK_VAL(what, i, dst[i], e);                                                         \
        }                                                                                          \
        for (int i = 0; i < NE; i++)                                                               \
            buf[i] = SENT(T);                                                                      \
        shmem_##N##_iget(buf, src, 2, 3, 10, right);                                               \
        snprintf(what, sizeof what, "%s %s iget", #N, where);                                      \
        for (int i = 0; i < NE; i++) {                                                             \
            T e = (i % 2 == 0 && i / 2 < 10) ? SHT_VAL(T, right, (i / 2) * 3, 1) : SENT(T);        \
            CHECK_VAL(what, i, buf[i], e);                                                         \
        }                                                                                          \
        RMA_IB_TESTS(T, N)                                                                         \
        shmem_barrier_all();                                                                       \
    }                                                                                              \
                                                                                                   \
    static void test_##N(void)                                                                     \
    {                                                                                              \
        T *h_dst = shmem_malloc(NE * sizeof(T));                                                   \
        T *h_src = shmem_malloc(NE * sizeof(T));                                                   \
        CHECK(h_dst != NULL && h_src != NULL, "shmem_malloc for %s failed", #N);                   \
        rma_##N(h_dst, h_src, "heap");                                                             \
        rma_##N(g_dst_##N, g_src_##N, "global");                                                   \
        /* Mixed: heap source into a global destination and back. */                               \
        rma_##N(g_dst_##N, h_src, "heap->global");                                                 \
        rma_##N(h_dst, g_src_##N, "global->heap");                                                 \
        shmem_free(h_src);                                                                         \
        shmem_free(h_dst);                                                                         \
    }

#if SHOAL_TEST_HAVE_16
/* Block-strided (1.6): block b of bsize elements goes from source + b*sst to
 * dest + b*dst.  Here bsize 3, 4 blocks, source stride 4, dest stride 5. */
#define RMA_IB_TESTS(T, N)                                                                         \
    for (int i = 0; i < NE; i++)                                                                   \
        dst[i] = SENT(T);                                                                          \
    shmem_barrier_all();                                                                           \
    shmem_##N##_ibput(dst, src, 5, 4, 3, 4, right);                                                \
    shmem_barrier_all();                                                                           \
    snprintf(what, sizeof what, "%s %s ibput", #N, where);                                         \
    for (int i = 0; i < NE; i++) {                                                                 \
        int b = i / 5, j = i % 5;                                                                  \
        T e = (b < 4 && j < 3) ? SHT_VAL(T, left, b * 4 + j, 1) : SENT(T);                         \
        CHECK_VAL(what, i, dst[i], e);                                                             \
    }                                                                                              \
    for (int i = 0; i < NE; i++)                                                                   \
        buf[i] = SENT(T);                                                                          \
    shmem_##N##_ibget(buf, src, 4, 5, 3, 4, right);                                                \
    snprintf(what, sizeof what, "%s %s ibget", #N, where);                                         \
    for (int i = 0; i < NE; i++) {                                                                 \
        int b = i / 4, j = i % 4;                                                                  \
        T e = (b < 4 && j < 3) ? SHT_VAL(T, right, b * 5 + j, 1) : SENT(T);                        \
        CHECK_VAL(what, i, buf[i], e);                                                             \
    }
#else
#define RMA_IB_TESTS(T, N)
#endif

SHT_RMA_TYPES(DEFINE_RMA_TEST)

/* ---- untyped forms ------------------------------------------------------ */

#define NB 512 /* bytes, a multiple of 16 */

static unsigned char g_bytes_dst[NB];
static unsigned char g_bytes_src[NB];

static unsigned char byte_val(int pe, size_t i, int round)
{
    return (unsigned char)((pe * 53 + i * 11 + round * 29 + 1) % 251);
}

static void fill_src(unsigned char *src, int round)
{
    for (size_t i = 0; i < NB; i++)
        src[i] = byte_val(shmem_my_pe(), i, round);
}

static void clear(unsigned char *p)
{
    memset(p, 0xEE, NB);
}

/* dst[lo, lo+n) must hold the writer's bytes [0, n) of round; the rest 0xEE */
static void check_window(const char *what, const unsigned char *dst, size_t lo, size_t n,
                         int writer, size_t src_off, int round)
{
    for (size_t i = 0; i < NB; i++) {
        unsigned e = (i >= lo && i < lo + n) ? byte_val(writer, src_off + i - lo, round) : 0xEEu;
        CHECK_VAL(what, i, (unsigned)dst[i], e);
    }
}

/* putSIZE/getSIZE move nelems elements of SIZE bits each. */
#define SIZED(X) X(8) X(16) X(32) X(64) X(128)

static void untyped(unsigned char *dst, unsigned char *src, const char *where)
{
    int right = sht_right(), left = sht_left();
    char what[96];
    unsigned char buf[NB];
    int round = 10;

    /* putmem / getmem, with odd offsets and lengths. */
    fill_src(src, round);
    clear(dst);
    shmem_barrier_all();
    shmem_putmem(dst + 3, src + 1, 101, right);
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s putmem", where);
    check_window(what, dst, 3, 101, left, 1, round);
    clear(buf);
    shmem_getmem(buf + 7, src + 2, 99, right);
    snprintf(what, sizeof what, "%s getmem", where);
    check_window(what, buf, 7, 99, right, 2, round);

    /* putmem_nbi / getmem_nbi. */
    shmem_barrier_all();
    clear(dst);
    shmem_barrier_all();
    shmem_putmem_nbi(dst, src, NB, right);
    shmem_quiet();
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s putmem_nbi", where);
    check_window(what, dst, 0, NB, left, 0, round);
    clear(buf);
    shmem_getmem_nbi(buf, src, NB - 1, left);
    shmem_quiet();
    snprintf(what, sizeof what, "%s getmem_nbi", where);
    check_window(what, buf, 0, NB - 1, left, 0, round);

#define SIZED_BLOCK(S)                                                                             \
    shmem_barrier_all(); /* everyone is done reading the previous round */                         \
    round++;                                                                                       \
    fill_src(src, round);                                                                          \
    shmem_barrier_all();                                                                           \
    clear(dst);                                                                                    \
    shmem_barrier_all();                                                                           \
    shmem_put##S(dst + (S) / 8, src, 5, right);                                                    \
    shmem_barrier_all();                                                                           \
    snprintf(what, sizeof what, "%s put%d", where, S);                                             \
    check_window(what, dst, (S) / 8, 5 * (S) / 8, left, 0, round);                                 \
    clear(buf);                                                                                    \
    shmem_get##S(buf, src + (S) / 8, 6, right);                                                    \
    snprintf(what, sizeof what, "%s get%d", where, S);                                             \
    check_window(what, buf, 0, 6 * (S) / 8, right, (S) / 8, round);                                \
    shmem_barrier_all();                                                                           \
    clear(dst);                                                                                    \
    shmem_barrier_all();                                                                           \
    shmem_put##S##_nbi(dst, src, 7, right);                                                        \
    shmem_quiet();                                                                                 \
    shmem_barrier_all();                                                                           \
    snprintf(what, sizeof what, "%s put%d_nbi", where, S);                                         \
    check_window(what, dst, 0, 7 * (S) / 8, left, 0, round);                                       \
    clear(buf);                                                                                    \
    shmem_get##S##_nbi(buf, src, 3, left);                                                         \
    shmem_quiet();                                                                                 \
    snprintf(what, sizeof what, "%s get%d_nbi", where, S);                                         \
    check_window(what, buf, 0, 3 * (S) / 8, left, 0, round);                                       \
    /* iputSIZE: element k of size S/8 from src elem 2k to dst elem 3k. */                         \
    shmem_barrier_all();                                                                           \
    clear(dst);                                                                                    \
    shmem_barrier_all();                                                                           \
    shmem_iput##S(dst, src, 3, 2, 4, right);                                                       \
    shmem_barrier_all();                                                                           \
    snprintf(what, sizeof what, "%s iput%d", where, S);                                            \
    for (size_t i = 0; i < NB; i++) {                                                              \
        size_t el = i / ((S) / 8), off = i % ((S) / 8);                                            \
        unsigned e = (el % 3 == 0 && el / 3 < 4)                                                   \
                         ? byte_val(left, (el / 3) * 2 * ((S) / 8) + off, round)                   \
                         : 0xEEu;                                                                  \
        CHECK_VAL(what, i, (unsigned)dst[i], e);                                                   \
    }                                                                                              \
    clear(buf);                                                                                    \
    shmem_iget##S(buf, src, 2, 3, 4, right);                                                       \
    snprintf(what, sizeof what, "%s iget%d", where, S);                                            \
    for (size_t i = 0; i < NB; i++) {                                                              \
        size_t el = i / ((S) / 8), off = i % ((S) / 8);                                            \
        unsigned e = (el % 2 == 0 && el / 2 < 4)                                                   \
                         ? byte_val(right, (el / 2) * 3 * ((S) / 8) + off, round)                  \
                         : 0xEEu;                                                                  \
        CHECK_VAL(what, i, (unsigned)buf[i], e);                                                   \
    }                                                                                              \
    IB_SIZED_BLOCK(S)

#if SHOAL_TEST_HAVE_16
#define IB_SIZED_BLOCK(S)                                                                          \
    shmem_barrier_all();                                                                           \
    clear(dst);                                                                                    \
    shmem_barrier_all();                                                                           \
    shmem_ibput##S(dst, src, 5, 4, 3, 3, right);                                                   \
    shmem_barrier_all();                                                                           \
    snprintf(what, sizeof what, "%s ibput%d", where, S);                                           \
    for (size_t i = 0; i < NB; i++) {                                                              \
        size_t el = i / ((S) / 8), off = i % ((S) / 8);                                            \
        size_t b = el / 5, j = el % 5;                                                             \
        unsigned e =                                                                               \
            (b < 3 && j < 3) ? byte_val(left, (b * 4 + j) * ((S) / 8) + off, round) : 0xEEu;       \
        CHECK_VAL(what, i, (unsigned)dst[i], e);                                                   \
    }                                                                                              \
    clear(buf);                                                                                    \
    shmem_ibget##S(buf, src, 4, 5, 3, 3, right);                                                   \
    snprintf(what, sizeof what, "%s ibget%d", where, S);                                           \
    for (size_t i = 0; i < NB; i++) {                                                              \
        size_t el = i / ((S) / 8), off = i % ((S) / 8);                                            \
        size_t b = el / 4, j = el % 4;                                                             \
        unsigned e =                                                                               \
            (b < 3 && j < 3) ? byte_val(right, (b * 5 + j) * ((S) / 8) + off, round) : 0xEEu;      \
        CHECK_VAL(what, i, (unsigned)buf[i], e);                                                   \
    }
#else
#define IB_SIZED_BLOCK(S)
#endif

    SIZED(SIZED_BLOCK)
    shmem_barrier_all();
}

/* Zero-length transfers are no-ops, even with NULL pointers. */
static void zero_length(unsigned char *dst)
{
    int right = sht_right();
    memset(dst, 0x5A, NB);
    shmem_barrier_all();
#if SHOAL_TEST_HAVE_15 /* OSHMEM 4.1 rejects NULL even at length 0 */
    shmem_putmem(NULL, NULL, 0, right);
    shmem_getmem(NULL, NULL, 0, right);
    shmem_putmem_nbi(NULL, NULL, 0, right);
    shmem_getmem_nbi(NULL, NULL, 0, right);
    shmem_int_put(NULL, NULL, 0, right);
    shmem_int_get(NULL, NULL, 0, right);
    shmem_long_put_nbi(NULL, NULL, 0, right);
    shmem_long_get_nbi(NULL, NULL, 0, right);
    shmem_int_iput(NULL, NULL, 1, 1, 0, right);
    shmem_int_iget(NULL, NULL, 1, 1, 0, right);
    shmem_put64(NULL, NULL, 0, right);
    shmem_get32(NULL, NULL, 0, right);
#endif
    /* Real pointers, zero length: nothing may be written. */
    unsigned char junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    shmem_putmem(dst, junk, 0, right);
    shmem_putmem_nbi(dst, junk, 0, right);
    shmem_quiet();
    shmem_barrier_all();
    for (size_t i = 0; i < NB; i++)
        CHECK_VAL("zero-length put left a trace", i, (unsigned)dst[i], 0x5Au);
    shmem_barrier_all();
}

/* A transfer much larger than any internal buffer or cache line: 4 MiB put
 * and get with a pattern that differs per word and per PE. */
static void large(void)
{
    int right = sht_right(), left = sht_left(), me = shmem_my_pe();
    const size_t n = (4u << 20) / sizeof(uint64_t);
    uint64_t *dst = shmem_malloc(n * sizeof(uint64_t));
    uint64_t *src = shmem_malloc(n * sizeof(uint64_t));
    uint64_t *buf = malloc(n * sizeof(uint64_t));
    CHECK(dst && src && buf, "allocating 3 x 4 MiB failed");
    for (size_t i = 0; i < n; i++) {
        src[i] = ((uint64_t)me << 40) ^ (i * 0x9E3779B97F4A7C15ull);
        dst[i] = 0;
    }
    shmem_barrier_all();
    shmem_putmem(dst, src, n * sizeof(uint64_t), right);
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        if (dst[i] != (((uint64_t)left << 40) ^ (i * 0x9E3779B97F4A7C15ull)))
            CHECK_VAL("4 MiB putmem", i, dst[i],
                      ((uint64_t)left << 40) ^ (i * 0x9E3779B97F4A7C15ull));
    shmem_uint64_get_nbi(buf, src, n, left);
    shmem_quiet();
    for (size_t i = 0; i < n; i++)
        if (buf[i] != (((uint64_t)left << 40) ^ (i * 0x9E3779B97F4A7C15ull)))
            CHECK_VAL("4 MiB get_nbi", i, buf[i],
                      ((uint64_t)left << 40) ^ (i * 0x9E3779B97F4A7C15ull));
    shmem_barrier_all();
    free(buf);
    shmem_free(src);
    shmem_free(dst);
}

int main(void)
{
    shmem_init();

#define RUN(T, N) test_##N();
    SHT_RMA_TYPES(RUN)

    unsigned char *h_dst = shmem_malloc(NB);
    unsigned char *h_src = shmem_malloc(NB);
    CHECK(h_dst && h_src, "shmem_malloc(%d) failed", NB);
    untyped(h_dst, h_src, "heap");
    untyped(g_bytes_dst, g_bytes_src, "global");
    untyped(h_dst, g_bytes_src, "global->heap");
    zero_length(h_dst);
    zero_length(g_bytes_dst);
    large();
    shmem_free(h_dst);
    shmem_free(h_src);

    sht_pass("rma");
    shmem_finalize();
    return 0;
}
