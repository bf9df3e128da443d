/*
 * generic: the C11 type-generic interface.  For each distinct C type the
 * generic names (shmem_put, shmem_get, shmem_p, shmem_g, the nbi and strided
 * forms, the atomics, shmem_wait_until, shmem_test, and the 1.5/1.6
 * additions) must pick the routine of that type: a wrong pick moves the wrong
 * number of bytes, which the sentinels around each window catch.  The
 * context-taking generic forms are exercised with SHMEM_CTX_DEFAULT.
 */
#include "check.h"

#define NE 16
#define SENT(T) ((T)120)

#define DEFINE_GEN_RMA(T, N)                                                                       \
    static T gr_dst_##N[NE + 2];                                                                   \
    static T gr_src_##N[NE];                                                                       \
    static void gen_rma_##N(void)                                                                  \
    {                                                                                              \
        int me = shmem_my_pe(), right = sht_right(), left = sht_left();                            \
        T *dst = gr_dst_##N + 1; /* sentinels at dst[-1] and dst[NE] */                            \
        T *src = gr_src_##N;                                                                       \
        T buf[NE + 2];                                                                             \
        T *b = buf + 1;                                                                            \
        char what[96];                                                                             \
        for (int i = 0; i < NE; i++)                                                               \
            src[i] = SHT_VAL(T, me, i, 1);                                                         \
        for (int i = -1; i <= NE; i++)                                                             \
            dst[i] = SENT(T);                                                                      \
        shmem_barrier_all();                                                                       \
        shmem_put(dst, src, NE, right);                                                            \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "shmem_put(%s)", #T);                                          \
        CHECK_VAL(what, -1, dst[-1], SENT(T));                                                     \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, dst[i], SHT_VAL(T, left, i, 1));                                    \
        CHECK_VAL(what, NE, dst[NE], SENT(T));                                                     \
        for (int i = -1; i <= NE; i++)                                                             \
            b[i] = SENT(T);                                                                        \
        shmem_get(b, src, NE, right);                                                              \
        snprintf(what, sizeof what, "shmem_get(%s)", #T);                                          \
        CHECK_VAL(what, -1, b[-1], SENT(T));                                                       \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, b[i], SHT_VAL(T, right, i, 1));                                     \
        CHECK_VAL(what, NE, b[NE], SENT(T));                                                       \
        /* p and g */                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_p(&dst[3], SHT_VAL(T, me, 3, 2), right);                                             \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "shmem_p(%s)", #T);                                            \
        CHECK_VAL(what, 2, dst[2], SHT_VAL(T, left, 2, 1));                                        \
        CHECK_VAL(what, 3, dst[3], SHT_VAL(T, left, 3, 2));                                        \
        CHECK_VAL(what, 4, dst[4], SHT_VAL(T, left, 4, 1));                                        \
        snprintf(what, sizeof what, "shmem_g(%s)", #T);                                            \
        CHECK_VAL(what, 5, shmem_g(&src[5], left), SHT_VAL(T, left, 5, 1));                        \
        /* context forms, nbi */                                                                   \
        shmem_barrier_all();                                                                       \
        shmem_put_nbi(SHMEM_CTX_DEFAULT, dst, src, NE / 2, right);                                 \
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);                                                        \
        shmem_barrier_all();                                                                       \
        for (int i = -1; i <= NE; i++)                                                             \
            b[i] = SENT(T);                                                                        \
        shmem_get_nbi(b, src, NE, left);                                                           \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "shmem_get_nbi(%s)", #T);                                      \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, b[i], SHT_VAL(T, left, i, 1));                                      \
        CHECK_VAL(what, NE, b[NE], SENT(T));                                                       \
        snprintf(what, sizeof what, "shmem_g(ctx, %s)", #T);                                       \
        CHECK_VAL(what, 7, shmem_g(SHMEM_CTX_DEFAULT, &src[7], right), SHT_VAL(T, right, 7, 1));   \
        /* strided */                                                                              \
        for (int i = -1; i <= NE; i++)                                                             \
            dst[i] = SENT(T);                                                                      \
        shmem_barrier_all();                                                                       \
        shmem_iput(dst, src, 2, 3, 5, right);                                                      \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "shmem_iput(%s)", #T);                                         \
        for (int i = -1; i <= NE; i++) {                                                           \
            T e =                                                                                  \
                (i >= 0 && i % 2 == 0 && i / 2 < 5) ? SHT_VAL(T, left, (i / 2) * 3, 1) : SENT(T);  \
            CHECK_VAL(what, i, dst[i], e);                                                         \
        }                                                                                          \
        for (int i = -1; i <= NE; i++)                                                             \
            b[i] = SENT(T);                                                                        \
        shmem_iget(b, src, 3, 2, 5, right);                                                        \
        snprintf(what, sizeof what, "shmem_iget(%s)", #T);                                         \
        for (int i = -1; i <= NE; i++) {                                                           \
            T e =                                                                                  \
                (i >= 0 && i % 3 == 0 && i / 3 < 5) ? SHT_VAL(T, right, (i / 3) * 2, 1) : SENT(T); \
            CHECK_VAL(what, i, b[i], e);                                                           \
        }                                                                                          \
        GEN_IB(T, N)                                                                               \
        shmem_barrier_all();                                                                       \
    }

#if SHOAL_TEST_HAVE_16
#define GEN_IB(T, N)                                                                               \
    for (int i = -1; i <= NE; i++)                                                                 \
        dst[i] = SENT(T);                                                                          \
    shmem_barrier_all();                                                                           \
    shmem_ibput(dst, src, 4, 3, 2, 3, right); /* blocks of 2, 3 blocks */                          \
    shmem_barrier_all();                                                                           \
    snprintf(what, sizeof what, "shmem_ibput(%s)", #T);                                            \
    for (int i = -1; i <= NE; i++) {                                                               \
        T e = (i >= 0 && i / 4 < 3 && i % 4 < 2) ? SHT_VAL(T, left, (i / 4) * 3 + i % 4, 1)        \
                                                 : SENT(T);                                        \
        CHECK_VAL(what, i, dst[i], e);                                                             \
    }                                                                                              \
    for (int i = -1; i <= NE; i++)                                                                 \
        b[i] = SENT(T);                                                                            \
    shmem_ibget(b, src, 3, 4, 2, 3, right);                                                        \
    snprintf(what, sizeof what, "shmem_ibget(%s)", #T);                                            \
    for (int i = -1; i <= NE; i++) {                                                               \
        T e = (i >= 0 && i / 3 < 3 && i % 3 < 2) ? SHT_VAL(T, right, (i / 3) * 4 + i % 3, 1)       \
                                                 : SENT(T);                                        \
        CHECK_VAL(what, i, b[i], e);                                                               \
    }
#else
#define GEN_IB(T, N)
#endif

SHT_RMA_BASE_TYPES(DEFINE_GEN_RMA)

/* ---- atomics ------------------------------------------------------------- */

#define GEN_AMO_TYPES(X)                                                                           \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)

#define DEFINE_GEN_AMO(T, N)                                                                       \
    static T ga_x_##N[4];                                                                          \
    static void gen_amo_##N(void)                                                                  \
    {                                                                                              \
        int me = shmem_my_pe(), right = sht_right(), left = sht_left();                            \
        int npes = shmem_n_pes();                                                                  \
        T *x = ga_x_##N;                                                                           \
        char what[96];                                                                             \
        x[0] = x[1] = x[2] = x[3] = (T)0;                                                          \
        shmem_barrier_all();                                                                       \
        shmem_atomic_set(&x[1], (T)(me + 10), right);                                              \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "shmem_atomic_set(%s)", #T);                                   \
        CHECK_EQ(what, x[1], (T)(left + 10));                                                      \
        CHECK_EQ(what, x[0], (T)0);                                                                \
        CHECK_EQ(what, x[2], (T)0);                                                                \
        snprintf(what, sizeof what, "shmem_atomic_fetch(%s)", #T);                                 \
        CHECK_EQ(what, shmem_atomic_fetch(&x[1], right), (T)(me + 10));                            \
        shmem_barrier_all(); /* everyone checked before x[1] changes again */                      \
        snprintf(what, sizeof what, "shmem_atomic_compare_swap(%s)", #T);                          \
        if (SHT_CAS_WORKS(T)) {                                                                    \
            CHECK_EQ(what, shmem_atomic_compare_swap(&x[1], (T)(me + 10), (T)(me + 20), right),    \
                     (T)(me + 10));                                                                \
            CHECK_EQ(what, shmem_atomic_compare_swap(&x[1], (T)(me + 10), (T)99, right),           \
                     (T)(me + 20));                                                                \
        } else {                                                                                   \
            shmem_atomic_add(&x[1], (T)10, right);                                                 \
            shmem_quiet();                                                                         \
        }                                                                                          \
        snprintf(what, sizeof what, "shmem_atomic_swap(%s)", #T);                                  \
        CHECK_EQ(what, shmem_atomic_swap(&x[1], (T)(me + 30), right), (T)(me + 20));               \
        snprintf(what, sizeof what, "shmem_atomic_fetch_inc(%s)", #T);                             \
        CHECK_EQ(what, shmem_atomic_fetch_inc(&x[1], right), (T)(me + 30));                        \
        snprintf(what, sizeof what, "shmem_atomic_fetch_add(%s)", #T);                             \
        CHECK_EQ(what, shmem_atomic_fetch_add(&x[1], (T)5, right), (T)(me + 31));                  \
        shmem_atomic_inc(&x[1], right);                                                            \
        shmem_fence();                                                                             \
        shmem_atomic_add(&x[1], (T)100, right);                                                    \
        shmem_fence();                                                                             \
        shmem_atomic_add(SHMEM_CTX_DEFAULT, &x[1], (T)1000, right);                                \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "generic atomics chain (%s)", #T);                             \
        CHECK_EQ(what, x[1], (T)(left + 1137));                                                    \
        CHECK_EQ(what, x[0], (T)0);                                                                \
        CHECK_EQ(what, x[2], (T)0);                                                                \
        /* All PEs add to PE 0 through the generic names. */                                       \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < 50; k++) {                                                             \
            shmem_atomic_fetch_add(&ga_x_##N[3], (T)2, 0);                                         \
            shmem_atomic_inc(&ga_x_##N[3], 0);                                                     \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        if (SHT_GLOBAL_CONTENTION_WORKS || npes == 1) {                                            \
            snprintf(what, sizeof what, "generic hammer (%s)", #T);                                \
            CHECK_EQ(what, shmem_atomic_fetch(&ga_x_##N[3], 0), (T)(150 * npes));                  \
        }                                                                                          \
        GEN_AMO_NBI(T, N)                                                                          \
        shmem_barrier_all();                                                                       \
    }

#if SHOAL_TEST_HAVE_15
#define GEN_AMO_NBI(T, N)                                                                          \
    {                                                                                              \
        T f[3];                                                                                    \
        shmem_barrier_all();                                                                       \
        x[0] = (T)(me + 1);                                                                        \
        x[2] = (T)(me + 2);                                                                        \
        shmem_barrier_all();                                                                       \
        shmem_atomic_fetch_add_nbi(&f[0], &x[0], (T)7, right);                                     \
        shmem_atomic_fetch_nbi(&f[1], &x[2], right);                                               \
        shmem_atomic_swap_nbi(&f[2], &x[1], (T)3, right);                                          \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "generic nbi AMOs (%s)", #T);                                  \
        CHECK_VAL(what, 0, f[0], (T)(right + 1));                                                  \
        CHECK_VAL(what, 1, f[1], (T)(right + 2));                                                  \
        CHECK_VAL(what, 2, f[2], (T)(me + 1137));                                                  \
        shmem_barrier_all();                                                                       \
        CHECK_VAL(what, 0, x[0], (T)(me + 8));                                                     \
        CHECK_VAL(what, 1, x[1], (T)3);                                                            \
    }
#else
#define GEN_AMO_NBI(T, N)
#endif

GEN_AMO_TYPES(DEFINE_GEN_AMO)

#define GEN_EXT_TYPES(X)                                                                           \
    X(float, float)                                                                                \
    X(double, double)

#define DEFINE_GEN_EXT(T, N)                                                                       \
    static T ge_x_##N[3];                                                                          \
    static void gen_ext_##N(void)                                                                  \
    {                                                                                              \
        int me = shmem_my_pe(), right = sht_right(), left = sht_left();                            \
        char what[96];                                                                             \
        T *x = ge_x_##N;                                                                           \
        x[0] = x[1] = x[2] = (T)0;                                                                 \
        shmem_barrier_all();                                                                       \
        shmem_atomic_set(&x[1], (T)me + (T)0.75, right);                                           \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "generic set/fetch/swap (%s)", #T);                            \
        CHECK_EQ(what, x[1], (T)left + (T)0.75);                                                   \
        CHECK_EQ(what, x[0], (T)0);                                                                \
        CHECK_EQ(what, x[2], (T)0);                                                                \
        CHECK_EQ(what, shmem_atomic_fetch(&x[1], right), (T)me + (T)0.75);                         \
        shmem_barrier_all();                                                                       \
        CHECK_EQ(what, shmem_atomic_swap(&x[1], (T)-2.5, right), (T)me + (T)0.75);                 \
        shmem_barrier_all();                                                                       \
        CHECK_EQ(what, x[1], (T)-2.5);                                                             \
        shmem_barrier_all();                                                                       \
    }
GEN_EXT_TYPES(DEFINE_GEN_EXT)

/* Bitwise: the unsigned types everywhere, and int32_t/int64_t (int and long
 * on LP64), which are in the specification's bitwise AMO table and so must
 * be accepted by the generic bitwise routines.  The build turns the latter
 * off when the library under test lacks them (and a separate compile test
 * reports that); see CMakeLists.txt. */
#ifndef SHT_GENERIC_SIGNED_BITWISE
#define SHT_GENERIC_SIGNED_BITWISE SHOAL_TEST_HAVE_15
#endif
#if SHT_GENERIC_SIGNED_BITWISE
#define GEN_BIT_TYPES(X)                                                                           \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)
#else
#define GEN_BIT_TYPES(X)                                                                           \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)
#endif

#ifdef SHT_OSHMEM_QUIRKS /* OSHMEM's fetching bitwise AMOs are broken */
#define GEN_FETCH_BIT(OP, dest, v, pe)                                                             \
    __extension__({                                                                                \
        __typeof__(*(dest)) r_;                                                                    \
        shmem_getmem(&r_, (dest), sizeof r_, (pe));                                                \
        shmem_atomic_##OP((dest), (v), (pe));                                                      \
        shmem_quiet();                                                                             \
        r_;                                                                                        \
    })
#else
#define GEN_FETCH_BIT(OP, dest, v, pe) shmem_atomic_fetch_##OP((dest), (v), (pe))
#endif

#define DEFINE_GEN_BIT(T, N)                                                                       \
    static T gb_x_##N[3];                                                                          \
    static void gen_bit_##N(void)                                                                  \
    {                                                                                              \
        int me = shmem_my_pe(), right = sht_right(), left = sht_left();                            \
        char what[96];                                                                             \
        T *x = gb_x_##N;                                                                           \
        x[0] = x[2] = (T)0;                                                                        \
        x[1] = (T)0x0F0F;                                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "generic bitwise (%s)", #T);                                   \
        CHECK_EQ(what, GEN_FETCH_BIT(and, &x[1], (T)(0x00FF | (me << 12)), right), (T)0x0F0F);     \
        CHECK_EQ(what, GEN_FETCH_BIT(or, &x[1], (T)0x3000, right),                                 \
                 (T)(0x000F | ((me << 12) & 0x0F00)));                                             \
        CHECK_EQ(what, GEN_FETCH_BIT(xor, &x[1], (T)0x0101, right),                                \
                 (T)(0x300F | ((me << 12) & 0x0F00)));                                             \
        shmem_atomic_and(&x[1], (T)0x7FFF, right);                                                 \
        shmem_fence();                                                                             \
        shmem_atomic_or(&x[1], (T)0x8000, right);                                                  \
        shmem_fence();                                                                             \
        shmem_atomic_xor(&x[1], (T)0x00F0, right);                                                 \
        shmem_barrier_all();                                                                       \
        CHECK_EQ(what, x[1], (T)((0x310E ^ 0x00F0) | 0x8000 | ((left << 12) & 0x0F00)));           \
        CHECK_EQ(what, x[0], (T)0);                                                                \
        CHECK_EQ(what, x[2], (T)0);                                                                \
        shmem_barrier_all();                                                                       \
    }
GEN_BIT_TYPES(DEFINE_GEN_BIT)

/* ---- wait_until / test -------------------------------------------------- */

#define GEN_P2P_TYPES(X)                                                                           \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)

#define DEFINE_GEN_P2P(T, N)                                                                       \
    static T gw_x_##N[8];                                                                          \
    static void gen_p2p_##N(void)                                                                  \
    {                                                                                              \
        int right = sht_right();                                                                   \
        char what[96];                                                                             \
        T *x = gw_x_##N;                                                                           \
        for (int i = 0; i < 8; i++)                                                                \
            x[i] = (T)0;                                                                           \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "shmem_test(%s) before", #T);                                  \
        CHECK_EQ(what, shmem_test(&x[1], SHMEM_CMP_GT, (T)4), 0);                                  \
        shmem_barrier_all();                                                                       \
        shmem_p(&x[1], (T)5, right);                                                               \
        shmem_wait_until(&x[1], SHMEM_CMP_GT, (T)4);                                               \
        snprintf(what, sizeof what, "shmem_wait_until(%s)", #T);                                   \
        CHECK_EQ(what, SHT_READ(T, &x[1]), (T)5);                                                  \
        CHECK_EQ(what, SHT_READ(T, &x[0]), (T)0);                                                  \
        CHECK_EQ(what, SHT_READ(T, &x[2]), (T)0);                                                  \
        snprintf(what, sizeof what, "shmem_test(%s) after", #T);                                   \
        CHECK_EQ(what, shmem_test(&x[1], SHMEM_CMP_EQ, (T)5), 1);                                  \
        GEN_P2P_15(T, N)                                                                           \
        shmem_barrier_all();                                                                       \
    }

#if SHOAL_TEST_HAVE_15
#define GEN_P2P_15(T, N)                                                                           \
    {                                                                                              \
        int st[8] = {1, 0, 0, 0, 1, 0, 0, 0};                                                      \
        size_t idx[8];                                                                             \
        T cmpv[8] = {0, 5, 0, 0, 0, 0, 0, 9};                                                      \
        shmem_barrier_all();                                                                       \
        shmem_p(&x[7], (T)9, right);                                                               \
        snprintf(what, sizeof what, "shmem_wait_until_any(%s)", #T);                               \
        CHECK_EQ(what, shmem_wait_until_any(x, 8, st, SHMEM_CMP_EQ, (T)9), (size_t)7);             \
        snprintf(what, sizeof what, "shmem_wait_until_some(%s)", #T);                              \
        size_t n = shmem_wait_until_some(x, 8, idx, st, SHMEM_CMP_NE, (T)0);                       \
        CHECK(n == 2 && idx[0] + idx[1] == 8 && (idx[0] == 1 || idx[0] == 7),                      \
              "%s: expected {1,7}, seen %zu", what, n);                                            \
        snprintf(what, sizeof what, "shmem_wait_until_all_vector(%s)", #T);                        \
        shmem_wait_until_all_vector(x, 8, st, SHMEM_CMP_EQ, cmpv);                                 \
        snprintf(what, sizeof what, "shmem_test_all(%s)", #T);                                     \
        CHECK_EQ(what, shmem_test_all(x, 8, st, SHMEM_CMP_GE, (T)0), 1);                           \
        CHECK_EQ(what, shmem_test_any(x, 8, st, SHMEM_CMP_GT, (T)9), (size_t)SIZE_MAX);            \
        CHECK_EQ(what, shmem_test_some(x, 8, idx, NULL, SHMEM_CMP_EQ, (T)5), (size_t)1);           \
        CHECK_EQ(what, idx[0], (size_t)1);                                                         \
        CHECK_EQ(what, shmem_test_any_vector(x, 8, NULL, SHMEM_CMP_EQ, cmpv) < 8, 1);              \
        CHECK_EQ(what, shmem_test_all_vector(x, 8, NULL, SHMEM_CMP_EQ, cmpv), 1);                  \
        CHECK_EQ(what, shmem_test_some_vector(x, 8, idx, st, SHMEM_CMP_NE, cmpv), (size_t)0);      \
        shmem_wait_until_any_vector(x, 8, NULL, SHMEM_CMP_EQ, cmpv);                               \
        shmem_wait_until_some_vector(x, 8, idx, NULL, SHMEM_CMP_EQ, cmpv);                         \
        shmem_wait_until_all(x, 8, st, SHMEM_CMP_LE, (T)9);                                        \
    }
#else
#define GEN_P2P_15(T, N)
#endif

GEN_P2P_TYPES(DEFINE_GEN_P2P)

int main(void)
{
    shmem_init();
#define CALL_RMA(T, N) gen_rma_##N();
    SHT_RMA_BASE_TYPES(CALL_RMA)
#define CALL_AMO(T, N) gen_amo_##N();
    GEN_AMO_TYPES(CALL_AMO)
#define CALL_EXT(T, N) gen_ext_##N();
    GEN_EXT_TYPES(CALL_EXT)
#define CALL_BIT(T, N) gen_bit_##N();
    GEN_BIT_TYPES(CALL_BIT)
#define CALL_P2P(T, N) gen_p2p_##N();
    GEN_P2P_TYPES(CALL_P2P)
    sht_pass("generic");
    shmem_finalize();
    return 0;
}
