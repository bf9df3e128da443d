/*
 * ctx_api: communication contexts (OpenSHMEM 1.4/1.5, sessions from 1.6).
 *
 *  - shmem_ctx_create with every combination of SERIALIZED, PRIVATE and
 *    NOSTORE: returns 0 and a handle that is neither SHMEM_CTX_INVALID nor
 *    SHMEM_CTX_DEFAULT; ctx_get_team says SHMEM_TEAM_WORLD for those and for
 *    SHMEM_CTX_DEFAULT, and nonzero + SHMEM_TEAM_INVALID for
 *    SHMEM_CTX_INVALID; 32 contexts alive at once, each used;
 *  - shmem_team_create_ctx on the world, a strided subteam, the reversed
 *    world and both 2-D teams (every shape at once): ctx_get_team gives the
 *    team back, and every ctx routine takes PE numbers relative to that
 *    team: put/get/p/g/put_nbi/get_nbi/iput/iget/ibput/ibget for every RMA
 *    type, the sized and mem forms, AMOs (fetching, non-fetching, nbi,
 *    bitwise), put_signal/put_signal_nbi, signal_add, signal_set,
 *    fence (data then flag), quiet and pe_quiet;
 *  - a NOSTORE context used for gets and fetches only;
 *  - ctx_destroy quiets the context (put_nbi, destroy, then the data is at
 *    the target after a sync); destroying SHMEM_CTX_INVALID does nothing;
 *    team_create_ctx on SHMEM_TEAM_INVALID fails with SHMEM_CTX_INVALID;
 *  - session start/stop (1.6) accepted as hints around ctx traffic;
 *  - heap and global (static) targets.
 */
#include "check.h"

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("ctx_api", "needs the OpenSHMEM 1.5 team API")
#else

#define NE 5
#define BUF 4096

static sht_shape_t shapes[SHT_NSHAPES];
static unsigned char *sbuf, *dbuf;
static unsigned char g_dbuf[BUF]; /* a global target */
static long g_counter;
static uint64_t g_bits, g_sig[4], g_flag;
static long g_data;
static char what[256];

#define VAL(T, pe, i, r) SHT_VAL(T, pe, i, r)

/* Every RMA ctx routine for one type, over shape s with context c; the
 * target is the next team member, so the data in dest comes from the
 * previous one.  d is the (symmetric) dest area: heap or global. */
