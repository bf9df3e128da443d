/*
 * signal_api: put-with-signal and the signal routines (OpenSHMEM 1.5, with
 * shmem_signal_set from 1.6).
 *
 *  - shmem_TYPENAME_put_signal for every standard RMA type, the sized
 *    forms (8..128) and putmem_signal, each as plain, ctx, nbi and ctx nbi,
 *    with SHMEM_SIGNAL_SET on one signal and SHMEM_SIGNAL_ADD on another
 *    (which starts near 2^64 and wraps); the receiver waits for the signal
 *    with signal_wait_until, gets the signal value back, and then finds
 *    every element of the data; dest and signal on the heap, on globals,
 *    and one of each;
 *  - full 64-bit signal values, and values that name the sender;
 *  - zero elements of data: the signal is still delivered;
 *  - signal_fetch, signal_add and signal_set (plain and ctx);
 *    signal_wait_until with each comparison, including one the value
 *    satisfies by decreasing (SET to a smaller value);
 *  - every PE adding to one signal on PE 0 (put_signal ADD into its own
 *    slot + signal_add), PE 0 waiting for the total and then checking every
 *    slot;
 *  - 1 MiB put_signal and put_signal_nbi around the ring, every byte checked.
 */
#include "check.h"

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("signal_api", "needs the OpenSHMEM 1.5 team API")
#else

#define NE 37
#define BIG ((size_t)1 << 20)

static unsigned char *sbuf, *dbuf;
static unsigned char g_dest[8192];
static uint64_t g_sig[4];
static uint64_t *h_sig;
static char what[256];

#define VAL(T, pe, i, r) SHT_VAL(T, pe, i, r)
/* The SET value a PE sends: all 64 bits used, and it names the sender. */
#define SETV(pe, r) (0xF0E1D2C3B4A59687ULL ^ ((uint64_t)(pe) << 32) ^ (uint64_t)(r))
#define ADD_BASE (UINT64_MAX - 1) /* + 3 wraps to 1 */

/* Round r picks the variant: plain, ctx, nbi, ctx nbi. */
#define PUT_SIGNAL(r, N, dst, src, n, sig, v, op, pe)                                              \
    do {                                                                                           \
        switch ((r) % 4) {                                                                         \
        case 0:                                                                                    \
            shmem_##N##_put_signal(dst, src, n, sig, v, op, pe);                                   \
            break;                                                                                 \
        case 1:                                                                                    \
            shmem_ctx_##N##_put_signal(SHMEM_CTX_DEFAULT, dst, src, n, sig, v, op, pe);            \
            break;                                                                                 \
        case 2:                                                                                    \
            shmem_##N##_put_signal_nbi(dst, src, n, sig, v, op, pe);                               \
            break;                                                                                 \
        default:                                                                                   \
            shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, dst, src, n, sig, v, op, pe);        \
        }                                                                                          \
    } while (0)
static const char *variant[] = {"put_signal", "ctx_put_signal", "put_signal_nbi",
                                "ctx_put_signal_nbi"};

/* One type, one variant: SET into sig[0] with the first NE elements, ADD 3
 * into sig[1] with the next NE. */
