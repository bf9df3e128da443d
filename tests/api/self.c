/*
 * self: every family aimed at the calling PE itself.  No PE talks to another
 * here (apart from the barriers that bracket the test), so the local
 * shortcuts in the library are what is under test: RMA of every shape from
 * heap and globals to heap and globals, AMOs, wait_until satisfied by one's
 * own put, fence/quiet, shmem_ptr to self, and locks taken in turn.
 */
#include "check.h"

#define NE 64

static int g_a[NE], g_b[NE];
static long g_word;
static long g_lock;
static double g_d;

#define DEFINE_SELF_RMA(T, N)                                                                      \
    static T gs_##N[NE];                                                                           \
    static void self_rma_##N(void)                                                                 \
    {                                                                                              \
        int me = shmem_my_pe();                                                                    \
        char what[96];                                                                             \
        T *h = shmem_malloc(NE * sizeof(T));                                                       \
        CHECK(h, "shmem_malloc failed");                                                           \
        T src[NE], buf[NE];                                                                        \
        for (int i = 0; i < NE; i++) {                                                             \
            src[i] = SHT_VAL(T, me, i, 4);                                                         \
            h[i] = gs_##N[i] = (T)120;                                                             \
        }                                                                                          \
        shmem_##N##_put(h, src, NE, me);                                                           \
        shmem_##N##_put(gs_##N, h, NE, me); /* heap -> global, both local */                       \
        snprintf(what, sizeof what, "%s put to self", #N);                                         \
        for (int i = 0; i < NE; i++) {                                                             \
            CHECK_VAL(what, i, h[i], SHT_VAL(T, me, i, 4));                                        \
            CHECK_VAL(what, i, gs_##N[i], SHT_VAL(T, me, i, 4));                                   \
        }                                                                                          \
        shmem_##N##_get(buf, gs_##N, NE, me);                                                      \
        snprintf(what, sizeof what, "%s get from self", #N);                                       \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, buf[i], SHT_VAL(T, me, i, 4));                                      \
        shmem_##N##_p(&h[5], (T)7, me);                                                            \
        snprintf(what, sizeof what, "%s p/g self", #N);                                            \
        CHECK_EQ(what, h[5], (T)7);                                                                \
        CHECK_EQ(what, shmem_##N##_g(&h[5], me), (T)7);                                            \
        CHECK_EQ(what, shmem_##N##_g(&gs_##N[6], me), SHT_VAL(T, me, 6, 4));                       \
        for (int i = 0; i < NE; i++)                                                               \
            h[i] = (T)120;                                                                         \
        shmem_##N##_put_nbi(h, gs_##N, NE / 2, me);                                                \
        shmem_##N##_get_nbi(buf, gs_##N + NE / 2, NE / 2, me);                                     \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "%s nbi self", #N);                                            \
        for (int i = 0; i < NE / 2; i++) {                                                         \
            CHECK_VAL(what, i, h[i], SHT_VAL(T, me, i, 4));                                        \
            CHECK_VAL(what, i, buf[i], SHT_VAL(T, me, i + NE / 2, 4));                             \
        }                                                                                          \
        CHECK_VAL(what, NE / 2, h[NE / 2], (T)120);                                                \
        for (int i = 0; i < NE; i++)                                                               \
            h[i] = (T)120;                                                                         \
        shmem_##N##_iput(h, gs_##N, 4, 3, 10, me);                                                 \
        snprintf(what, sizeof what, "%s iput self", #N);                                           \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, h[i],                                                               \
                      (i % 4 == 0 && i / 4 < 10) ? SHT_VAL(T, me, (i / 4) * 3, 4) : (T)120);       \
        for (int i = 0; i < NE; i++)                                                               \
            buf[i] = (T)120;                                                                       \
        shmem_##N##_iget(buf, gs_##N, 3, 4, 10, me);                                               \
        snprintf(what, sizeof what, "%s iget self", #N);                                           \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, buf[i],                                                             \
                      (i % 3 == 0 && i / 3 < 10) ? SHT_VAL(T, me, (i / 3) * 4, 4) : (T)120);       \
        SELF_IB(T, N)                                                                              \
        shmem_free(h);                                                                             \
    }

#if SHOAL_TEST_HAVE_16
#define SELF_IB(T, N)                                                                              \
    for (int i = 0; i < NE; i++)                                                                   \
        h[i] = (T)120;                                                                             \
    shmem_##N##_ibput(h, gs_##N, 6, 5, 4, 3, me);                                                  \
    snprintf(what, sizeof what, "%s ibput self", #N);                                              \
    for (int i = 0; i < NE; i++)                                                                   \
        CHECK_VAL(what, i, h[i],                                                                   \
                  (i / 6 < 3 && i % 6 < 4) ? SHT_VAL(T, me, (i / 6) * 5 + i % 6, 4) : (T)120);     \
    for (int i = 0; i < NE; i++)                                                                   \
        buf[i] = (T)120;                                                                           \
    shmem_##N##_ibget(buf, gs_##N, 5, 6, 4, 3, me);                                                \
    snprintf(what, sizeof what, "%s ibget self", #N);                                              \
    for (int i = 0; i < NE; i++)                                                                   \
        CHECK_VAL(what, i, buf[i],                                                                 \
                  (i / 5 < 3 && i % 5 < 4) ? SHT_VAL(T, me, (i / 5) * 6 + i % 5, 4) : (T)120);
#else
#define SELF_IB(T, N)
#endif

SHT_RMA_TYPES(DEFINE_SELF_RMA)

#define DEFINE_SELF_AMO(T, N)                                                                      \
    static T ga_##N;                                                                               \
    static void self_amo_##N(void)                                                                 \
    {                                                                                              \
        int me = shmem_my_pe();                                                                    \
        char what[96];                                                                             \
        T *h = shmem_malloc(sizeof(T));                                                            \
        CHECK(h, "shmem_malloc failed");                                                           \
        T *targets[2] = {h, &ga_##N};                                                              \
        for (int t = 0; t < 2; t++) {                                                              \
            T *x = targets[t];                                                                     \
            snprintf(what, sizeof what, "%s self AMO on %s", #N, t ? "global" : "heap");           \
            shmem_##N##_atomic_set(x, (T)(me + 1), me);                                            \
            CHECK_EQ(what, *x, (T)(me + 1));                                                       \
            CHECK_EQ(what, shmem_##N##_atomic_fetch(x, me), (T)(me + 1));                          \
            if (SHT_CAS_WORKS(T)) {                                                                \
                CHECK_EQ(what, shmem_##N##_atomic_compare_swap(x, (T)(me + 1), (T)50, me),         \
                         (T)(me + 1));                                                             \
                CHECK_EQ(what, shmem_##N##_atomic_compare_swap(x, (T)(me + 1), (T)60, me), (T)50); \
            } else {                                                                               \
                shmem_##N##_atomic_set(x, (T)50, me);                                              \
                shmem_quiet();                                                                     \
            }                                                                                      \
            CHECK_EQ(what, shmem_##N##_atomic_swap(x, (T)10, me), (T)50);                          \
            CHECK_EQ(what, shmem_##N##_atomic_fetch_inc(x, me), (T)10);                            \
            shmem_##N##_atomic_inc(x, me);                                                         \
            shmem_quiet();                                                                         \
            CHECK_EQ(what, shmem_##N##_atomic_fetch_add(x, (T)5, me), (T)12);                      \
            shmem_##N##_atomic_add(x, (T)8, me);                                                   \
            shmem_quiet();                                                                         \
            CHECK_EQ(what, *x, (T)25);                                                             \
        }                                                                                          \
        shmem_free(h);                                                                             \
    }
SHT_AMO_STD_TYPES(DEFINE_SELF_AMO)

#define DEFINE_SELF_BIT(T, N)                                                                      \
    static T gbit_##N;                                                                             \
    static void self_bit_##N(void)                                                                 \
    {                                                                                              \
        int me = shmem_my_pe();                                                                    \
        char what[96];                                                                             \
        T *x = &gbit_##N;                                                                          \
        snprintf(what, sizeof what, "%s self bitwise", #N);                                        \
        *x = (T)0xF0F0;                                                                            \
        CHECK_EQ(what, SHT_FETCH_BITWISE(N, and, x, (T)0x3C3C, me), (T)0xF0F0);                    \
        CHECK_EQ(what, SHT_FETCH_BITWISE(N, or, x, (T)0x0003, me), (T)0x3030);                     \
        CHECK_EQ(what, SHT_FETCH_BITWISE(N, xor, x, (T)0x1111, me), (T)0x3033);                    \
        shmem_##N##_atomic_and(x, (T)0xFF00, me);                                                  \
        shmem_quiet();                                                                             \
        shmem_##N##_atomic_or(x, (T)0x000F, me);                                                   \
        shmem_quiet();                                                                             \
        shmem_##N##_atomic_xor(x, (T)0x0101, me);                                                  \
        shmem_quiet();                                                                             \
        CHECK_EQ(what, *x, (T)(((0x2122 & 0xFF00) | 0x000F) ^ 0x0101));                            \
    }
SHT_AMO_BIT_TYPES(DEFINE_SELF_BIT)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();

#define CALL_RMA(T, N) self_rma_##N();
    SHT_RMA_TYPES(CALL_RMA)
#define CALL_AMO(T, N) self_amo_##N();
    SHT_AMO_STD_TYPES(CALL_AMO)
#define CALL_BIT(T, N) self_bit_##N();
    SHT_AMO_BIT_TYPES(CALL_BIT)

    /* Extended AMOs on self. */
    shmem_double_atomic_set(&g_d, 1.5, me);
    CHECK_EQ("double self set", g_d, 1.5);
    CHECK_EQ("double self swap", shmem_double_atomic_swap(&g_d, 2.5, me), 1.5);
    CHECK_EQ("double self fetch", shmem_double_atomic_fetch(&g_d, me), 2.5);

    /* Untyped to self, overlapping-free windows of one array. */
    for (int i = 0; i < NE; i++) {
        g_a[i] = i + me * 100;
        g_b[i] = -1;
    }
    shmem_putmem(g_b, g_a, NE * sizeof(int), me);
    for (int i = 0; i < NE; i++)
        CHECK_VAL("putmem to self", i, g_b[i], i + me * 100);
    shmem_put32(&g_b[1], &g_a[10], 4, me);
    shmem_get64(&g_b[20], &g_a[30], 2, me);
    CHECK_EQ("put32 self", g_b[1], 10 + me * 100);
    CHECK_EQ("put32 self", g_b[4], 13 + me * 100);
    CHECK_EQ("put32 self", g_b[5], 5 + me * 100);
    CHECK_EQ("get64 self", g_b[23], 33 + me * 100);
    CHECK_EQ("get64 self", g_b[24], 24 + me * 100);

    /* Waiting on one's own put. */
    g_word = 0;
    shmem_long_p(&g_word, 5, me);
    shmem_long_wait_until(&g_word, SHMEM_CMP_EQ, 5);
    shmem_long_atomic_add(&g_word, 10, me);
    shmem_long_wait_until(&g_word, SHMEM_CMP_GE, 15);
    CHECK_EQ("wait_until on own put/AMO", g_word, 15L);
    CHECK_EQ("test on own data", shmem_long_test(&g_word, SHMEM_CMP_NE, 15), 0);

    /* Ordering to self. */
    long *h = shmem_malloc(NE * sizeof(long));
    CHECK(h, "shmem_malloc failed");
    for (long r = 0; r < 20; r++) {
        long src[NE];
        for (int i = 0; i < NE; i++)
            src[i] = r * 1000 + i;
        shmem_long_put_nbi(h, src, NE, me);
        shmem_fence();
        shmem_long_p(&g_word, r, me);
        shmem_quiet();
        CHECK_EQ("ordered flag to self", g_word, r);
        for (int i = 0; i < NE; i++)
            CHECK_VAL("data to self before flag", i, h[i], r * 1000 + i);
    }
#if SHOAL_TEST_HAVE_16
    shmem_long_put_nbi(h, &g_word, 1, me);
    shmem_pe_quiet(&me, 1);
    CHECK_EQ("pe_quiet to self", h[0], 19L);
#endif
    shmem_free(h);

    /* shmem_ptr to self. */
    CHECK(shmem_ptr(&g_word, me) == &g_word, "shmem_ptr(&g_word, me) != &g_word");

    /* Locks are shared by all PEs by nature; here each PE takes a lock in turn
     * and is alone while it holds it.  (Re-acquiring a held lock is undefined,
     * so it is not tried.) */
    long *hl = shmem_calloc(1, sizeof(long));
    CHECK(hl, "shmem_calloc failed");
    long *locks[2] = {hl, &g_lock};
    for (int l = 0; l < (SHT_GLOBAL_CONTENTION_WORKS ? 2 : 1); l++) {
        for (int turn = 0; turn < shmem_n_pes(); turn++) {
            if (turn == me) {
                shmem_set_lock(locks[l]);
                shmem_clear_lock(locks[l]);
                CHECK(shmem_test_lock(locks[l]) == 0, "test_lock on a free lock failed");
                shmem_clear_lock(locks[l]);
            }
            shmem_barrier_all();
        }
    }
    shmem_free(hl);

    sht_pass("self");
    shmem_finalize();
    return 0;
}