#define DEF_CTX_RMA(T, N)                                                                          \
    static void ctx_rma_##N(shmem_ctx_t c, const sht_shape_t *s, unsigned char *d)                 \
    {                                                                                              \
        T *src = (T *)sbuf, *dst = (T *)d, loc[3 * NE];                                            \
        int me = shmem_my_pe(), nxt = (s->me + 1) % s->n;                                          \
        int wprev = s->world[(s->me + s->n - 1) % s->n];                                           \
        for (int i = 0; i < 3 * NE; i++)                                                           \
            src[i] = VAL(T, me, i, 1);                                                             \
        memset(dst, 0, 8 * NE * sizeof(T));                                                        \
        shmem_team_sync(s->team);                                                                  \
        shmem_ctx_##N##_put(c, dst, src, NE, nxt);                                                 \
        shmem_ctx_##N##_p(c, &dst[NE], VAL(T, me, 100, 2), nxt);                                   \
        shmem_ctx_##N##_put_nbi(c, &dst[NE + 1], &src[NE], NE, nxt);                               \
        shmem_ctx_##N##_iput(c, &dst[2 * NE + 1], src, 2, 3, 3, nxt);                              \
        /* ibput: 2 blocks of 2, dest stride 3, source stride 4 */                                 \
        shmem_ctx_##N##_ibput(c, &dst[4 * NE], src, 3, 4, 2, 2, nxt);                              \
        shmem_ctx_quiet(c);                                                                        \
        shmem_team_sync(s->team);                                                                  \
        snprintf(what, sizeof what, "%s: ctx %s put/p/put_nbi/iput/ibput", s->name, #N);           \
        for (int i = 0; i < NE; i++) {                                                             \
            CHECK_VAL(what, i, dst[i], VAL(T, wprev, i, 1));                                       \
            CHECK_VAL(what, NE + 1 + i, dst[NE + 1 + i], VAL(T, wprev, NE + i, 1));                \
        }                                                                                          \
        CHECK_VAL(what, NE, dst[NE], VAL(T, wprev, 100, 2));                                       \
        for (int i = 0; i < 3; i++) /* iput: dest stride 2, source stride 3 */                     \
            CHECK_VAL(what, 2 * NE + 1 + 2 * i, dst[2 * NE + 1 + 2 * i], VAL(T, wprev, 3 * i, 1)); \
        for (int b = 0; b < 2; b++)                                                                \
            for (int i = 0; i < 2; i++)                                                            \
                CHECK_VAL(what, 4 * NE + 3 * b + i, dst[4 * NE + 3 * b + i],                       \
                          VAL(T, wprev, 4 * b + i, 1));                                            \
        /* Reads from the next member see what this PE wrote there. */                             \
        snprintf(what, sizeof what, "%s: ctx %s get/g/get_nbi/iget/ibget", s->name, #N);           \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_ctx_##N##_get(c, loc, dst, NE, nxt);                                                 \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, loc[i], VAL(T, me, i, 1));                                          \
        CHECK_VAL(what, NE, shmem_ctx_##N##_g(c, &dst[NE], nxt), VAL(T, me, 100, 2));              \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_ctx_##N##_get_nbi(c, loc, &dst[NE + 1], NE, nxt);                                    \
        shmem_ctx_quiet(c);                                                                        \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, NE + 1 + i, loc[i], VAL(T, me, NE + i, 1));                            \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_ctx_##N##_iget(c, loc, &dst[2 * NE + 1], 1, 2, 3, nxt);                              \
        for (int i = 0; i < 3; i++)                                                                \
            CHECK_VAL(what, 2 * NE + 1 + 2 * i, loc[i], VAL(T, me, 3 * i, 1));                     \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_ctx_##N##_ibget(c, loc, &dst[4 * NE], 2, 3, 2, 2, nxt);                              \
        for (int b = 0; b < 2; b++)                                                                \
            for (int i = 0; i < 2; i++)                                                            \
                CHECK_VAL(what, 4 * NE + 3 * b + i, loc[2 * b + i], VAL(T, me, 4 * b + i, 1));     \
        shmem_team_sync(s->team);                                                                  \
    }
SHT_RMA_TYPES(DEF_CTX_RMA)

static void ctx_rma_all(shmem_ctx_t c, const sht_shape_t *s, unsigned char *d)
{
#define CALL(T, N) ctx_rma_##N(c, s, d);
    SHT_RMA_TYPES(CALL)
#undef CALL
}

/* Sized and mem ctx forms. */
static void ctx_sized(shmem_ctx_t c, const sht_shape_t *s)
{
    int me = shmem_my_pe(), nxt = (s->me + 1) % s->n;
    int wprev = s->world[(s->me + s->n - 1) % s->n];
    unsigned char loc[256];
    for (int i = 0; i < 256; i++)
        sbuf[i] = (unsigned char)(me * 37 + i);
    memset(dbuf, 0, 1024);
    shmem_team_sync(s->team);
    shmem_ctx_put8(c, dbuf, sbuf, 16, nxt);
    shmem_ctx_put16(c, dbuf + 16, sbuf + 16, 8, nxt);
    shmem_ctx_put32(c, dbuf + 32, sbuf + 32, 4, nxt);
    shmem_ctx_put64(c, dbuf + 48, sbuf + 48, 2, nxt);
    shmem_ctx_put128(c, dbuf + 64, sbuf + 64, 2, nxt);
    shmem_ctx_putmem(c, dbuf + 96, sbuf + 96, 33, nxt);
    shmem_ctx_putmem_nbi(c, dbuf + 129, sbuf + 129, 127, nxt);
    shmem_ctx_put64_nbi(c, dbuf + 256, sbuf, 4, nxt);
    shmem_ctx_quiet(c);
    shmem_team_sync(s->team);
    snprintf(what, sizeof what, "%s: ctx sized/mem puts", s->name);
    for (int i = 0; i < 256; i++)
        CHECK_VAL(what, i, dbuf[i], (unsigned char)(wprev * 37 + i));
    for (int i = 0; i < 32; i++)
        CHECK_VAL(what, 256 + i, dbuf[256 + i], (unsigned char)(wprev * 37 + i));
    snprintf(what, sizeof what, "%s: ctx sized/mem gets", s->name);
    memset(loc, 0, sizeof loc);
    shmem_ctx_get32(c, loc, dbuf, 8, nxt);
    shmem_ctx_get128(c, loc + 32, dbuf + 32, 2, nxt);
    shmem_ctx_getmem(c, loc + 64, dbuf + 64, 100, nxt);
    shmem_ctx_getmem_nbi(c, loc + 164, dbuf + 164, 92, nxt);
    shmem_ctx_quiet(c);
    for (int i = 0; i < 256; i++)
        CHECK_VAL(what, i, loc[i], (unsigned char)(me * 37 + i));
    shmem_team_sync(s->team);
}

/* AMOs through the context: a counter on team PE 0, bitwise ops and a
 * swap chain on the next member. */
static void ctx_amo(shmem_ctx_t c, const sht_shape_t *s)
{
    int me = shmem_my_pe(), nxt = (s->me + 1) % s->n;
    int wprev = s->world[(s->me + s->n - 1) % s->n];
    long *ctr = (long *)dbuf;
    uint64_t *bits = (uint64_t *)(dbuf + 64);
    double *dv = (double *)(dbuf + 128);
    long fetched[4];
    *ctr = 0;
    g_counter = 0;
    *bits = 0;
    g_bits = ~(uint64_t)0;
    *dv = 0;
    shmem_team_sync(s->team);
    const int K = 10;
    for (int k = 0; k < K; k++) {
        long old = shmem_ctx_long_atomic_fetch_add(c, ctr, me + 1, 0);
        CHECK(old >= 0, "%s: ctx fetch_add returned %ld", s->name, old);
        shmem_ctx_long_atomic_add(c, &g_counter, 2, 0);
        shmem_ctx_long_atomic_inc(c, ctr, 0);
    }
    shmem_ctx_long_atomic_fetch_add_nbi(c, &fetched[0], ctr, 0, 0);
    shmem_ctx_long_atomic_fetch_inc_nbi(c, &fetched[1], &g_counter, 0);
    shmem_ctx_uint64_atomic_or(c, bits, (uint64_t)1 << (me % 64), nxt);
    shmem_ctx_uint64_atomic_and(c, &g_bits, ~((uint64_t)1 << (me % 64)), nxt);
    (void)shmem_ctx_uint64_atomic_fetch_xor(c, bits, (uint64_t)1 << 63, nxt);
    shmem_ctx_double_atomic_set(c, dv, me + 0.5, nxt);
    shmem_ctx_quiet(c);
    shmem_team_sync(s->team);
    snprintf(what, sizeof what, "%s: ctx AMOs", s->name);
    if (s->me == 0) {
        long expect = 0, gexpect = 0;
        for (int k = 0; k < s->n; k++) {
            expect += (long)K * (s->world[k] + 2);
            gexpect += 2L * K + 1;
        }
        CHECK_VAL(what, 0, SHT_READ(long, ctr), expect);
        CHECK_VAL(what, 1, SHT_READ(long, &g_counter), gexpect);
    }
    CHECK_VAL(what, 2, SHT_READ(uint64_t, bits),
              ((uint64_t)1 << (wprev % 64)) ^ ((uint64_t)1 << 63));
    CHECK_VAL(what, 3, SHT_READ(uint64_t, &g_bits), ~((uint64_t)1 << (wprev % 64)));
    CHECK_VAL(what, 4, SHT_READ(double, dv), wprev + 0.5);
    CHECK_VAL(what, 5, shmem_ctx_double_atomic_fetch(c, dv, nxt), me + 0.5);
    CHECK_VAL(what, 6, shmem_ctx_uint64_atomic_fetch(c, &g_bits, nxt), ~((uint64_t)1 << (me % 64)));
    shmem_team_sync(s->team);
    /* compare_swap and swap on the next member: only this PE touches it. */
    shmem_ctx_long_atomic_set(c, ctr, 7, nxt);
    shmem_ctx_quiet(c);
    CHECK_VAL(what, 8, shmem_ctx_long_atomic_compare_swap(c, ctr, 7, 100L + me, nxt), 7L);
    CHECK_VAL(what, 9, shmem_ctx_long_atomic_swap(c, ctr, 200L + me, nxt), 100L + me);
    CHECK_VAL(what, 10, shmem_ctx_long_atomic_fetch_inc(c, ctr, nxt), 200L + me);
    shmem_ctx_long_atomic_swap_nbi(c, &fetched[2], ctr, 300L + me, nxt);
    shmem_ctx_quiet(c); /* nbi AMOs are unordered until then */
    shmem_ctx_long_atomic_compare_swap_nbi(c, &fetched[3], ctr, 300L + me, 400L + me, nxt);
    shmem_ctx_quiet(c);
    CHECK_VAL(what, 11, fetched[2], 201L + me);
    CHECK_VAL(what, 12, fetched[3], 300L + me);
    shmem_team_sync(s->team);
    CHECK_VAL(what, 13, SHT_READ(long, ctr), 400L + wprev);
    shmem_team_sync(s->team);
}

/* Signals, fence and pe_quiet through the context. */
static void ctx_signal(shmem_ctx_t c, const sht_shape_t *s, int round)
{
    int me = shmem_my_pe(), nxt = (s->me + 1) % s->n;
    int wprev = s->world[(s->me + s->n - 1) % s->n];
    for (int i = 0; i < 4; i++)
        g_sig[i] = 0;
    g_flag = 0;
    g_data = 0;
    for (int i = 0; i < 512; i++)
        sbuf[i] = (unsigned char)(me + i + round);
    memset(dbuf, 0, 1024);
    shmem_team_sync(s->team);
    shmem_ctx_putmem_signal(c, dbuf, sbuf, 256, &g_sig[0], 5, SHMEM_SIGNAL_SET, nxt);
    shmem_ctx_long_put_signal_nbi(c, (long *)(dbuf + 256), (long *)(sbuf + 256), 32, &g_sig[1], 3,
                                  SHMEM_SIGNAL_ADD, nxt);
    shmem_ctx_signal_add(c, &g_sig[1], 4, nxt);
    shmem_ctx_signal_set(c, &g_sig[2], 0x1234567890ULL + (uint64_t)me, nxt);
    /* fence: data, then flag */
    shmem_ctx_long_p(c, &g_data, 1000L + me + round, nxt);
    shmem_ctx_fence(c);
    shmem_ctx_uint64_atomic_set(c, &g_flag, 1, nxt);
    int tp = nxt;
    shmem_ctx_pe_quiet(c, &tp, 1);
    snprintf(what, sizeof what, "%s: ctx signals", s->name);
    CHECK_VAL(what, 0, shmem_signal_wait_until(&g_sig[0], SHMEM_CMP_EQ, 5), (uint64_t)5);
    for (int i = 0; i < 256; i++)
        CHECK_VAL(what, i, SHT_READ(unsigned char, &dbuf[i]), (unsigned char)(wprev + i + round));
    CHECK_VAL(what, 1, shmem_signal_wait_until(&g_sig[1], SHMEM_CMP_EQ, 7), (uint64_t)7);
    for (int i = 256; i < 512; i++)
        CHECK_VAL(what, i, SHT_READ(unsigned char, &dbuf[i]), (unsigned char)(wprev + i + round));
    shmem_signal_wait_until(&g_sig[2], SHMEM_CMP_NE, 0);
    CHECK_VAL(what, 2, shmem_signal_fetch(&g_sig[2]), 0x1234567890ULL + (uint64_t)wprev);
    shmem_uint64_wait_until(&g_flag, SHMEM_CMP_EQ, 1);
    CHECK_VAL("data before the fenced flag", round, SHT_READ(long, &g_data), 1000L + wprev + round);
    shmem_team_sync(s->team);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    sbuf = shmem_malloc(BUF);
    dbuf = shmem_malloc(BUF);
    CHECK(sbuf && dbuf, "shmem_malloc failed");
    sht_shapes_make(shapes);
    const sht_shape_t *world = &shapes[SHT_SHAPE_WORLD];

    /* ---- handles and teams ---- */
    shmem_team_t t = (shmem_team_t)&g_data;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t) == 0 && t == SHMEM_TEAM_WORLD,
          "ctx_get_team(SHMEM_CTX_DEFAULT) is not SHMEM_TEAM_WORLD");
    t = (shmem_team_t)&g_data;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0, "ctx_get_team(INVALID) returned 0");
    CHECK(t == SHMEM_TEAM_INVALID, "ctx_get_team(INVALID) did not give SHMEM_TEAM_INVALID");
    shmem_ctx_destroy(SHMEM_CTX_INVALID); /* no operation */
    {
        shmem_ctx_t c = (shmem_ctx_t)&g_data;
        CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0,
              "team_create_ctx(SHMEM_TEAM_INVALID) returned 0");
        CHECK(c == SHMEM_CTX_INVALID, "team_create_ctx(SHMEM_TEAM_INVALID) gave a context");
    }

    /* ---- every option combination ---- */
    static const long opts[] = {0,
                                SHMEM_CTX_SERIALIZED,
                                SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                                SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE};
    for (size_t k = 0; k < sizeof opts / sizeof opts[0]; k++) {
        shmem_ctx_t c = SHMEM_CTX_INVALID;
        int rc = shmem_ctx_create(opts[k], &c);
        CHECK(rc == 0, "ctx_create(options 0x%lx) returned %d", opts[k], rc);
        CHECK(c != SHMEM_CTX_INVALID && c != SHMEM_CTX_DEFAULT,
              "ctx_create(options 0x%lx) gave an invalid or the default handle", opts[k]);
        t = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_get_team(c, &t) == 0 && t == SHMEM_TEAM_WORLD,
              "ctx_get_team of a ctx_create context is not SHMEM_TEAM_WORLD");
        if (opts[k] & SHMEM_CTX_NOSTORE) {
            /* Gets and fetches only. */
            *(long *)dbuf = 5000 + me;
            shmem_barrier_all();
            CHECK_VAL("NOSTORE ctx g", k, shmem_ctx_long_g(c, (long *)dbuf, sht_right()),
                      5000L + sht_right());
            CHECK_VAL("NOSTORE ctx fetch", k,
                      shmem_ctx_long_atomic_fetch(c, (long *)dbuf, sht_left()), 5000L + sht_left());
            shmem_barrier_all();
        } else {
            ctx_rma_long(c, world, dbuf);
            ctx_rma_double(c, world, g_dbuf);
            ctx_amo(c, world);
        }
        shmem_ctx_destroy(c);
    }
    /* The default context takes world PE numbers like the plain calls. */
    ctx_rma_all(SHMEM_CTX_DEFAULT, world, dbuf);
    ctx_sized(SHMEM_CTX_DEFAULT, world);
    ctx_amo(SHMEM_CTX_DEFAULT, world);
    ctx_signal(SHMEM_CTX_DEFAULT, world, 0);

    /* ---- 32 contexts alive at once ---- */
    {
        enum { NC = 32 };
        shmem_ctx_t cs[NC];
        long *slots = (long *)dbuf;
        static long values[NC]; /* nbi sources must live until the quiet */
        for (int k = 0; k < NC; k++) {
            CHECK(shmem_ctx_create(k % 2 ? SHMEM_CTX_PRIVATE : 0, &cs[k]) == 0,
                  "ctx_create number %d of %d failed", k, NC);
            slots[k] = -1;
        }
        for (int k = 0; k < NC; k++)
            for (int j = 0; j < k; j++)
                CHECK(cs[j] != cs[k], "contexts %d and %d have the same handle", j, k);
        shmem_barrier_all();
        for (int k = 0; k < NC; k++) {
            values[k] = 100L * me + k;
            shmem_ctx_long_put_nbi(cs[k], &slots[k], &values[k], 1, sht_right());
        }
        for (int k = 0; k < NC; k++)
            shmem_ctx_quiet(cs[k]);
        shmem_barrier_all();
        for (int k = 0; k < NC; k++)
            CHECK_VAL("slot written through one of 32 contexts", k, SHT_READ(long, &slots[k]),
                      100L * sht_left() + k);
        shmem_barrier_all();
        for (int k = 0; k < NC; k++)
            shmem_ctx_destroy(cs[k]);
    }

    /* ---- ctx_destroy completes pending puts ---- */
    {
        shmem_ctx_t c;
        long *big = (long *)dbuf;
        static long src[512];
        for (int i = 0; i < 512; i++) {
            src[i] = 7000L * me + i;
            big[i] = -1;
        }
        shmem_barrier_all();
        CHECK(shmem_ctx_create(0, &c) == 0, "ctx_create");
        shmem_ctx_long_put_nbi(c, big, src, 512, sht_right());
        shmem_ctx_destroy(c);
        shmem_sync_all(); /* sync, not barrier: only the destroy can have completed the puts */
        for (int i = 0; i < 512; i++)
            CHECK_VAL("put_nbi completed by ctx_destroy", i, SHT_READ(long, &big[i]),
                      7000L * sht_left() + i);
        shmem_barrier_all();
    }

    /* ---- team contexts, every shape at once ---- */
    for (int sh = 0; sh < SHT_NSHAPES; sh++) {
        const sht_shape_t *s = &shapes[sh];
        if (s->me >= 0) {
            shmem_ctx_t c = SHMEM_CTX_INVALID, cp = SHMEM_CTX_INVALID;
            CHECK(shmem_team_create_ctx(s->team, 0, &c) == 0, "%s: team_create_ctx failed",
                  s->name);
            CHECK(c != SHMEM_CTX_INVALID && c != SHMEM_CTX_DEFAULT, "%s: team_create_ctx handle",
                  s->name);
            CHECK(shmem_team_create_ctx(s->team, SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &cp) ==
                      0,
                  "%s: team_create_ctx(PRIVATE|SERIALIZED) failed", s->name);
            t = SHMEM_TEAM_INVALID;
            CHECK(shmem_ctx_get_team(c, &t) == 0 && t == s->team,
                  "%s: ctx_get_team does not give the team back", s->name);
            ctx_rma_all(c, s, dbuf);
            ctx_rma_int(cp, s, g_dbuf);
            ctx_rma_longdouble(c, s, g_dbuf);
            ctx_sized(c, s);
            ctx_amo(c, s);
            ctx_amo(cp, s);
            ctx_signal(c, s, 1);
            /* Sessions (1.6) are hints: traffic inside one works as usual. */
            shmem_session_config_t cfg = {.total_ops = 100};
            shmem_ctx_session_start(c, 0, NULL, 0);
            ctx_signal(c, s, 2);
            shmem_ctx_session_stop(c);
            shmem_ctx_session_start(cp, 0, &cfg, SHMEM_SESSION_TOTAL_OPS);
            ctx_rma_ulong(cp, s, dbuf);
            shmem_ctx_session_stop(cp);
            shmem_team_sync(s->team);
            shmem_ctx_destroy(cp);
            shmem_ctx_destroy(c);
        }
        shmem_barrier_all();
    }
    /* Contexts on all the teams at once, used in an interleaved order. */
    {
        shmem_ctx_t cs[SHT_NSHAPES];
        for (int sh = 0; sh < SHT_NSHAPES; sh++) {
            cs[sh] = SHMEM_CTX_INVALID;
            if (shapes[sh].me >= 0)
                CHECK(shmem_team_create_ctx(shapes[sh].team, 0, &cs[sh]) == 0,
                      "%s: team_create_ctx", shapes[sh].name);
        }
        for (int sh = SHT_NSHAPES - 1; sh >= 0; sh--) {
            if (shapes[sh].me >= 0)
                ctx_rma_short(cs[sh], &shapes[sh], dbuf);
            shmem_barrier_all();
        }
        for (int sh = 0; sh < SHT_NSHAPES; sh++)
            if (cs[sh] != SHMEM_CTX_INVALID)
                shmem_ctx_destroy(cs[sh]);
    }
    (void)npes;

    sht_shapes_destroy(shapes);
    shmem_free(sbuf);
    shmem_free(dbuf);
    sht_pass("ctx_api");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
