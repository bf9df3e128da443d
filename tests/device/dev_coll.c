/*
 * Device-side team collectives (<shmemx_device_coll.h>) on the CPU stand-in
 * driver: each PE's "kernel" (a thread) runs broadcast, fcollect, alltoall
 * and sum/prod/min/max reductions for several types on TEAM_WORLD and on
 * two strided split teams (stride 2, and stride 3, which spans both hosts
 * of a 2 x 2 namespace job); the host checks every element against a plain
 * computation over the team's members. Buffers are in the device heap, so
 * members on another host are reached through the device proxy.
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device_coll.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../api/check.h"

#define NB 37  /* broadcast elements */
#define NF 5   /* fcollect elements per member */
#define NA 3   /* alltoall elements per pair */
#define NR 11  /* reduction elements */
#define MAXP 8 /* PEs at most */

typedef struct {
    long bsrc[NB], bdst[NB];
    char bmem_src[13], bmem_dst[13];
    long fsrc[NF], fdst[NF * MAXP];
    int asrc[NA * MAXP], adst[NA * MAXP];
    int ri[NR], ri_out[4][NR];
    long rl[NR], rl_out[4][NR];
    double rd[NR], rd_out[4][NR];
    float rf[NR], rf_out[4][NR];
    unsigned long ru[NR], ru_out[4][NR];
    short rs[NR], rs_out[4][NR];
} bufs_t;

typedef struct {
    shmemx_dev_t d;
    shmemx_dev_team_t t;
    bufs_t *b;
    int root, failures;
} kargs_t;

