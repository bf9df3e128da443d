/*
 * lat_coll.c: latency of the collectives over all PEs, across sizes.
 *
 * Each collective is timed in two forms when the implementation has them:
 *   active-set (OpenSHMEM 1.4, deprecated in 1.5; pSync/pWrk arrays):
 *     broadcast64, long_sum_to_all, double_sum_to_all, fcollect64,
 *     collect64, alltoall64
 *   team (OpenSHMEM 1.5, on SHMEM_TEAM_WORLD):
 *     broadcastmem, long_sum_reduce, double_sum_reduce, fcollectmem,
 *     collectmem, alltoallmem
 * A form the implementation's shmem.h lacks is reported as unsupported
 * (features.h).  size is the bytes each PE contributes: the broadcast's
 * message, the reduction's array, each PE's block of a collect, the block
 * each PE sends to each PE in an alltoall.  Sizes are 8 B, 4 KiB, 64 KiB
 * and 1 MiB, those up to --max-size.  The broadcast's root is PE 0.
 *
 * Timing (bench_measure_inside): every iteration is one call followed by an
 * untimed shmem_barrier_all, so each call starts with every PE ready, a
 * pSync is never reused before every PE has left the call that used it, and
 * nothing of one call spills into the next.  Each PE times its own calls;
 * the figure is the slowest PE's mean, median over rounds.
 * After timing each op at each size, one more call on fresh destination
 * buffers is checked element by element on every PE.
 */
#include "common.h"

#include <stdint.h>

enum coll_op { C_BCAST, C_LSUM, C_DSUM, C_FCOLLECT, C_COLLECT, C_ALLTOALL, C_NOPS };
enum coll_form { F_ACTIVE, F_TEAM };

static const char *const coll_names[2][C_NOPS] = {
    [F_ACTIVE] = {"broadcast64", "long_sum_to_all", "double_sum_to_all", "fcollect64", "collect64",
                  "alltoall64"},
    [F_TEAM] = {"broadcastmem", "long_sum_reduce", "double_sum_reduce", "fcollectmem", "collectmem",
                "alltoallmem"},
};

/* Which (form, op) the header has, from features.h. */
static const int coll_have[2][C_NOPS] = {
    [F_ACTIVE] = {BENCH_HAVE_BROADCAST64, BENCH_HAVE_LONG_SUM_TO_ALL, BENCH_HAVE_DOUBLE_SUM_TO_ALL,
                  BENCH_HAVE_FCOLLECT64, BENCH_HAVE_COLLECT64, BENCH_HAVE_ALLTOALL64},
    [F_TEAM] = {BENCH_HAVE_BROADCASTMEM, BENCH_HAVE_LONG_SUM_REDUCE, BENCH_HAVE_DOUBLE_SUM_REDUCE,
                BENCH_HAVE_FCOLLECTMEM, BENCH_HAVE_COLLECTMEM, BENCH_HAVE_ALLTOALLMEM},
};

#define PSYNC_SIZE 128 /* at least every SHMEM_*_SYNC_SIZE; checked in main */

struct coll_ctx {
    enum coll_op op;
    enum coll_form form;
    size_t bytes; /* per PE contribution */
    long *src;    /* symmetric, npes * max bytes */
    long *dst;    /* symmetric, npes * max bytes */
    double *dsrc; /* symmetric, max bytes */
    double *ddst; /* symmetric, max bytes */
    long *lwrk;   /* symmetric pWrk arrays for the active-set reductions */
    double *dwrk;
    long *psync;      /* symmetric, PSYNC_SIZE, SHMEM_SYNC_VALUE between calls */
    double inside_us; /* this PE's time inside the calls of a round */
    int status;       /* the last nonzero return of a team collective */
};

