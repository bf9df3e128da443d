/*
 * thread_multiple: shmem_init_thread(SHMEM_THREAD_MULTIPLE) with 8 threads
 * per PE, all communicating at once.
 *
 * Thread t of every PE works on team t (a copy of the world: in world
 * order for even t, reversed for odd t, so team and world numbers differ)
 * through its own context: a team context (PRIVATE) for t % 3 == 0, a
 * ctx_create context (world numbering) for t % 3 == 1, and the shared
 * default context for t % 3 == 2.  Each round it
 *
 *  - puts a block to the next team member, quiets, team_syncs, and checks
 *    the block from the previous member;
 *  - adds to its team's counter on team PE 0 (fetch_add through its
 *    context) and to one counter on world PE 0 shared by every thread of
 *    every PE (default context);
 *  - sends a message with put_signal (SET the round number) and waits for
 *    the one from the previous member with signal_wait_until;
 *  - every few rounds runs a sum reduction, a broadcast from a moving root,
 *    and an fcollect on its team;
 *
 * and at the end every counter holds exactly the expected total.  The same
 * program runs under ThreadSanitizer (tests/tsan).
 */
#include "check.h"

#include <pthread.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("thread_multiple", "needs the OpenSHMEM 1.5 team API")
#else

#define NT 8
#define ROUNDS 500
#define REGION 4096 /* bytes of the symmetric buffer per thread */
#define NB 32       /* longs per block */

static shmem_team_t teams[NT];
static unsigned char *buf; /* NT regions */
static long *counters;     /* [NT] per-team counters, [NT] the shared one */
static uint64_t *sigs;     /* one per thread */
static int npes, me;

typedef struct {
    int t;
    shmem_ctx_t ctx;
    int team_ctx; /* PE numbers of ctx are team numbers */
} thread_arg_t;

/* The PE number to give ctx for team member k. */
static int ctx_pe(const thread_arg_t *a, int k)
{
    return a->team_ctx ? k : shmem_team_translate_pe(teams[a->t], k, SHMEM_TEAM_WORLD);
}

static long val(int pe, int t, int round, int i)
{
    return ((long)pe << 40) + ((long)t << 32) + (long)round * 1000 + i;
}