#define DEF_SIG(T, N)                                                                              \
    static void sig_##N(unsigned char *d, uint64_t *sig, int r, const char *where)                 \
    {                                                                                              \
        T *src = (T *)sbuf, *dst = (T *)d;                                                         \
        int me = shmem_my_pe(), left = sht_left();                                                 \
        for (int i = 0; i < 2 * NE; i++)                                                           \
            src[i] = VAL(T, me, i, r);                                                             \
        memset(dst, 0, 2 * NE * sizeof(T));                                                        \
        sig[0] = 0;                                                                                \
        sig[1] = ADD_BASE;                                                                         \
        CHECK(shmem_signal_fetch(&sig[0]) == 0, "signal_fetch after a local store");               \
        shmem_barrier_all();                                                                       \
        PUT_SIGNAL(r, N, dst, src, NE, &sig[0], SETV(me, r), SHMEM_SIGNAL_SET, sht_right());       \
        PUT_SIGNAL(r, N, dst + NE, src + NE, NE, &sig[1], 3, SHMEM_SIGNAL_ADD, sht_right());       \
        snprintf(what, sizeof what, "shmem_%s_%s SET (%s)", #N, variant[r % 4], where);            \
        uint64_t got = shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, SETV(left, r));              \
        CHECK_VAL(what, -1, got, SETV(left, r));                                                   \
        for (int i = 0; i < NE; i++)                                                               \
            CHECK_VAL(what, i, SHT_READ(T, &dst[i]), VAL(T, left, i, r));                          \
        snprintf(what, sizeof what, "shmem_%s_%s ADD (%s)", #N, variant[r % 4], where);            \
        got = shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, (uint64_t)1);                         \
        CHECK_VAL(what, -1, got, (uint64_t)1);                                                     \
        for (int i = NE; i < 2 * NE; i++)                                                          \
            CHECK_VAL(what, i, SHT_READ(T, &dst[i]), VAL(T, left, i, r));                          \
        CHECK_VAL(what, -2, shmem_signal_fetch(&sig[1]), (uint64_t)1);                             \
        shmem_barrier_all(); /* completes the nbi forms before src is reused */                    \
    }
SHT_RMA_TYPES(DEF_SIG)

/* Sized and mem forms: elements of BITS bits. */
#define DEF_SIZED(BITS, NAME)                                                                      \
    static void sig_##NAME(unsigned char *d, uint64_t *sig, int r, const char *where)              \
    {                                                                                              \
        size_t esz = BITS / 8, n = 13;                                                             \
        int me = shmem_my_pe(), left = sht_left();                                                 \
        for (size_t b = 0; b < 2 * n * esz; b++)                                                   \
            sbuf[b] = (unsigned char)(me * 29 + b + r);                                            \
        memset(d, 0, 2 * n * esz);                                                                 \
        sig[0] = 0;                                                                                \
        sig[1] = ADD_BASE;                                                                         \
        shmem_barrier_all();                                                                       \
        PUT_SIGNAL(r, NAME, d, sbuf, n, &sig[0], SETV(me, r), SHMEM_SIGNAL_SET, sht_right());      \
        PUT_SIGNAL(r, NAME, d + n * esz, sbuf + n * esz, n, &sig[1], 3, SHMEM_SIGNAL_ADD,          \
                   sht_right());                                                                   \
        snprintf(what, sizeof what, "shmem_%s_%s (%s)", #NAME, variant[r % 4], where);             \
        CHECK_VAL(what, -1, shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, SETV(left, r)),         \
                  SETV(left, r));                                                                  \
        CHECK_VAL(what, -2, shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, (uint64_t)1),           \
                  (uint64_t)1);                                                                    \
        for (size_t b = 0; b < 2 * n * esz; b++)                                                   \
            CHECK_VAL(what, b, SHT_READ(unsigned char, &d[b]),                                     \
                      (unsigned char)(left * 29 + b + r));                                         \
        shmem_barrier_all();                                                                       \
    }
/* The put-with-signal names are put8_signal..put128_signal, putmem_signal:
 * give the macro the part between "shmem_" and "_put_signal"... which the
 * sized names do not have, so map them by hand. */
#define shmem_s8_put_signal shmem_put8_signal
#define shmem_s16_put_signal shmem_put16_signal
#define shmem_s32_put_signal shmem_put32_signal
#define shmem_s64_put_signal shmem_put64_signal
#define shmem_s128_put_signal shmem_put128_signal
#define shmem_smem_put_signal shmem_putmem_signal
#define shmem_ctx_s8_put_signal shmem_ctx_put8_signal
#define shmem_ctx_s16_put_signal shmem_ctx_put16_signal
#define shmem_ctx_s32_put_signal shmem_ctx_put32_signal
#define shmem_ctx_s64_put_signal shmem_ctx_put64_signal
#define shmem_ctx_s128_put_signal shmem_ctx_put128_signal
#define shmem_ctx_smem_put_signal shmem_ctx_putmem_signal
#define shmem_s8_put_signal_nbi shmem_put8_signal_nbi
#define shmem_s16_put_signal_nbi shmem_put16_signal_nbi
#define shmem_s32_put_signal_nbi shmem_put32_signal_nbi
#define shmem_s64_put_signal_nbi shmem_put64_signal_nbi
#define shmem_s128_put_signal_nbi shmem_put128_signal_nbi
#define shmem_smem_put_signal_nbi shmem_putmem_signal_nbi
#define shmem_ctx_s8_put_signal_nbi shmem_ctx_put8_signal_nbi
#define shmem_ctx_s16_put_signal_nbi shmem_ctx_put16_signal_nbi
#define shmem_ctx_s32_put_signal_nbi shmem_ctx_put32_signal_nbi
#define shmem_ctx_s64_put_signal_nbi shmem_ctx_put64_signal_nbi
#define shmem_ctx_s128_put_signal_nbi shmem_ctx_put128_signal_nbi
#define shmem_ctx_smem_put_signal_nbi shmem_ctx_putmem_signal_nbi
DEF_SIZED(8, s8)
DEF_SIZED(16, s16)
DEF_SIZED(32, s32)
DEF_SIZED(64, s64)
DEF_SIZED(128, s128)
DEF_SIZED(8, smem)

