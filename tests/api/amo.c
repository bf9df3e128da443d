/*
 * amo: every atomic memory operation on every type the specification lists
 * for it, on the symmetric heap and on globals.
 *
 *  - standard AMO types: fetch, set, compare_swap (success and failure),
 *    swap, fetch_inc, inc, fetch_add, add, with exact return values checked,
 *    carries across 32 bits on the 64-bit types and unsigned wrap-around;
 *  - extended types float/double: fetch, set, swap;
 *  - bitwise types: fetch_and/or/xor and and/or/xor;
 *  - (1.5) the non-blocking fetching forms, completed by shmem_quiet;
 *  - contention: all PEs hammer one counter on PE 0 (add and fetch_add on a
 *    `static long`, a compare-and-swap increment loop on every integer width,
 *    one bit per PE with fetch_or/fetch_and) with exact final values.
 *
 * Across hosts (SHOAL_TEST_HOSTS > 1: tests/netns, tests/multihost) the
 * contention rounds run for the first standard and the first bitwise type
 * of each size: a network AMO is picked by size and operation, so the
 * other types of a size hammered the same atomics again (HAMMER x 4 AMOs
 * per PE each, on the heap and on a global). Every type's operations are
 * still checked there, and one host keeps the contention for every type.
 */
#include "check.h"

#define NX 8
#define HAMMER 500

/* Whether a type of `size` bytes contends: on one host always; across hosts
 * for the first type of its size in the family whose `seen` it is. */
static int contends(unsigned *seen, size_t size)
{
    if (sht_hosts() == 1)
        return 1;
    const unsigned bit = (unsigned)size; /* 4 or 8: one bit each */
    const int first = !(*seen & bit);
    *seen |= bit;
    return first;
}
static unsigned std_seen, bit_seen;

#define IS_UNSIGNED(T) ((T)-1 > (T)0)
/* A value that uses the upper half of 64-bit types. */
#define HI(T, v) ((T)(sizeof(T) > 4 ? (T)((uint64_t)(v) << 36) : (T)0))