static void *worker(void *p)
{
    thread_arg_t *a = p;
    int t = a->t;
    shmem_team_t team = teams[t];
    int n = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    int nxt = (tme + 1) % n, prv = (tme + n - 1) % n;
    int wprv = shmem_team_translate_pe(team, prv, SHMEM_TEAM_WORLD);
    char what[160];

    if (t % 3 == 0) {
        CHECK(shmem_team_create_ctx(team, SHMEM_CTX_PRIVATE, &a->ctx) == 0,
              "thread %d: team_create_ctx failed", t);
        a->team_ctx = 1;
    } else if (t % 3 == 1) {
        CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &a->ctx) == 0, "thread %d: ctx_create failed", t);
        a->team_ctx = 0;
    } else {
        a->ctx = SHMEM_CTX_DEFAULT;
        a->team_ctx = 0;
    }
    shmem_ctx_t ctx = a->ctx;
    unsigned char *region = buf + (size_t)t * REGION;
    long *rma_dst = (long *)region;                  /* NB longs */
    long *sig_dst = rma_dst + NB;                    /* NB longs */
    long *c_src = sig_dst + NB, *c_dst = c_src + NB; /* collectives: NB, NB * n */
    long src[NB];

    for (int r = 0; r < ROUNDS; r++) {
        /* RMA through the context, then check what the previous member sent. */
        for (int i = 0; i < NB; i++)
            src[i] = val(me, t, r, i);
        shmem_ctx_long_put(ctx, rma_dst, src, NB, ctx_pe(a, nxt));
        shmem_ctx_quiet(ctx);
        shmem_team_sync(team);
        snprintf(what, sizeof what, "thread %d round %d: block from the previous member", t, r);
        for (int i = 0; i < NB; i++)
            CHECK_VAL(what, i, SHT_READ(long, &rma_dst[i]), val(wprv, t, r, i));
        shmem_team_sync(team); /* before anyone overwrites it */

        /* AMOs: the team's counter and the shared one. */
        (void)shmem_ctx_long_atomic_fetch_add(ctx, &counters[t], 1, ctx_pe(a, 0));
        shmem_long_atomic_inc(&counters[NT], 0);

        /* A message with its signal. */
        for (int i = 0; i < NB; i++)
            src[i] = val(me, t, r, i) + 7;
        shmem_ctx_long_put_signal(ctx, sig_dst, src, NB, &sigs[t], (uint64_t)r + 1,
                                  SHMEM_SIGNAL_SET, ctx_pe(a, nxt));
        shmem_signal_wait_until(&sigs[t], SHMEM_CMP_EQ, (uint64_t)r + 1);
        snprintf(what, sizeof what, "thread %d round %d: message after its signal", t, r);
        for (int i = 0; i < NB; i++)
            CHECK_VAL(what, i, SHT_READ(long, &sig_dst[i]), val(wprv, t, r, i) + 7);

        /* Contexts made and destroyed while the other threads work (every
         * 25 rounds: a local one, and a team one on the thread's own team). */
        if (r % 25 == 0) {
            shmem_ctx_t tmp;
            CHECK(shmem_ctx_create(r % 2 ? SHMEM_CTX_SERIALIZED : 0, &tmp) == 0,
                  "thread %d: ctx_create in round %d failed", t, r);
            CHECK_VAL("g through a short-lived context", r,
                      shmem_ctx_long_g(tmp, &rma_dst[0],
                                       shmem_team_translate_pe(team, nxt, SHMEM_TEAM_WORLD)),
                      val(me, t, r, 0));
            shmem_ctx_destroy(tmp);
            shmem_team_sync(team);
        }

        /* Collectives on the thread's team, every third round. */
        if (r % 3 == 0) {
            for (int i = 0; i < NB; i++)
                c_src[i] = val(me, t, r, i);
            shmem_team_sync(team);
            CHECK(shmem_long_sum_reduce(team, c_dst, c_src, NB) == 0, "sum_reduce");
            snprintf(what, sizeof what, "thread %d round %d: sum_reduce", t, r);
            for (int i = 0; i < NB; i++) {
                long e = 0;
                for (int k = 0; k < n; k++)
                    e += val(shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD), t, r, i);
                CHECK_VAL(what, i, c_dst[i], e);
            }
            shmem_team_sync(team);
            int root = r % n;
            CHECK(shmem_long_broadcast(team, c_dst, c_src, NB, root) == 0, "broadcast");
            snprintf(what, sizeof what, "thread %d round %d: broadcast from %d", t, r, root);
            for (int i = 0; i < NB; i++)
                CHECK_VAL(what, i, c_dst[i],
                          val(shmem_team_translate_pe(team, root, SHMEM_TEAM_WORLD), t, r, i));
            shmem_team_sync(team);
            CHECK(shmem_long_fcollect(team, c_dst, c_src, NB) == 0, "fcollect");
            snprintf(what, sizeof what, "thread %d round %d: fcollect", t, r);
            for (int k = 0; k < n; k++)
                for (int i = 0; i < NB; i++)
                    CHECK_VAL(what, k * NB + i, c_dst[k * NB + i],
                              val(shmem_team_translate_pe(team, k, SHMEM_TEAM_WORLD), t, r, i));
            shmem_team_sync(team);
        }
    }
    shmem_ctx_quiet(ctx);
    shmem_team_sync(team);
    if (tme == 0)
        CHECK_VAL("team counter", t, SHT_READ(long, &counters[t]), (long)n * ROUNDS);
    shmem_team_sync(team);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx); /* PRIVATE: by the thread that made it */
    return NULL;
}

int main(void)
{
    int provided = -1, q = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread failed");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d, expected MULTIPLE",
          provided);
    shmem_query_thread(&q);
    CHECK(q == SHMEM_THREAD_MULTIPLE, "query_thread says %d", q);
    npes = shmem_n_pes();
    me = shmem_my_pe();
    CHECK((size_t)(4 * 32) * sizeof(long) + (size_t)npes * NB * sizeof(long) <= REGION,
          "region too small for %d PEs", npes);

    buf = shmem_calloc(NT, REGION);
    counters = shmem_calloc(NT + 1, sizeof(long));
    sigs = shmem_calloc(NT, sizeof(uint64_t));
    CHECK(buf && counters && sigs, "shmem_calloc failed");
    const shmem_team_config_t cfg = {.num_contexts = 1};
    for (int t = 0; t < NT; t++) {
        int rev = t % 2;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, rev ? npes - 1 : 0, rev ? -1 : 1, npes,
                                       &cfg, SHMEM_TEAM_NUM_CONTEXTS, &teams[t]) == 0,
              "split for thread %d failed", t);
    }
    shmem_barrier_all();

    pthread_t th[NT];
    thread_arg_t args[NT];
    for (int t = 0; t < NT; t++) {
        args[t].t = t;
        CHECK(pthread_create(&th[t], NULL, worker, &args[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);

    shmem_barrier_all();
    if (me == 0)
        CHECK_VAL("counter shared by every thread of every PE", -1, SHT_READ(long, &counters[NT]),
                  (long)npes * NT * ROUNDS);
    shmem_barrier_all();
    for (int t = 0; t < NT; t++)
        shmem_team_destroy(teams[t]);
    shmem_free(buf);
    shmem_free(counters);
    shmem_free(sigs);
    sht_pass("thread_multiple");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