typedef void (*sig_fn)(unsigned char *, uint64_t *, int, const char *);
static const sig_fn all_sig[] = {
#define ROW(T, N) sig_##N,
    SHT_RMA_TYPES(ROW) sig_s8, sig_s16, sig_s32, sig_s64, sig_s128, sig_smem,
};

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = sht_right(), left = sht_left();
    sbuf = shmem_malloc(BIG);
    dbuf = shmem_malloc(BIG);
    h_sig = shmem_malloc(4 * sizeof(uint64_t));
    CHECK(sbuf && dbuf && h_sig, "shmem_malloc failed");

    /* ---- every type and variant, on the heap, on globals, and mixed ---- */
    for (size_t f = 0; f < sizeof all_sig / sizeof all_sig[0]; f++)
        for (int r = 0; r < 4; r++) {
            all_sig[f](dbuf, h_sig, r, "heap");
            all_sig[f](g_dest, g_sig, r, "globals");
            all_sig[f](r % 2 ? dbuf : g_dest, r % 2 ? g_sig : h_sig, r, "mixed");
        }

    /* ---- signal_set / signal_add / signal_fetch / wait comparisons ---- */
    h_sig[0] = 10;
    g_sig[0] = 10;
    CHECK_VAL("signal_fetch", 0, shmem_signal_fetch(&h_sig[0]), (uint64_t)10);
    CHECK_VAL("signal_fetch", 1, shmem_signal_fetch(&g_sig[0]), (uint64_t)10);
    shmem_barrier_all();
    shmem_signal_set(&h_sig[0], 3, right); /* decreases: LT 5 */
    CHECK_VAL("wait LT after signal_set", 0, shmem_signal_wait_until(&h_sig[0], SHMEM_CMP_LT, 5),
              (uint64_t)3);
    shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, &g_sig[0], 7, right);
    CHECK_VAL("wait LE after ctx_signal_set", 0,
              shmem_signal_wait_until(&g_sig[0], SHMEM_CMP_LE, 7), (uint64_t)7);
    shmem_barrier_all();
    shmem_signal_add(&h_sig[0], (uint64_t)1 << 40, right);
    CHECK_VAL("wait GT after signal_add", 0,
              shmem_signal_wait_until(&h_sig[0], SHMEM_CMP_GT, (uint64_t)1 << 40),
              ((uint64_t)1 << 40) + 3);
    shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &g_sig[0], 5, right);
    CHECK_VAL("wait GE after ctx_signal_add", 0,
              shmem_signal_wait_until(&g_sig[0], SHMEM_CMP_GE, 12), (uint64_t)12);
    shmem_barrier_all();
    shmem_signal_set(&g_sig[0], 0, right);
    CHECK_VAL("wait EQ 0 after signal_set", 0, shmem_signal_wait_until(&g_sig[0], SHMEM_CMP_EQ, 0),
              (uint64_t)0);
    shmem_signal_set(&h_sig[0], UINT64_MAX, right);
    CHECK_VAL("wait NE after signal_set", 0,
              shmem_signal_wait_until(&h_sig[0], SHMEM_CMP_NE, ((uint64_t)1 << 40) + 3),
              UINT64_MAX);
    shmem_barrier_all();

    /* ---- no data: the signal still arrives ---- */
    h_sig[3] = 0;
    g_sig[3] = 0;
    shmem_barrier_all();
    shmem_putmem_signal(dbuf, sbuf, 0, &h_sig[3], 77, SHMEM_SIGNAL_SET, right);
    shmem_long_put_signal_nbi((long *)dbuf, (long *)sbuf, 0, &g_sig[3], 5, SHMEM_SIGNAL_ADD, right);
    CHECK_VAL("putmem_signal of 0 bytes", 0, shmem_signal_wait_until(&h_sig[3], SHMEM_CMP_EQ, 77),
              (uint64_t)77);
    CHECK_VAL("long_put_signal_nbi of 0 elements", 0,
              shmem_signal_wait_until(&g_sig[3], SHMEM_CMP_EQ, 5), (uint64_t)5);
    shmem_barrier_all();

    /* ---- everybody signals PE 0 ---- */
    {
        long *slots = (long *)dbuf;
        static long mine[64];
        for (int i = 0; i < 64; i++)
            mine[i] = 1000L * me + i;
        h_sig[1] = 0;
        g_sig[1] = 0;
        memset(slots, 0, (size_t)npes * 64 * sizeof(long));
        shmem_barrier_all();
        for (int rep = 0; rep < 3; rep++) {
            if (rep == 0)
                shmem_long_put_signal(slots + 64 * me, mine, 64, &h_sig[1], 1, SHMEM_SIGNAL_ADD, 0);
            else if (rep == 1)
                shmem_long_put_signal_nbi(slots + 64 * me, mine, 64, &h_sig[1], 1, SHMEM_SIGNAL_ADD,
                                          0);
            else
                shmem_ctx_long_put_signal_nbi(SHMEM_CTX_DEFAULT, slots + 64 * me, mine, 64,
                                              &h_sig[1], 1, SHMEM_SIGNAL_ADD, 0);
            shmem_signal_add(&g_sig[1], (uint64_t)me + 1, 0);
        }
        if (me == 0) {
            uint64_t total = 3ULL * npes;
            CHECK_VAL("ADD from every PE", 0,
                      shmem_signal_wait_until(&h_sig[1], SHMEM_CMP_EQ, total), total);
            for (int p = 0; p < npes; p++)
                for (int i = 0; i < 64; i++)
                    CHECK_VAL("slot data once its ADD arrived", p * 64 + i,
                              SHT_READ(long, &slots[64 * p + i]), 1000L * p + i);
            uint64_t sum = 3ULL * npes * (npes + 1) / 2;
            CHECK_VAL("signal_add from every PE", 0,
                      shmem_signal_wait_until(&g_sig[1], SHMEM_CMP_GE, sum), sum);
        }
        shmem_barrier_all();
    }

    /* ---- 1 MiB around the ring, blocking and nbi ---- */
    for (int rep = 0; rep < 2; rep++) {
        for (size_t b = 0; b < BIG; b++)
            sbuf[b] = (unsigned char)((b * 131 + me * 7 + rep) ^ (b >> 9));
        memset(dbuf, 0, BIG);
        h_sig[2] = 0;
        shmem_barrier_all();
        if (rep == 0)
            shmem_putmem_signal(dbuf, sbuf, BIG, &h_sig[2], 42, SHMEM_SIGNAL_SET, right);
        else
            shmem_putmem_signal_nbi(dbuf, sbuf, BIG, &h_sig[2], 42, SHMEM_SIGNAL_ADD, right);
        shmem_signal_wait_until(&h_sig[2], SHMEM_CMP_EQ, 42);
        for (size_t b = 0; b < BIG; b++) {
            unsigned char e = (unsigned char)((b * 131 + left * 7 + rep) ^ (b >> 9));
            if (SHT_READ(unsigned char, &dbuf[b]) != e)
                CHECK_VAL(rep ? "1 MiB putmem_signal_nbi" : "1 MiB putmem_signal", b,
                          SHT_READ(unsigned char, &dbuf[b]), e);
        }
        shmem_barrier_all();
    }

    shmem_free(h_sig);
    shmem_free(sbuf);
    shmem_free(dbuf);
    sht_pass("signal_api");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
