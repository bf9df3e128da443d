/*
 * coll_generic: the C11 type-generic forms of the collectives and signals
 * (OpenSHMEM 1.5/1.6), on every team shape.  Each selection must pick the
 * routine of the argument's type: a wrong pick moves the wrong number of
 * bytes or combines the wrong way, and the checked results show it.
 *
 *  - shmem_broadcast, shmem_collect, shmem_fcollect, shmem_alltoall,
 *    shmem_alltoalls on several types;
 *  - shmem_{and,or,xor,max,min,sum,prod}_reduce on unsigned, signed, real
 *    and complex types, including the signed fixed-width types the bitwise
 *    table lists (int8_t .. int64_t: SHT_GENERIC_SIGNED_BITWISE_REDUCE);
 *  - shmem_sum_inscan and shmem_sum_exscan;
 *  - shmem_put_signal and shmem_put_signal_nbi with and without a context,
 *    and the C11 ctx forms shmem_signal_add(ctx, ...) and
 *    shmem_signal_set(ctx, ...) (SHT_GENERIC_SIGNAL_CTX).
 * The build switches the two marked parts off when the header lacks them
 * (a separate compile-only test then fails, naming the gap).
 */
#include "check.h"

#include <complex.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("coll_generic", "needs the OpenSHMEM 1.5 team API")
#else

#ifndef SHT_GENERIC_SIGNED_BITWISE_REDUCE
#define SHT_GENERIC_SIGNED_BITWISE_REDUCE 1
#endif
#ifndef SHT_GENERIC_SIGNAL_CTX
#define SHT_GENERIC_SIGNAL_CTX 1
#endif

#define N 16

static sht_shape_t shapes[SHT_NSHAPES];
static char what[200];
static uint64_t sig[2];