/* One call of the collective; 0 or the team routine's nonzero return. */
static int coll_call(struct coll_ctx *c)
{
    int npes = bench_npes();
    size_t nlong = c->bytes / sizeof(long);
    int rc = 0;

    (void)npes;
    (void)nlong;
    if (c->form == F_ACTIVE) {
        switch (c->op) {
#if BENCH_HAVE_BROADCAST64
        case C_BCAST:
            shmem_broadcast64(c->dst, c->src, nlong, 0, 0, 0, npes, c->psync);
            break;
#endif
#if BENCH_HAVE_LONG_SUM_TO_ALL
        case C_LSUM:
            shmem_long_sum_to_all(c->dst, c->src, (int)nlong, 0, 0, npes, c->lwrk, c->psync);
            break;
#endif
#if BENCH_HAVE_DOUBLE_SUM_TO_ALL
        case C_DSUM:
            shmem_double_sum_to_all(c->ddst, c->dsrc, (int)nlong, 0, 0, npes, c->dwrk, c->psync);
            break;
#endif
#if BENCH_HAVE_FCOLLECT64
        case C_FCOLLECT:
            shmem_fcollect64(c->dst, c->src, nlong, 0, 0, npes, c->psync);
            break;
#endif
#if BENCH_HAVE_COLLECT64
        case C_COLLECT:
            shmem_collect64(c->dst, c->src, nlong, 0, 0, npes, c->psync);
            break;
#endif
#if BENCH_HAVE_ALLTOALL64
        case C_ALLTOALL:
            shmem_alltoall64(c->dst, c->src, nlong, 0, 0, npes, c->psync);
            break;
#endif
        default:
            break;
        }
        return 0;
    }
    switch (c->op) {
#if BENCH_HAVE_BROADCASTMEM
    case C_BCAST:
        rc = shmem_broadcastmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes, 0);
        break;
#endif
#if BENCH_HAVE_LONG_SUM_REDUCE
    case C_LSUM:
        rc = shmem_long_sum_reduce(SHMEM_TEAM_WORLD, c->dst, c->src, nlong);
        break;
#endif
#if BENCH_HAVE_DOUBLE_SUM_REDUCE
    case C_DSUM:
        rc = shmem_double_sum_reduce(SHMEM_TEAM_WORLD, c->ddst, c->dsrc, nlong);
        break;
#endif
#if BENCH_HAVE_FCOLLECTMEM
    case C_FCOLLECT:
        rc = shmem_fcollectmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
        break;
#endif
#if BENCH_HAVE_COLLECTMEM
    case C_COLLECT:
        rc = shmem_collectmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
        break;
#endif
#if BENCH_HAVE_ALLTOALLMEM
    case C_ALLTOALL:
        rc = shmem_alltoallmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
        break;
#endif
    default:
        break;
    }
    return rc;
}

static void coll_loop(void *arg, long n)
{
    struct coll_ctx *c = arg;

    for (long i = 0; i < n; i++) {
        double t0 = bench_now_us();
        int rc = coll_call(c);
        c->inside_us += bench_now_us() - t0;
        if (rc)
            c->status = rc;
        shmem_barrier_all();
    }
}

/* What PE p contributes at index i (block j of an alltoall is i = j*k + ...). */
static long lval(int p, size_t i)
{
    return (long)(p + 1) * 1000003L + (long)i;
}
static double dval(int p, size_t i)
{
    return (double)(p + 1) + (double)(i % 1024);
}