#define DEFINE_STD_AMO(T, N)                                                                       \
    static T g_amo_##N[NX];                                                                        \
    static T g_ctr_##N;                                                                            \
                                                                                                   \
    static void std_amo_##N(T *x, T *ctr, const char *where, int contend)                          \
    {                                                                                              \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                              \
        int right = sht_right(), left = sht_left();                                                \
        char what[96];                                                                             \
        T r;                                                                                       \
        /* set / fetch */                                                                          \
        for (int i = 0; i < NX; i++)                                                               \
            x[i] = (T)0;                                                                           \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_set(&x[0], (T)(me * 10 + 5) + HI(T, me + 1), right);                    \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s atomic_set", #N, where);                                \
        CHECK_EQ(what, x[0], (T)(left * 10 + 5) + HI(T, left + 1));                                \
        snprintf(what, sizeof what, "%s %s atomic_fetch", #N, where);                              \
        r = shmem_##N##_atomic_fetch(&x[0], right);                                                \
        CHECK_EQ(what, r, (T)(me * 10 + 5) + HI(T, me + 1));                                       \
        shmem_barrier_all();                                                                       \
        /* compare_swap: succeeds once, then fails and leaves the value alone */                   \
        T base = (T)(me * 10 + 5) + HI(T, me + 1); /* what I set on right */                       \
        if (SHT_CAS_WORKS(T)) {                                                                    \
            snprintf(what, sizeof what, "%s %s compare_swap (match)", #N, where);                  \
            r = shmem_##N##_atomic_compare_swap(&x[0], base, base + (T)1000, right);               \
            CHECK_EQ(what, r, base);                                                               \
            snprintf(what, sizeof what, "%s %s compare_swap (mismatch)", #N, where);               \
            r = shmem_##N##_atomic_compare_swap(&x[0], base, (T)77, right);                        \
            CHECK_EQ(what, r, base + (T)1000);                                                     \
        } else {                                                                                   \
            shmem_##N##_atomic_add(&x[0], (T)1000, right);                                         \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        CHECK_EQ(what, x[0], (T)(left * 10 + 5) + HI(T, left + 1) + (T)1000);                      \
        shmem_barrier_all();                                                                       \
        /* swap */                                                                                 \
        snprintf(what, sizeof what, "%s %s atomic_swap", #N, where);                               \
        r = shmem_##N##_atomic_swap(&x[0], (T)(me + 7), right);                                    \
        CHECK_EQ(what, r, base + (T)1000);                                                         \
        /* fetch_inc, inc, fetch_add, add on the same word */                                      \
        snprintf(what, sizeof what, "%s %s atomic_fetch_inc", #N, where);                          \
        r = shmem_##N##_atomic_fetch_inc(&x[0], right);                                            \
        CHECK_EQ(what, r, (T)(me + 7));                                                            \
        shmem_##N##_atomic_inc(&x[0], right);                                                      \
        shmem_fence(); /* order the non-fetching inc before the next AMO */                        \
        snprintf(what, sizeof what, "%s %s atomic_fetch_add", #N, where);                          \
        r = shmem_##N##_atomic_fetch_add(&x[0], (T)100, right);                                    \
        CHECK_EQ(what, r, (T)(me + 9));                                                            \
        shmem_##N##_atomic_add(&x[0], (T)1000, right);                                             \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s inc/add result", #N, where);                            \
        CHECK_EQ(what, x[0], (T)(left + 1109));                                                    \
        shmem_barrier_all();                                                                       \
        /* Carry across bit 32 on wide types; wrap-around on unsigned ones. */                     \
        if (sizeof(T) == 8) {                                                                      \
            shmem_##N##_atomic_set(&x[1], (T)0xFFFFFFF0u, right);                                  \
            shmem_fence();                                                                         \
            shmem_##N##_atomic_add(&x[1], (T)0x20, right);                                         \
            shmem_fence();                                                                         \
            r = shmem_##N##_atomic_fetch_add(&x[1], (T)1, right);                                  \
            snprintf(what, sizeof what, "%s %s add carry into bit 32", #N, where);                 \
            CHECK_EQ(what, r, (T)0x100000010ull);                                                  \
        }                                                                                          \
        if (IS_UNSIGNED(T)) {                                                                      \
            shmem_##N##_atomic_set(&x[2], (T)-1, right);                                           \
            shmem_fence();                                                                         \
            r = shmem_##N##_atomic_fetch_inc(&x[2], right);                                        \
            snprintf(what, sizeof what, "%s %s unsigned wrap", #N, where);                         \
            CHECK_EQ(what, r, (T)-1);                                                              \
            CHECK_EQ(what, shmem_##N##_atomic_fetch(&x[2], right), (T)0);                          \
        } else {                                                                                   \
            shmem_##N##_atomic_set(&x[2], (T)5, right);                                            \
            shmem_fence();                                                                         \
            shmem_##N##_atomic_add(&x[2], (T)-12, right);                                          \
            shmem_fence();                                                                         \
            snprintf(what, sizeof what, "%s %s negative add", #N, where);                          \
            CHECK_EQ(what, shmem_##N##_atomic_fetch(&x[2], right), (T)-7);                         \
        }                                                                                          \
        STD_AMO_NBI(T, N)                                                                          \
        shmem_barrier_all();                                                                       \
        if (!contend)                                                                              \
            return;                                                                                \
        /* Contention: every PE adds to PE 0's counter. */                                         \
        if (me == 0)                                                                               \
            *ctr = (T)0;                                                                           \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < HAMMER; k++) {                                                         \
            T old = shmem_##N##_atomic_fetch_inc(ctr, 0);                                          \
            CHECK(old < (T)(7 * HAMMER * npes), "%s %s: fetch_inc returned %lld", #N, where,       \
                  (long long)old);                                                                 \
            shmem_##N##_atomic_inc(ctr, 0);                                                        \
            shmem_##N##_atomic_fetch_add(ctr, (T)2, 0);                                            \
            shmem_##N##_atomic_add(ctr, (T)3, 0);                                                  \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s hammer on PE 0", #N, where);                            \
        CHECK_EQ(what, shmem_##N##_atomic_fetch(ctr, 0), (T)(7 * HAMMER * npes));                  \
        shmem_barrier_all();                                                                       \
        /* Contention: compare-and-swap increment loop. */                                         \
        if (me == 0)                                                                               \
            *ctr = HI(T, 3);                                                                       \
        shmem_barrier_all();                                                                       \
        for (int k = 0; k < HAMMER / 5; k++) {                                                     \
            if (!SHT_CAS_WORKS(T)) {                                                               \
                shmem_##N##_atomic_inc(ctr, 0);                                                    \
                continue;                                                                          \
            }                                                                                      \
            T seen = shmem_##N##_atomic_fetch(ctr, 0);                                             \
            for (;;) {                                                                             \
                T got = shmem_##N##_atomic_compare_swap(ctr, seen, seen + (T)1, 0);                \
                if (got == seen)                                                                   \
                    break;                                                                         \
                seen = got;                                                                        \
            }                                                                                      \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s CAS increment loop", #N, where);                        \
        CHECK_EQ(what, shmem_##N##_atomic_fetch(ctr, 0), HI(T, 3) + (T)((HAMMER / 5) * npes));     \
        shmem_barrier_all();                                                                       \
    }

#if SHOAL_TEST_HAVE_15
/* Non-blocking fetching AMOs, each on its own word so that completion order
 * does not matter, completed by one quiet. */
#define STD_AMO_NBI(T, N)                                                                          \
    {                                                                                              \
        T f[6];                                                                                    \
        shmem_barrier_all();                                                                       \
        for (int i = 3; i < NX; i++)                                                               \
            x[i] = (T)(i * 3) + HI(T, me);                                                         \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 6; i++)                                                                \
            f[i] = (T)99;                                                                          \
        shmem_##N##_atomic_fetch_nbi(&f[0], &x[3], right);                                         \
        if (SHT_CAS_WORKS(T))                                                                      \
            shmem_##N##_atomic_compare_swap_nbi(&f[1], &x[4], (T)12 + HI(T, right), (T)40, right); \
        shmem_##N##_atomic_swap_nbi(&f[2], &x[5], (T)50, right);                                   \
        shmem_##N##_atomic_fetch_inc_nbi(&f[3], &x[6], right);                                     \
        shmem_##N##_atomic_fetch_add_nbi(&f[4], &x[7], (T)11, right);                              \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "%s %s nbi fetch results", #N, where);                         \
        CHECK_VAL(what, 0, f[0], (T)9 + HI(T, right));                                             \
        CHECK_VAL(what, 1, f[1], (T)12 + HI(T, right));                                            \
        CHECK_VAL(what, 2, f[2], (T)15 + HI(T, right));                                            \
        CHECK_VAL(what, 3, f[3], (T)18 + HI(T, right));                                            \
        CHECK_VAL(what, 4, f[4], (T)21 + HI(T, right));                                            \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s nbi targets", #N, where);                               \
        CHECK_VAL(what, 3, x[3], (T)9 + HI(T, me));                                                \
        CHECK_VAL(what, 4, x[4], (T)40);                                                           \
        CHECK_VAL(what, 5, x[5], (T)50);                                                           \
        CHECK_VAL(what, 6, x[6], (T)19 + HI(T, me));                                               \
        CHECK_VAL(what, 7, x[7], (T)32 + HI(T, me));                                               \
        /* A failing nbi compare_swap leaves the target alone. */                                  \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_compare_swap_nbi(&f[5], &x[4], (T)41, (T)1, right);                     \
        shmem_quiet();                                                                             \
        CHECK_VAL(what, 5, f[5], (T)40);                                                           \
        shmem_barrier_all();                                                                       \
        CHECK_VAL(what, 4, x[4], (T)40);                                                           \
    }
#else
#define STD_AMO_NBI(T, N)
#endif

SHT_AMO_STD_TYPES(DEFINE_STD_AMO)

/* ---- extended AMO types: float and double -------------------------------- */

#define DEFINE_EXT_AMO(T, N)                                                                       \
    static T g_ext_##N[4];                                                                         \
    static void ext_amo_##N(T *x, const char *where)                                               \
    {                                                                                              \
        int me = shmem_my_pe(), right = sht_right(), left = sht_left();                            \
        char what[96];                                                                             \
        x[0] = (T)-1;                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_set(&x[0], (T)me + (T)0.5, right);                                      \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s atomic_set", #N, where);                                \
        CHECK_EQ(what, x[0], (T)left + (T)0.5);                                                    \
        snprintf(what, sizeof what, "%s %s atomic_fetch", #N, where);                              \
        CHECK_EQ(what, shmem_##N##_atomic_fetch(&x[0], left),                                      \
                 (T)((left + shmem_n_pes() - 1) % shmem_n_pes()) + (T)0.5);                        \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s atomic_swap", #N, where);                               \
        CHECK_EQ(what, shmem_##N##_atomic_swap(&x[0], (T)me *(T)0.25, right), (T)me + (T)0.5);     \
        shmem_barrier_all();                                                                       \
        CHECK_EQ(what, x[0], (T)left *(T)0.25);                                                    \
        EXT_AMO_NBI(T, N)                                                                          \
        shmem_barrier_all();                                                                       \
    }

#if SHOAL_TEST_HAVE_15
#define EXT_AMO_NBI(T, N)                                                                          \
    {                                                                                              \
        T f[2] = {(T)-9, (T)-9};                                                                   \
        x[1] = (T)me + (T)0.125;                                                                   \
        x[2] = (T)me + (T)0.375;                                                                   \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_fetch_nbi(&f[0], &x[1], right);                                         \
        shmem_##N##_atomic_swap_nbi(&f[1], &x[2], (T)-3.5, right);                                 \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "%s %s nbi fetch/swap", #N, where);                            \
        CHECK_VAL(what, 0, f[0], (T)right + (T)0.125);                                             \
        CHECK_VAL(what, 1, f[1], (T)right + (T)0.375);                                             \
        shmem_barrier_all();                                                                       \
        CHECK_VAL(what, 2, x[2], (T)-3.5);                                                         \
    }
#else
#define EXT_AMO_NBI(T, N)
#endif

SHT_AMO_EXT_ONLY_TYPES(DEFINE_EXT_AMO)

/* ---- bitwise AMO types --------------------------------------------------- */

#define P0(T, pe) ((T)(0x5A5A + (pe)) + HI(T, 0x5A5 + (pe)))
#define M1(T, pe) ((T)(0x0FF0 | (pe)) + HI(T, 0xF0F))
#define M2(T, pe) ((T)(0x1000 << ((pe) % 4)) + HI(T, 0x100))
#define M3(T, pe) ((T)0x00FF + HI(T, 0x0FF))
#define M4(T, pe) ((T)0x7FFF + HI(T, 0x7FF))
#define M5(T, pe) ((T)(0x0100 + (pe)) + HI(T, 0x001))
#define M6(T, pe) ((T)0x3C3C + HI(T, 0x3C3))

#define DEFINE_BIT_AMO(T, N)                                                                       \
    static T g_bit_##N[NX];                                                                        \
    static T g_bits_##N;                                                                           \
    static void bit_amo_##N(T *x, T *bits, const char *where, int contend)                         \
    {                                                                                              \
        int me = shmem_my_pe(), npes = shmem_n_pes();                                              \
        int right = sht_right(), left = sht_left();                                                \
        char what[96];                                                                             \
        T r, e;                                                                                    \
        x[0] = P0(T, me);                                                                          \
        shmem_barrier_all();                                                                       \
        e = P0(T, right);                                                                          \
        snprintf(what, sizeof what, "%s %s atomic_fetch_and", #N, where);                          \
        r = SHT_FETCH_BITWISE(N, and, &x[0], M1(T, me), right);                                    \
        CHECK_EQ(what, r, e);                                                                      \
        e &= M1(T, me);                                                                            \
        snprintf(what, sizeof what, "%s %s atomic_fetch_or", #N, where);                           \
        r = SHT_FETCH_BITWISE(N, or, &x[0], M2(T, me), right);                                     \
        CHECK_EQ(what, r, e);                                                                      \
        e |= M2(T, me);                                                                            \
        snprintf(what, sizeof what, "%s %s atomic_fetch_xor", #N, where);                          \
        r = SHT_FETCH_BITWISE(N, xor, &x[0], M3(T, me), right);                                    \
        CHECK_EQ(what, r, e);                                                                      \
        shmem_##N##_atomic_and(&x[0], M4(T, me), right);                                           \
        shmem_fence(); /* non-fetching AMOs are unordered without a fence */                       \
        shmem_##N##_atomic_or(&x[0], M5(T, me), right);                                            \
        shmem_fence();                                                                             \
        shmem_##N##_atomic_xor(&x[0], M6(T, me), right);                                           \
        shmem_barrier_all();                                                                       \
        e = (T)(((((((P0(T, me) & M1(T, left)) | M2(T, left)) ^ M3(T, left)) & M4(T, left)) |      \
                  M5(T, left)) ^                                                                   \
                 M6(T, left)));                                                                    \
        snprintf(what, sizeof what, "%s %s and/or/xor chain", #N, where);                          \
        CHECK_EQ(what, x[0], e);                                                                   \
        BIT_AMO_NBI(T, N)                                                                          \
        shmem_barrier_all();                                                                       \
        if (!contend)                                                                              \
            return;                                                                                \
        /* Contention: each PE owns bit (me % 30); set with fetch_or, clear with                   \
         * fetch_and, toggle twice with xor. */                                                    \
        if (me == 0)                                                                               \
            *bits = (T)0;                                                                          \
        shmem_barrier_all();                                                                       \
        T mine = (T)((T)1 << (me % 30));                                                           \
        T all = 0;                                                                                 \
        for (int pe = 0; pe < npes; pe++)                                                          \
            all |= (T)((T)1 << (pe % 30));                                                         \
        for (int k = 0; k < 50; k++) {                                                             \
            shmem_##N##_atomic_xor(bits, mine, 0);                                                 \
            shmem_##N##_atomic_xor(bits, mine, 0);                                                 \
        }                                                                                          \
        shmem_quiet(); /* all toggles land before the fetch_or below */                            \
        r = SHT_FETCH_BITWISE(N, or, bits, mine, 0);                                               \
        if (npes <= 30)                                                                            \
            CHECK(!(r & mine), "%s %s: my bit was already set before fetch_or: %#llx", #N, where,  \
                  (unsigned long long)r);                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s bits set by all PEs", #N, where);                       \
        CHECK_EQ(what, SHT_FETCH_BITWISE(N, or, bits, (T)0, 0), all);                              \
        shmem_barrier_all();                                                                       \
        r = SHT_FETCH_BITWISE(N, and, bits, (T)~mine, 0);                                          \
        CHECK(r &mine, "%s %s: my bit was cleared by someone else: %#llx", #N, where,              \
              (unsigned long long)r);                                                              \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s bits cleared by all PEs", #N, where);                   \
        CHECK_EQ(what, SHT_FETCH_BITWISE(N, or, bits, (T)0, 0), (T)0);                             \
        shmem_barrier_all();                                                                       \
    }

#if SHOAL_TEST_HAVE_15
#define BIT_AMO_NBI(T, N)                                                                          \
    {                                                                                              \
        T f[3] = {0, 0, 0};                                                                        \
        shmem_barrier_all();                                                                       \
        x[1] = P0(T, me);                                                                          \
        x[2] = P0(T, me);                                                                          \
        x[3] = P0(T, me);                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_fetch_and_nbi(&f[0], &x[1], M1(T, me), right);                          \
        shmem_##N##_atomic_fetch_or_nbi(&f[1], &x[2], M2(T, me), right);                           \
        shmem_##N##_atomic_fetch_xor_nbi(&f[2], &x[3], M3(T, me), right);                          \
        shmem_quiet();                                                                             \
        snprintf(what, sizeof what, "%s %s bitwise nbi fetches", #N, where);                       \
        for (int i = 0; i < 3; i++)                                                                \
            CHECK_VAL(what, i, f[i], P0(T, right));                                                \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s bitwise nbi targets", #N, where);                       \
        CHECK_VAL(what, 1, x[1], (T)(P0(T, me) & M1(T, left)));                                    \
        CHECK_VAL(what, 2, x[2], (T)(P0(T, me) | M2(T, left)));                                    \
        CHECK_VAL(what, 3, x[3], (T)(P0(T, me) ^ M3(T, left)));                                    \
    }
#else
#define BIT_AMO_NBI(T, N)
#endif

SHT_AMO_BIT_TYPES(DEFINE_BIT_AMO)

/* ---- the classic: all PEs add to one `static long` on PE 0 --------------- *
 * (and the same on a heap counter) */

static long counter;
#define COUNTER_ITERS 2000

static void counter_hammer(long *ctr, const char *where)
{
    int npes = shmem_n_pes();
    char what[96];
    *ctr = 0;
    shmem_barrier_all();
    for (int k = 0; k < COUNTER_ITERS; k++)
        shmem_long_atomic_add(ctr, 1, 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        snprintf(what, sizeof what, "%s counter after atomic_add", where);
        CHECK_EQ(what, SHT_READ(long, ctr), (long)COUNTER_ITERS * npes);
    }
    shmem_barrier_all();
    /* fetch_add hands out unique tickets: each value exactly once. */
    *ctr = 0;
    shmem_barrier_all();
    long last = -1;
    for (int k = 0; k < COUNTER_ITERS / 4; k++) {
        long t = shmem_long_atomic_fetch_add(ctr, 1, 0);
        CHECK(t > last, "ticket %ld not above my previous ticket %ld", t, last);
        CHECK(t < (long)(COUNTER_ITERS / 4) * npes, "ticket %ld out of range", t);
        last = t;
    }
    shmem_barrier_all();
    snprintf(what, sizeof what, "%s tickets handed out", where);
    CHECK_EQ(what, shmem_long_atomic_fetch(ctr, 0), (long)(COUNTER_ITERS / 4) * npes);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();

#define RUN_STD(T, N)                                                                              \
    {                                                                                              \
        T *h = shmem_malloc(NX * sizeof(T));                                                       \
        T *c = shmem_malloc(sizeof(T));                                                            \
        CHECK(h &&c, "shmem_malloc for %s failed", #N);                                            \
        const int contend = contends(&std_seen, sizeof(T));                                        \
        std_amo_##N(h, c, "heap", contend);                                                        \
        std_amo_##N(g_amo_##N, &g_ctr_##N, "global", contend &&SHT_GLOBAL_CONTENTION_WORKS);       \
        shmem_free(c);                                                                             \
        shmem_free(h);                                                                             \
    }
    SHT_AMO_STD_TYPES(RUN_STD)

#define RUN_EXT(T, N)                                                                              \
    {                                                                                              \
        T *h = shmem_malloc(4 * sizeof(T));                                                        \
        CHECK(h, "shmem_malloc for %s failed", #N);                                                \
        ext_amo_##N(h, "heap");                                                                    \
        ext_amo_##N(g_ext_##N, "global");                                                          \
        shmem_free(h);                                                                             \
    }
    SHT_AMO_EXT_ONLY_TYPES(RUN_EXT)

#define RUN_BIT(T, N)                                                                              \
    {                                                                                              \
        T *h = shmem_malloc(NX * sizeof(T));                                                       \
        T *b = shmem_malloc(sizeof(T));                                                            \
        CHECK(h &&b, "shmem_malloc for %s failed", #N);                                            \
        const int contend = contends(&bit_seen, sizeof(T));                                        \
        bit_amo_##N(h, b, "heap", contend);                                                        \
        bit_amo_##N(g_bit_##N, &g_bits_##N, "global", contend &&SHT_GLOBAL_CONTENTION_WORKS);      \
        shmem_free(b);                                                                             \
        shmem_free(h);                                                                             \
    }
    SHT_AMO_BIT_TYPES(RUN_BIT)

    long *hc = shmem_malloc(sizeof(long));
    CHECK(hc, "shmem_malloc(sizeof(long)) failed");
    counter_hammer(hc, "heap");
    if (SHT_GLOBAL_CONTENTION_WORKS)
        counter_hammer(&counter, "static long");
    shmem_free(hc);

    sht_pass("amo");
    shmem_finalize();
    return 0;
}