/* A reduction through the generic name: dest/source of type T, N elements. */
#define GREDUCE(T, GNAME, GEN, COMB, s, d, src)                                                    \
    do {                                                                                           \
        T *d_ = (T *)(d), *s_ = (T *)(src);                                                        \
        for (int i = 0; i < N; i++)                                                                \
            s_[i] = GEN(T, shmem_my_pe(), i);                                                      \
        shmem_team_sync((s)->team);                                                                \
        CHECK(GNAME((s)->team, d_, s_, N) == 0, "%s(%s) failed", #GNAME, #T);                      \
        snprintf(what, sizeof what, "%s: generic %s on %s", (s)->name, #GNAME, #T);                \
        for (int i = 0; i < N; i++) {                                                              \
            T e = GEN(T, (s)->world[0], i);                                                        \
            for (int k = 1; k < (s)->n; k++)                                                       \
                e = COMB(T, e, GEN(T, (s)->world[k], i));                                          \
            CHECK_ARITH(T, what, i, d_[i], e);                                                     \
        }                                                                                          \
        shmem_team_sync((s)->team);                                                                \
    } while (0)

static void run(const sht_shape_t *s, unsigned char *sb, unsigned char *db)
{
    int me = shmem_my_pe(), nt = s->n;

    /* Data movement. */
    {
        long *src = (long *)sb, *dst = (long *)db;
        for (int i = 0; i < N; i++)
            src[i] = SHT_VAL(long, me, i, 1);
        shmem_team_sync(s->team);
        CHECK(shmem_broadcast(s->team, dst, src, N, nt - 1) == 0, "shmem_broadcast(long)");
        snprintf(what, sizeof what, "%s: generic broadcast(long)", s->name);
        for (int i = 0; i < N; i++)
            CHECK_VAL(what, i, dst[i], SHT_VAL(long, s->world[nt - 1], i, 1));
        shmem_team_sync(s->team);
    }
    {
        short *src = (short *)sb, *dst = (short *)db;
        for (int i = 0; i < N; i++)
            src[i] = SHT_VAL(short, me, i, 2);
        shmem_team_sync(s->team);
        CHECK(shmem_fcollect(s->team, dst, src, N) == 0, "shmem_fcollect(short)");
        snprintf(what, sizeof what, "%s: generic fcollect(short)", s->name);
        for (int k = 0; k < nt; k++)
            for (int i = 0; i < N; i++)
                CHECK_VAL(what, k * N + i, dst[k * N + i], SHT_VAL(short, s->world[k], i, 2));
        shmem_team_sync(s->team);
        /* collect: team PE k gives k + 1 elements */
        CHECK(shmem_collect(s->team, dst, src, (size_t)s->me + 1) == 0, "shmem_collect(short)");
        snprintf(what, sizeof what, "%s: generic collect(short)", s->name);
        for (int k = 0, at = 0; k < nt; k++)
            for (int i = 0; i <= k; i++, at++)
                CHECK_VAL(what, at, dst[at], SHT_VAL(short, s->world[k], i, 2));
        shmem_team_sync(s->team);
    }
    {
        double *src = (double *)sb, *dst = (double *)db;
        for (int i = 0; i < N * nt * 2; i++)
            src[i] = SHT_VAL(double, me, i, 3);
        shmem_team_sync(s->team);
        CHECK(shmem_alltoall(s->team, dst, src, N) == 0, "shmem_alltoall(double)");
        snprintf(what, sizeof what, "%s: generic alltoall(double)", s->name);
        for (int k = 0; k < nt; k++)
            for (int i = 0; i < N; i++)
                CHECK_VAL(what, k * N + i, dst[k * N + i],
                          SHT_VAL(double, s->world[k], s->me *N + i, 3));
        shmem_team_sync(s->team);
        CHECK(shmem_alltoalls(s->team, dst, src, 1, 2, N) == 0, "shmem_alltoalls(double)");
        snprintf(what, sizeof what, "%s: generic alltoalls(double) sst 2", s->name);
        for (int k = 0; k < nt; k++)
            for (int i = 0; i < N; i++)
                CHECK_VAL(what, k * N + i, dst[k * N + i],
                          SHT_VAL(double, s->world[k], 2 * (s->me * N + i), 3));
        shmem_team_sync(s->team);
    }

    /* Reductions and scans. */
    GREDUCE(unsigned int, shmem_and_reduce, SHT_GEN_AND, SHT_OP_AND, s, db, sb);
    GREDUCE(unsigned long long, shmem_or_reduce, SHT_GEN_OR, SHT_OP_OR, s, db, sb);
    GREDUCE(unsigned char, shmem_xor_reduce, SHT_GEN_XOR, SHT_OP_XOR, s, db, sb);
    GREDUCE(unsigned short, shmem_and_reduce, SHT_GEN_AND, SHT_OP_AND, s, db, sb);
#if SHT_GENERIC_SIGNED_BITWISE_REDUCE
    GREDUCE(int8_t, shmem_xor_reduce, SHT_GEN_XOR, SHT_OP_XOR, s, db, sb);
    GREDUCE(int16_t, shmem_or_reduce, SHT_GEN_OR, SHT_OP_OR, s, db, sb);
    GREDUCE(int32_t, shmem_and_reduce, SHT_GEN_AND, SHT_OP_AND, s, db, sb);
    GREDUCE(int64_t, shmem_xor_reduce, SHT_GEN_XOR, SHT_OP_XOR, s, db, sb);
#endif
    GREDUCE(char, shmem_max_reduce, SHT_GEN_MINMAX, SHT_OP_MAX, s, db, sb);
    GREDUCE(signed char, shmem_min_reduce, SHT_GEN_MINMAX, SHT_OP_MIN, s, db, sb);
    GREDUCE(long long, shmem_max_reduce, SHT_GEN_MINMAX, SHT_OP_MAX, s, db, sb);
    GREDUCE(float, shmem_min_reduce, SHT_GEN_MINMAX, SHT_OP_MIN, s, db, sb);
    GREDUCE(long double, shmem_max_reduce, SHT_GEN_MINMAX, SHT_OP_MAX, s, db, sb);
    GREDUCE(int, shmem_sum_reduce, SHT_GEN_SUM, SHT_OP_SUM, s, db, sb);
    GREDUCE(unsigned long, shmem_sum_reduce, SHT_GEN_SUM, SHT_OP_SUM, s, db, sb);
    GREDUCE(double, shmem_prod_reduce, SHT_GEN_PROD, SHT_OP_PROD, s, db, sb);
    GREDUCE(short, shmem_prod_reduce, SHT_GEN_PROD, SHT_OP_PROD, s, db, sb);
    {
        double _Complex *src = (double _Complex *)sb, *dst = (double _Complex *)db;
        for (int i = 0; i < N; i++)
            src[i] = (double)(me + i) + (double)(me - i) * I;
        shmem_team_sync(s->team);
        CHECK(shmem_sum_reduce(s->team, dst, src, N) == 0, "shmem_sum_reduce(complexd)");
        snprintf(what, sizeof what, "%s: generic sum_reduce(double _Complex)", s->name);
        for (int i = 0; i < N; i++) {
            double re = 0, im = 0;
            for (int k = 0; k < nt; k++) {
                re += s->world[k] + i;
                im += s->world[k] - i;
            }
            CHECK_NEAR(what, i, creal(dst[i]), re, 1e-9);
            CHECK_NEAR(what, i, cimag(dst[i]), im, 1e-9);
        }
        shmem_team_sync(s->team);
    }
    {
        long *src = (long *)sb, *dst = (long *)db;
        for (int i = 0; i < N; i++)
            src[i] = SHT_GEN_SUM(long, me, i);
        shmem_team_sync(s->team);
        CHECK(shmem_sum_inscan(s->team, dst, src, N) == 0, "shmem_sum_inscan(long)");
        snprintf(what, sizeof what, "%s: generic sum_inscan(long)", s->name);
        for (int i = 0; i < N; i++) {
            long e = 0;
            for (int k = 0; k <= s->me; k++)
                e += SHT_GEN_SUM(long, s->world[k], i);
            CHECK_VAL(what, i, dst[i], e);
        }
        shmem_team_sync(s->team);
        unsigned *usrc = (unsigned *)sb, *udst = (unsigned *)db;
        for (int i = 0; i < N; i++)
            usrc[i] = SHT_GEN_SUM(unsigned, me, i);
        shmem_team_sync(s->team);
        CHECK(shmem_sum_exscan(s->team, udst, usrc, N) == 0, "shmem_sum_exscan(unsigned)");
        snprintf(what, sizeof what, "%s: generic sum_exscan(unsigned)", s->name);
        for (int i = 0; i < N; i++) {
            unsigned e = 0;
            for (int k = 0; k < s->me; k++)
                e += SHT_GEN_SUM(unsigned, s->world[k], i);
            CHECK_VAL(what, i, udst[i], e);
        }
        shmem_team_sync(s->team);
    }
}

/* Signals, world numbering: the default context and a created one. */
static void signals(unsigned char *sb, unsigned char *db)
{
    int me = shmem_my_pe(), right = sht_right(), left = sht_left();
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create");
    for (int v = 0; v < 4; v++) {
        float *fs = (float *)sb, *fd = (float *)db;
        long double *ls = (long double *)(sb + 512), *ld = (long double *)(db + 512);
        for (int i = 0; i < N; i++) {
            fs[i] = SHT_VAL(float, me, i, v);
            ls[i] = SHT_VAL(long double, me, i, v);
        }
        sig[0] = sig[1] = 0;
        shmem_barrier_all();
        switch (v) {
        case 0:
            shmem_put_signal(fd, fs, N, &sig[0], 1, SHMEM_SIGNAL_SET, right);
            shmem_put_signal(ld, ls, N, &sig[1], 2, SHMEM_SIGNAL_ADD, right);
            break;
        case 1:
            shmem_put_signal(ctx, fd, fs, N, &sig[0], 1, SHMEM_SIGNAL_SET, right);
            shmem_put_signal(ctx, ld, ls, N, &sig[1], 2, SHMEM_SIGNAL_ADD, right);
            break;
        case 2:
            shmem_put_signal_nbi(fd, fs, N, &sig[0], 1, SHMEM_SIGNAL_SET, right);
            shmem_put_signal_nbi(ld, ls, N, &sig[1], 2, SHMEM_SIGNAL_ADD, right);
            break;
        default:
            shmem_put_signal_nbi(ctx, fd, fs, N, &sig[0], 1, SHMEM_SIGNAL_SET, right);
            shmem_put_signal_nbi(ctx, ld, ls, N, &sig[1], 2, SHMEM_SIGNAL_ADD, right);
            break;
        }
        shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 1);
        shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, 2);
        for (int i = 0; i < N; i++) {
            CHECK_VAL("generic put_signal(float)", v * 100 + i, SHT_READ(float, &fd[i]),
                      SHT_VAL(float, left, i, v));
            CHECK_VAL("generic put_signal(long double)", v * 100 + i, SHT_READ(long double, &ld[i]),
                      SHT_VAL(long double, left, i, v));
        }
        shmem_barrier_all();
    }
#if SHT_GENERIC_SIGNAL_CTX
    sig[0] = 0;
    shmem_barrier_all();
    shmem_signal_add(ctx, &sig[0], 5, right);
    shmem_signal_add(&sig[0], 6, right);
    CHECK_VAL("generic signal_add with and without ctx", 0,
              shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 11), (uint64_t)11);
    shmem_barrier_all();
    shmem_signal_set(ctx, &sig[0], 99, right);
    CHECK_VAL("generic signal_set(ctx, ...)", 0, shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 99),
              (uint64_t)99);
    shmem_barrier_all();
#endif
    shmem_ctx_destroy(ctx);
}

int main(void)
{
    shmem_init();
    size_t bytes = (size_t)shmem_n_pes() * N * 2 * sizeof(long double _Complex) + 4096;
    unsigned char *sb = shmem_malloc(bytes), *db = shmem_malloc(bytes);
    CHECK(sb && db, "shmem_malloc");
    sht_shapes_make(shapes);
    for (int sh = 0; sh < SHT_NSHAPES; sh++) {
        if (shapes[sh].me >= 0)
            run(&shapes[sh], sb, db);
        shmem_barrier_all();
    }
    signals(sb, db);
    sht_shapes_destroy(shapes);
    shmem_free(sb);
    shmem_free(db);
    sht_pass("coll_generic");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