/* One more call on a destination full of -1, checked element by element. */
static void coll_verify(struct coll_ctx *c)
{
    const char *name = coll_names[c->form][c->op];
    int me = bench_me(), npes = bench_npes();
    size_t k = c->bytes / sizeof(long);
    size_t bad = SIZE_MAX;
    double got = 0, want = 0;

    for (size_t i = 0; i < (size_t)npes * k; i++)
        c->dst[i] = -1;
    for (size_t i = 0; i < k; i++)
        c->ddst[i] = -1;
    shmem_barrier_all();
    int rc = coll_call(c);
    if (rc)
        c->status = rc;
    shmem_barrier_all();

    for (size_t i = 0; i < (size_t)npes * k && bad == SIZE_MAX; i++) {
        size_t j = i / k, e = i % k;
        double w;
        switch (c->op) {
        case C_BCAST:
            if (i >= k || me == 0)
                continue; /* only non-root PEs' dest is written in every version */
            w = (double)lval(0, i);
            break;
        case C_LSUM:
            if (i >= k)
                continue;
            w = 0;
            for (int p = 0; p < npes; p++)
                w += (double)lval(p, i);
            break;
        case C_DSUM:
            if (i >= k)
                continue;
            w = 0;
            for (int p = 0; p < npes; p++)
                w += dval(p, i);
            if (c->ddst[i] != w) {
                bad = i;
                got = c->ddst[i];
                want = w;
            }
            continue;
        case C_FCOLLECT:
        case C_COLLECT:
            w = (double)lval((int)j, e);
            break;
        case C_ALLTOALL:
            w = (double)lval((int)j, (size_t)me * k + e);
            break;
        default:
            continue;
        }
        if ((double)c->dst[i] != w) {
            bad = i;
            got = (double)c->dst[i];
            want = w;
        }
    }
    BENCH_CHECK("lat_coll", name, c->bytes, bad == SIZE_MAX, "element %zu is %.17g, expected %.17g",
                bad, got, want);
    BENCH_CHECK("lat_coll", name, c->bytes, c->status == 0, "returned %d", c->status);
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct coll_ctx c;
    static const size_t sizes[] = {8, 4096, 65536, 1048576};

    bench_init(argc, argv, &o, 0);
    bench_header("lat_coll", &o);

    int me = bench_me(), npes = bench_npes();
    size_t max = 8;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        if (sizes[s] <= o.max_size)
            max = sizes[s];
    size_t maxk = max / sizeof(long);
    size_t wrk =
        maxk / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? maxk / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    if (SHMEM_BCAST_SYNC_SIZE > PSYNC_SIZE || SHMEM_REDUCE_SYNC_SIZE > PSYNC_SIZE ||
        SHMEM_COLLECT_SYNC_SIZE > PSYNC_SIZE || SHMEM_ALLTOALL_SYNC_SIZE > PSYNC_SIZE) {
        fprintf(stderr, "lat_coll: raise PSYNC_SIZE to the implementation's sync sizes\n");
        shmem_global_exit(1);
    }

    memset(&c, 0, sizeof(c));
    c.src = bench_malloc((size_t)npes * max);
    c.dst = bench_malloc((size_t)npes * max);
    c.dsrc = bench_malloc(max);
    c.ddst = bench_malloc(max);
    c.lwrk = bench_malloc(wrk * sizeof(long));
    c.dwrk = bench_malloc(wrk * sizeof(double));
    c.psync = bench_malloc(PSYNC_SIZE * sizeof(long));
    for (size_t i = 0; i < (size_t)npes * maxk; i++)
        c.src[i] = lval(me, i);
    for (size_t i = 0; i < maxk; i++)
        c.dsrc[i] = dval(me, i);
    for (int i = 0; i < PSYNC_SIZE; i++)
        c.psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    for (int op = 0; op < C_NOPS; op++) {
        for (int form = F_ACTIVE; form <= F_TEAM; form++) {
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]) && sizes[s] <= max; s++) {
                const char *name = coll_names[form][op];
                if (!coll_have[form][op]) {
                    bench_report_unsupported("lat_coll", name, NULL, sizes[s]);
                    continue;
                }
                c.op = (enum coll_op)op;
                c.form = (enum coll_form)form;
                c.bytes = sizes[s];
                c.status = 0;
                double usec = bench_measure_inside(&o, coll_loop, &c, &c.inside_us);
                bench_report("lat_coll", name, sizes[s], usec);
                coll_verify(&c);
            }
        }
    }

    shmem_free(c.psync);
    shmem_free(c.dwrk);
    shmem_free(c.lwrk);
    shmem_free(c.ddst);
    shmem_free(c.dsrc);
    shmem_free(c.dst);
    shmem_free(c.src);
    return bench_finish();
}
