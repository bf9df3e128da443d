/*
 * sync: point-to-point synchronization and ordering.
 *
 *  - wait_until and test with each comparison (EQ NE GT GE LT LE) on every
 *    point-to-point type, on the heap and on globals; test must say "no"
 *    before the neighbour writes and wait_until must return with the new
 *    value visible.  Wide types use values above 2^32 and signed types use
 *    negative values, so a truncating or sign-confused comparison hangs or
 *    fails;
 *  - (1.5) wait_until_all/any/some, their _vector forms and test_all/any/
 *    some(_vector) with status arrays that exclude elements, empty sets;
 *  - a ping-pong between PE pairs with p + wait_until;
 *  - fence: data put, fence, flag put; the receiver that sees the flag must
 *    see the data; the same with put_nbi + quiet and (1.6) pe_quiet;
 *  - barrier_all and sync_all (with quiet) many times with data checks.
 */
#include "check.h"

#include <stdint.h>

#define HI(T, v) ((T)(sizeof(T) > 4 ? (T)((uint64_t)(v) << 36) : (T)0))
#define IS_SIGNED(T) ((T)-1 < (T)1)

/* One comparison case: before the write the test is false, after it the wait
 * returns and the value is the one written. */
#define CMP_CASE(T, N, ivar, cmp, written, cmp_value)                                              \
    do {                                                                                           \
        *(ivar) = (T)10;                                                                           \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s %s test before write", #N, where, #cmp);                \
        CHECK_EQ(what, shmem_##N##_test((ivar), cmp, (cmp_value)), 0);                             \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p((ivar), (written), right);                                                   \
        shmem_##N##_wait_until((ivar), cmp, (cmp_value));                                          \
        snprintf(what, sizeof what, "%s %s %s value after wait", #N, where, #cmp);                 \
        CHECK_EQ(what, SHT_READ(T, ivar), (T)(written));                                           \
        snprintf(what, sizeof what, "%s %s %s test after wait", #N, where, #cmp);                  \
        CHECK_EQ(what, shmem_##N##_test((ivar), cmp, (cmp_value)), 1);                             \
        shmem_barrier_all();                                                                       \
    } while (0)

#define DEFINE_P2P_TEST(T, N)                                                                      \
    static T g_ivar_##N;                                                                           \
    static T g_ivars_##N[8];                                                                       \
    static void p2p_##N(T *ivar, const char *where)                                                \
    {                                                                                              \
        int right = sht_right();                                                                   \
        char what[128];                                                                            \
        CMP_CASE(T, N, ivar, SHMEM_CMP_EQ, (T)20 + HI(T, 1), (T)20 + HI(T, 1));                    \
        CMP_CASE(T, N, ivar, SHMEM_CMP_NE, (T)21, (T)10);                                          \
        CMP_CASE(T, N, ivar, SHMEM_CMP_GT, (T)22 + HI(T, 1), (T)15);                               \
        CMP_CASE(T, N, ivar, SHMEM_CMP_GE, (T)23, (T)23);                                          \
        CMP_CASE(T, N, ivar, SHMEM_CMP_LT, IS_SIGNED(T) ? (T)-5 : (T)5, (T)7);                     \
        CMP_CASE(T, N, ivar, SHMEM_CMP_LE, (T)6, (T)6);                                            \
        /* GE/LE where the bound is exceeded, not met exactly. */                                  \
        CMP_CASE(T, N, ivar, SHMEM_CMP_GE, (T)99 + HI(T, 3), (T)50 + HI(T, 2));                    \
        CMP_CASE(T, N, ivar, SHMEM_CMP_LE, (T)1, (T)9);                                            \
    }                                                                                              \
    MULTI_TESTS(T, N)

#if SHOAL_TEST_HAVE_15
/* The wait set is ivars[0..8) minus the excluded elements.  The writer is the
 * left neighbour; excluded elements get "matching" values too, so an
 * implementation that ignores status returns the wrong index. */
#define MULTI_TESTS(T, N)                                                                          \
    static void multi_##N(T *iv, const char *where)                                                \
    {                                                                                              \
        int right = sht_right();                                                                   \
        char what[128];                                                                            \
        size_t idx[8];                                                                             \
        int excl_25[8] = {0, 0, 1, 0, 0, 1, 0, 0};                                                 \
        int only_7[8] = {1, 1, 1, 1, 1, 1, 1, 0};                                                  \
        int none[8] = {1, 1, 1, 1, 1, 1, 1, 1};                                                    \
        T cmpv[8];                                                                                 \
        /* wait_until_all with elements 2 and 5 excluded */                                        \
        for (int i = 0; i < 8; i++)                                                                \
            iv[i] = (T)0;                                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s test_all before", #N, where);                           \
        CHECK_EQ(what, shmem_##N##_test_all(iv, 8, excl_25, SHMEM_CMP_EQ, (T)1), 0);               \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 8; i++)                                                                \
            if (!excl_25[i]) {                                                                     \
                shmem_##N##_p(&iv[i], (T)1, right);                                                \
                shmem_fence();                                                                     \
            }                                                                                      \
        shmem_##N##_wait_until_all(iv, 8, excl_25, SHMEM_CMP_EQ, (T)1);                            \
        snprintf(what, sizeof what, "%s %s wait_until_all", #N, where);                            \
        for (int i = 0; i < 8; i++)                                                                \
            CHECK_VAL(what, i, SHT_READ(T, &iv[i]), (T)(excl_25[i] ? 0 : 1));                      \
        snprintf(what, sizeof what, "%s %s test_all after", #N, where);                            \
        CHECK_EQ(what, shmem_##N##_test_all(iv, 8, excl_25, SHMEM_CMP_EQ, (T)1), 1);               \
        CHECK_EQ(what, shmem_##N##_test_all(iv, 8, NULL, SHMEM_CMP_EQ, (T)1), 0);                  \
        shmem_barrier_all();                                                                       \
        /* wait_until_any: only element 7 counts; element 1 matches first */                       \
        for (int i = 0; i < 8; i++)                                                                \
            iv[i] = (T)0;                                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s test_any before", #N, where);                           \
        CHECK_EQ(what, shmem_##N##_test_any(iv, 8, NULL, SHMEM_CMP_NE, (T)0), (size_t)SIZE_MAX);   \
        shmem_barrier_all();                                                                       \
        shmem_##N##_p(&iv[1], (T)3, right);                                                        \
        shmem_fence();                                                                             \
        shmem_##N##_p(&iv[7], (T)4, right);                                                        \
        snprintf(what, sizeof what, "%s %s wait_until_any", #N, where);                            \
        CHECK_EQ(what, shmem_##N##_wait_until_any(iv, 8, only_7, SHMEM_CMP_NE, (T)0), (size_t)7);  \
        CHECK_EQ(what, SHT_READ(T, &iv[7]), (T)4);                                                 \
        snprintf(what, sizeof what, "%s %s test_any after", #N, where);                            \
        CHECK_EQ(what, shmem_##N##_test_any(iv, 8, only_7, SHMEM_CMP_GT, (T)3), (size_t)7);        \
        CHECK_EQ(what, shmem_##N##_test_any(iv, 8, only_7, SHMEM_CMP_GT, (T)4), (size_t)SIZE_MAX); \
        snprintf(what, sizeof what, "%s %s empty wait set", #N, where);                            \
        CHECK_EQ(what, shmem_##N##_wait_until_any(iv, 8, none, SHMEM_CMP_NE, (T)0),                \
                 (size_t)SIZE_MAX);                                                                \
        CHECK_EQ(what, shmem_##N##_wait_until_any(iv, 0, NULL, SHMEM_CMP_NE, (T)0),                \
                 (size_t)SIZE_MAX);                                                                \
        CHECK_EQ(what, shmem_##N##_test_any(iv, 8, none, SHMEM_CMP_NE, (T)0), (size_t)SIZE_MAX);   \
        CHECK_EQ(what, shmem_##N##_wait_until_some(iv, 8, idx, none, SHMEM_CMP_NE, (T)0),          \
                 (size_t)0);                                                                       \
        CHECK_EQ(what, shmem_##N##_test_some(iv, 0, idx, NULL, SHMEM_CMP_NE, (T)0), (size_t)0);    \
        shmem_##N##_wait_until_all(iv, 8, none, SHMEM_CMP_EQ, (T)77);                              \
        shmem_barrier_all();                                                                       \
        /* wait_until_some: element 0 excluded; 0, 3 and 6 get written */                          \
        {                                                                                          \
            int st[8] = {1, 0, 0, 0, 0, 0, 0, 0};                                                  \
            int found3 = 0, found6 = 0;                                                            \
            for (int i = 0; i < 8; i++)                                                            \
                iv[i] = (T)0;                                                                      \
            shmem_barrier_all();                                                                   \
            snprintf(what, sizeof what, "%s %s test_some before", #N, where);                      \
            CHECK_EQ(what, shmem_##N##_test_some(iv, 8, idx, st, SHMEM_CMP_GT, (T)0), (size_t)0);  \
            shmem_barrier_all();                                                                   \
            shmem_##N##_p(&iv[0], (T)5, right);                                                    \
            shmem_##N##_p(&iv[3], (T)5, right);                                                    \
            shmem_##N##_p(&iv[6], (T)5, right);                                                    \
            snprintf(what, sizeof what, "%s %s wait_until_some", #N, where);                       \
            while (!(found3 && found6)) {                                                          \
                size_t n = shmem_##N##_wait_until_some(iv, 8, idx, st, SHMEM_CMP_GT, (T)0);        \
                CHECK(n >= 1 && n <= 2, "%s returned %zu", what, n);                               \
                for (size_t k = 0; k < n; k++) {                                                   \
                    CHECK(idx[k] == 3 || idx[k] == 6, "%s: index %zu is not 3 or 6", what,         \
                          idx[k]);                                                                 \
                    CHECK(st[idx[k]] == 0, "%s: index %zu reported twice", what, idx[k]);          \
                    st[idx[k]] = 1; /* exclude what we have seen */                                \
                    found3 |= idx[k] == 3;                                                         \
                    found6 |= idx[k] == 6;                                                         \
                }                                                                                  \
            }                                                                                      \
            shmem_quiet();                                                                         \
            shmem_barrier_all();                                                                   \
            int st2[8] = {1, 0, 0, 0, 0, 0, 0, 0};                                                 \
            snprintf(what, sizeof what, "%s %s test_some after", #N, where);                       \
            size_t n = shmem_##N##_test_some(iv, 8, idx, st2, SHMEM_CMP_EQ, (T)5);                 \
            CHECK(n == 2 && ((idx[0] == 3 && idx[1] == 6) || (idx[0] == 6 && idx[1] == 3)),        \
                  "%s: expected {3,6}, seen %zu indices (%zu, %zu)", what, n, n > 0 ? idx[0] : 0,  \
                  n > 1 ? idx[1] : 0);                                                             \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        /* Vector forms: element i waits for its own value cmpv[i]. */                             \
        for (int i = 0; i < 8; i++) {                                                              \
            iv[i] = (T)0;                                                                          \
            cmpv[i] = (T)(i * 3 + 1) + HI(T, i + 1);                                               \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        snprintf(what, sizeof what, "%s %s test_all_vector before", #N, where);                    \
        CHECK_EQ(what, shmem_##N##_test_all_vector(iv, 8, excl_25, SHMEM_CMP_EQ, cmpv), 0);        \
        CHECK_EQ(what, shmem_##N##_test_any_vector(iv, 8, excl_25, SHMEM_CMP_EQ, cmpv),            \
                 (size_t)SIZE_MAX);                                                                \
        CHECK_EQ(what, shmem_##N##_test_some_vector(iv, 8, idx, excl_25, SHMEM_CMP_EQ, cmpv),      \
                 (size_t)0);                                                                       \
        shmem_barrier_all();                                                                       \
        /* element 2 (excluded) first, then element 4 alone */                                     \
        shmem_##N##_p(&iv[2], cmpv[2], right);                                                     \
        shmem_fence();                                                                             \
        shmem_##N##_p(&iv[4], cmpv[4], right);                                                     \
        snprintf(what, sizeof what, "%s %s wait_until_any_vector", #N, where);                     \
        CHECK_EQ(what, shmem_##N##_wait_until_any_vector(iv, 8, excl_25, SHMEM_CMP_EQ, cmpv),      \
                 (size_t)4);                                                                       \
        snprintf(what, sizeof what, "%s %s wait_until_some_vector", #N, where);                    \
        {                                                                                          \
            size_t n =                                                                             \
                shmem_##N##_wait_until_some_vector(iv, 8, idx, excl_25, SHMEM_CMP_EQ, cmpv);       \
            CHECK(n == 1 && idx[0] == 4, "%s: expected {4}, seen %zu (first %zu)", what, n,        \
                  n ? idx[0] : 0);                                                                 \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 8; i++)                                                                \
            if (!excl_25[i] && i != 4)                                                             \
                shmem_##N##_p(&iv[i], cmpv[i], right);                                             \
        shmem_##N##_wait_until_all_vector(iv, 8, excl_25, SHMEM_CMP_EQ, cmpv);                     \
        snprintf(what, sizeof what, "%s %s wait_until_all_vector", #N, where);                     \
        for (int i = 0; i < 8; i++)                                                                \
            CHECK_VAL(what, i, SHT_READ(T, &iv[i]), (i == 5) ? (T)0 : cmpv[i]);                    \
        CHECK_EQ(what, shmem_##N##_test_all_vector(iv, 8, excl_25, SHMEM_CMP_EQ, cmpv), 1);        \
        CHECK_EQ(what, shmem_##N##_test_all_vector(iv, 8, NULL, SHMEM_CMP_EQ, cmpv), 0);           \
        CHECK_EQ(what, shmem_##N##_test_all_vector(iv, 8, NULL, SHMEM_CMP_GE, (T[8]){0}), 1);      \
        shmem_barrier_all();                                                                       \
    }
#else
#define MULTI_TESTS(T, N)
#endif

SHT_P2P_TYPES(DEFINE_P2P_TEST)

/* ---- ping-pong --------------------------------------------------------- */

static long ping, pong;
#define ROUNDS 200

static void ping_pong(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int partner = me ^ 1;
    ping = pong = 0;
    shmem_barrier_all();
    if (partner < npes) {
        for (long k = 1; k <= ROUNDS; k++) {
            if (me % 2 == 0) {
                shmem_long_p(&ping, k, partner);
                shmem_long_wait_until(&pong, SHMEM_CMP_EQ, k);
            } else {
                shmem_long_wait_until(&ping, SHMEM_CMP_EQ, k);
                shmem_long_p(&pong, k, partner);
            }
        }
        CHECK_EQ("ping-pong final ping/pong",
                 me % 2 ? SHT_READ(long, &ping) : SHT_READ(long, &pong), (long)ROUNDS);
    }
    shmem_barrier_all();
}

/* ---- ordering: fence, quiet, pe_quiet ------------------------------------ */

#define ND 256
static long g_data[ND];
static long g_flag, g_ack;

enum { ORDER_FENCE, ORDER_QUIET_NBI, ORDER_PE_QUIET };

static void ordering(long *data, long *flag, long *ack, const char *where, int how)
{
    int me = shmem_my_pe(), right = sht_right(), left = sht_left();
    char what[128];
    static const char *names[] = {"fence", "put_nbi+quiet", "put_nbi+pe_quiet"};
    long src[ND];
    *flag = 0;
    *ack = 0;
    for (int i = 0; i < ND; i++)
        data[i] = -1;
    shmem_barrier_all();
    for (long r = 1; r <= 50; r++) {
        for (int i = 0; i < ND; i++)
            src[i] = r * 100000 + me * 1000 + i;
        /* Send: data, then the flag, ordered by the method under test. */
        if (how == ORDER_FENCE) {
            shmem_long_put(data, src, ND, right);
            shmem_fence();
        } else {
            shmem_long_put_nbi(data, src, ND, right);
            if (how == ORDER_QUIET_NBI) {
                shmem_quiet();
            } else {
#if SHOAL_TEST_HAVE_16
                int targets[1] = {right};
                shmem_pe_quiet(targets, 1);
#else
                shmem_quiet();
#endif
            }
        }
        shmem_long_p(flag, r, right);
        /* Receive from the left. */
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, r);
        snprintf(what, sizeof what, "%s %s data seen with flag %ld", where, names[how], r);
        for (int i = 0; i < ND; i++)
            CHECK_VAL(what, i, SHT_READ(long, &data[i]), r * 100000 + left * 1000 + i);
        /* Tell the left neighbour its buffer may be reused; wait for mine. */
        shmem_long_p(ack, r, left);
        shmem_long_wait_until(ack, SHMEM_CMP_EQ, r);
    }
    shmem_barrier_all();
}

#if SHOAL_TEST_HAVE_16
/* pe_quiet over several targets: put to right and left, complete both. */
static void pe_quiet_multi(void)
{
    int me = shmem_my_pe(), right = sht_right(), left = sht_left();
    long *box = shmem_calloc(4, sizeof(long));
    CHECK(box, "shmem_calloc failed");
    shmem_barrier_all();
    for (long r = 1; r <= 20; r++) {
        long v = r * 1000 + me;
        shmem_long_put_nbi(&box[0], &v, 1, right); /* from my left's view: box[0] */
        shmem_long_put_nbi(&box[1], &v, 1, left);  /* from my right's view: box[1] */
        int targets[2] = {right, left};
        shmem_pe_quiet(targets, 2);
        shmem_long_atomic_inc(&box[2], right);
        shmem_long_atomic_inc(&box[3], left);
        /* box[2] counts rounds of my left, box[3] rounds of my right.  Once a
         * neighbour's increment for round r is here, its round-r put (completed
         * by pe_quiet before the increment was issued) must be here too; it may
         * already have moved on to a later round, hence ">=". */
        shmem_long_wait_until(&box[2], SHMEM_CMP_GE, r);
        shmem_long_wait_until(&box[3], SHMEM_CMP_GE, r);
        CHECK(SHT_READ(long, &box[0]) / 1000 >= r, "pe_quiet: box[0]=%ld in round %ld",
              SHT_READ(long, &box[0]), r);
        CHECK(SHT_READ(long, &box[1]) / 1000 >= r, "pe_quiet: box[1]=%ld in round %ld",
              SHT_READ(long, &box[1]), r);
        shmem_barrier_all();
        CHECK_EQ("pe_quiet box[0] sender", SHT_READ(long, &box[0]), r * 1000 + left);
        CHECK_EQ("pe_quiet box[1] sender", SHT_READ(long, &box[1]), r * 1000 + right);
        shmem_barrier_all();
    }
    /* npes == 0 is allowed and does nothing harmful. */
    shmem_pe_quiet(NULL, 0);
    shmem_barrier_all();
    shmem_free(box);
}
#endif

/* ---- barrier_all and sync_all ------------------------------------------ */

static long g_slot[2];

static void barriers(void)
{
    int me = shmem_my_pe(), right = sht_right(), left = sht_left();
    int npes = shmem_n_pes();
    long *h = shmem_malloc(2 * sizeof(long));
    CHECK(h, "shmem_malloc failed");
    h[0] = h[1] = g_slot[0] = g_slot[1] = -1;
    shmem_barrier_all();
    for (long r = 0; r < 300; r++) {
        long v = r * 10000 + me;
        shmem_long_p(&g_slot[r & 1], v, right);
        shmem_long_put(&h[r & 1], &v, 1, right);
        if (r % 2)
            shmem_barrier_all();
        else {
            shmem_quiet(); /* sync_all does not complete memory updates */
            shmem_sync_all();
        }
        CHECK_VAL("barrier round global", r, SHT_READ(long, &g_slot[r & 1]), r * 10000 + left);
        CHECK_VAL("barrier round heap", r, SHT_READ(long, &h[r & 1]), r * 10000 + left);
    }
    /* Everyone counts arrivals on PE 0 between barriers. */
    static long arrivals;
    arrivals = 0;
    shmem_barrier_all();
    for (int r = 1; r <= 30; r++) {
        shmem_long_atomic_inc(&arrivals, 0);
        shmem_barrier_all();
        if (me == 0)
            CHECK_VAL("arrivals after barrier", r, SHT_READ(long, &arrivals), (long)r * npes);
        shmem_barrier_all();
    }
    shmem_barrier_all();
    shmem_free(h);
}

int main(void)
{
    shmem_init();

#if SHOAL_TEST_HAVE_15
#define RUN_MULTI(T, N)                                                                            \
    multi_##N(g_ivars_##N, "global");                                                              \
    {                                                                                              \
        T *hv = shmem_malloc(8 * sizeof(T));                                                       \
        CHECK(hv, "shmem_malloc failed");                                                          \
        multi_##N(hv, "heap");                                                                     \
        shmem_free(hv);                                                                            \
    }
#else
#define RUN_MULTI(T, N) (void)g_ivars_##N;
#endif

#define RUN_P2P(T, N)                                                                              \
    {                                                                                              \
        T *h = shmem_malloc(sizeof(T));                                                            \
        CHECK(h, "shmem_malloc failed");                                                           \
        p2p_##N(h, "heap");                                                                        \
        p2p_##N(&g_ivar_##N, "global");                                                            \
        shmem_free(h);                                                                             \
        RUN_MULTI(T, N)                                                                            \
    }
    SHT_P2P_TYPES(RUN_P2P)

    ping_pong();

    long *hd = shmem_malloc(ND * sizeof(long));
    long *hf = shmem_malloc(2 * sizeof(long));
    CHECK(hd && hf, "shmem_malloc failed");
    for (int how = ORDER_FENCE; how <= ORDER_PE_QUIET; how++) {
        ordering(hd, &hf[0], &hf[1], "heap", how);
        ordering(g_data, &g_flag, &g_ack, "global", how);
    }
    shmem_free(hf);
    shmem_free(hd);
#if SHOAL_TEST_HAVE_16
    pe_quiet_multi();
#endif

    barriers();

    sht_pass("sync");
    shmem_finalize();
    return 0;
}