#define REDUCE4(N, src, out)                                                                       \
    do {                                                                                           \
        if (shmemx_dev_##N##_sum_reduce(d, t, b->out[0], b->src, NR) != 0)                         \
            k->failures++;                                                                         \
        if (shmemx_dev_##N##_prod_reduce_block(d, t, b->out[1], b->src, NR) != 0)                  \
            k->failures++;                                                                         \
        if (shmemx_dev_##N##_min_reduce(d, t, b->out[2], b->src, NR) != 0)                         \
            k->failures++;                                                                         \
        if (shmemx_dev_##N##_max_reduce_block(d, t, b->out[3], b->src, NR) != 0)                   \
            k->failures++;                                                                         \
    } while (0)

static void *kernel(void *p)
{
    kargs_t *k = p;
    shmemx_dev_t d = k->d;
    shmemx_dev_team_t t = k->t;
    bufs_t *b = k->b;
    k->failures += shmemx_dev_long_broadcast(d, t, b->bdst, b->bsrc, NB, k->root) != 0;
    k->failures += shmemx_dev_broadcastmem_block(d, t, b->bmem_dst, b->bmem_src, 13, 0) != 0;
    k->failures += shmemx_dev_long_fcollect_block(d, t, b->fdst, b->fsrc, NF) != 0;
    k->failures += shmemx_dev_alltoallmem(d, t, b->adst, b->asrc, NA * sizeof(int)) != 0;
    REDUCE4(int, ri, ri_out);
    REDUCE4(long, rl, rl_out);
    REDUCE4(double, rd, rd_out);
    REDUCE4(float, rf, rf_out);
    REDUCE4(ulong, ru, ru_out);
    REDUCE4(short, rs, rs_out);
    return NULL;
}

/* Element i of world PE pe's reduction source: small, so products fit. */
static long rval(int pe, int i)
{
    return (long)((pe * 7 + i * 3) % 5) + 1 - (i % 3 == 0 ? 3 : 0);
}

static void fill(bufs_t *h, int me)
{
    memset(h, 0, sizeof(*h));
    for (int i = 0; i < NB; i++)
        h->bsrc[i] = me * 100L + i;
    for (int i = 0; i < 13; i++)
        h->bmem_src[i] = (char)('a' + (me + i) % 26);
    for (int i = 0; i < NF; i++)
        h->fsrc[i] = me * 10L + i;
    for (int j = 0; j < MAXP; j++)
        for (int i = 0; i < NA; i++)
            h->asrc[j * NA + i] = me * 1000 + j * 10 + i;
    for (int i = 0; i < NR; i++) {
        h->ri[i] = (int)rval(me, i);
        h->rl[i] = rval(me, i) * 43L; /* 5^8 * 43^8 still fits a long at 8 PEs */
        h->rd[i] = (double)rval(me, i) * 0.5;
        h->rf[i] = (float)rval(me, i) * 0.25f;
        h->ru[i] = (unsigned long)(rval(me, i) + 3);
        h->rs[i] = (short)rval(me, i);
    }
}

#define CHECK4(what, out, T, expr)                                                                 \
    do {                                                                                           \
        for (int i = 0; i < NR; i++) {                                                             \
            T s = 0, pr = 1, mn = 0, mx = 0;                                                       \
            for (int j = 0; j < t.size; j++) {                                                     \
                const int pe = t.start + j * t.stride;                                             \
                const T v = (T)(expr);                                                             \
                s = (T)(s + v);                                                                    \
                pr = (T)(pr * v);                                                                  \
                mn = j == 0 || v < mn ? v : mn;                                                    \
                mx = j == 0 || v > mx ? v : mx;                                                    \
            }                                                                                      \
            CHECK(h->out[0][i] == s && h->out[1][i] == pr && h->out[2][i] == mn &&                 \
                      h->out[3][i] == mx,                                                          \
                  "%s: %s reductions, element %d: got sum %g prod %g min %g max %g, want %g %g "   \
                  "%g %g",                                                                         \
                  tname, what, i, (double)h->out[0][i], (double)h->out[1][i],                      \
                  (double)h->out[2][i], (double)h->out[3][i], (double)s, (double)pr, (double)mn,   \
                  (double)mx);                                                                     \
        }                                                                                          \
    } while (0)

static void check(const bufs_t *h, shmemx_dev_team_t t, int my, int root, const char *tname)
{
    const int rpe = t.start + root * t.stride;
    for (int i = 0; i < NB; i++)
        CHECK(h->bdst[i] == rpe * 100L + i, "%s: broadcast element %d: %ld, want %ld", tname, i,
              h->bdst[i], rpe * 100L + i);
    for (int i = 0; i < 13; i++)
        CHECK(h->bmem_dst[i] == (char)('a' + (t.start + i) % 26), "%s: broadcastmem byte %d", tname,
              i);
    for (int j = 0; j < t.size; j++) {
        const int pe = t.start + j * t.stride;
        for (int i = 0; i < NF; i++)
            CHECK(h->fdst[j * NF + i] == pe * 10L + i, "%s: fcollect member %d element %d: %ld",
                  tname, j, i, h->fdst[j * NF + i]);
        for (int i = 0; i < NA; i++)
            CHECK(h->adst[j * NA + i] == pe * 1000 + my * 10 + i,
                  "%s: alltoall from member %d element %d: %d", tname, j, i, h->adst[j * NA + i]);
    }
    CHECK4("int", ri_out, int, rval(pe, i));
    CHECK4("long", rl_out, long, rval(pe, i) * 43L);
    CHECK4("double", rd_out, double, (double)rval(pe, i) * 0.5);
    CHECK4("float", rf_out, float, (float)rval(pe, i) * 0.25f);
    CHECK4("unsigned long", ru_out, unsigned long, (unsigned long)(rval(pe, i) + 3));
    CHECK4("short", rs_out, short, rval(pe, i));
}

static void run_team(shmemx_dev_t d, shmem_team_t team, bufs_t *b, const char *tname)
{
    const int me = shmem_my_pe();
    shmemx_dev_team_t t;
    if (team != SHMEM_TEAM_INVALID && shmemx_dev_team(team, &t) == 0) {
        bufs_t *h = malloc(sizeof(*h));
        CHECK(h != NULL, "memory");
        fill(h, me);
        shmem_putmem(b, h, sizeof(*h), me);
        shmem_quiet();
        shmem_team_sync(team);
        kargs_t k = {.d = d, .t = t, .b = b, .root = t.size - 1};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, kernel, &k) == 0, "the kernel thread");
        pthread_join(th, NULL);
        CHECK(k.failures == 0, "%s: %d collectives returned non-zero", tname, k.failures);
        shmem_getmem(h, b, sizeof(*h), me);
        check(h, t, shmemx_dev_team_my_pe(d, t), k.root, tname);
        free(h);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("PASS device broadcast, fcollect, alltoall and sum/prod/min/max reductions on %s\n",
               tname);
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAXP, "at most %d PEs", MAXP);
    shmemx_dev_t d;
    CHECK(shmemx_dev_create(&d) == 0, "shmemx_dev_create");
    bufs_t *b = shmemx_malloc_device(sizeof(bufs_t), SHMEMX_DEVICE_DEFAULT);
    CHECK(b != NULL, "shmemx_malloc_device");

    run_team(d, SHMEM_TEAM_WORLD, b, "TEAM_WORLD");
    shmem_team_t s2 = SHMEM_TEAM_INVALID, s3 = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &s2) == 0,
          "split, stride 2");
    run_team(d, s2, b, "a team of stride 2");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, (npes + 2) / 3, NULL, 0, &s3) == 0,
          "split, stride 3");
    run_team(d, s3, b, "a team of stride 3");
    if (s2 != SHMEM_TEAM_INVALID)
        shmem_team_destroy(s2);
    if (s3 != SHMEM_TEAM_INVALID)
        shmem_team_destroy(s3);
    shmem_barrier_all();
    if (me == 0)
        printf("PASS dev_coll (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
