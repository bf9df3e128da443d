/*
 * coll_sync: barriers and syncs on teams and active sets.
 *
 *  - no PE leaves a barrier or sync before the last one has entered: a PE
 *    that arrives late (after a short sleep) stores a marker first, and
 *    every other PE must read that marker right after the barrier; checked
 *    for barrier_all, sync_all, team_sync on the world, the shared team,
 *    a strided subteam, the reversed world and both 2-D teams, and
 *    shmem_barrier on an active set, with a different late PE each time;
 *  - barrier_all completes puts (blocking and nbi) to every PE; sync_all
 *    and team_sync do after an explicit quiet;
 *  - the different kinds interleaved many times (they may share state
 *    inside the library), and team_syncs on disjoint teams running at the
 *    same time;
 *  - thousands of back-to-back barriers without data;
 *  - shmem_sync in both 1.5 forms: the C11 shmem_sync(team) and the
 *    deprecated active-set shmem_sync(PE_start, logPE_stride, PE_size,
 *    pSync) (SHT_HAVE_SHMEM_SYNC; the build switches it off when shmem.h
 *    lacks it, and a compile-only test then fails, naming the gap).
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep under -std=c11 */
#include "check.h"

#include <time.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("coll_sync", "needs the OpenSHMEM 1.5 team API")
#else

#ifndef SHT_HAVE_SHMEM_SYNC
#define SHT_HAVE_SHMEM_SYNC 1
#endif

static sht_shape_t shapes[SHT_NSHAPES];
static long marker;
static long pSync[64], pSync_sync[64];
static char what[256];

static void nap(void)
{
    struct timespec ts = {0, 3 * 1000 * 1000}; /* 3 ms */
    nanosleep(&ts, NULL);
}

enum { K_BARRIER_ALL, K_SYNC_ALL, K_TEAM_SYNC, K_ACTIVE_SET, K_SYNC_TEAM, K_SYNC_ASET, K_ALL };
#define K_KINDS (SHT_HAVE_SHMEM_SYNC ? K_ALL : K_SYNC_TEAM)

/* One synchronization of kind `kind` over shape s (K_ACTIVE_SET: the world
 * as an active set), with the member at index `late` arriving late. */
static void sync_once(const sht_shape_t *s, int kind, int late, long round)
{
    if (s->me == late) {
        nap();
        marker = round; /* before entering */
    }
    switch (kind) {
    case K_BARRIER_ALL:
        shmem_barrier_all();
        break;
    case K_SYNC_ALL:
        shmem_sync_all();
        break;
    case K_TEAM_SYNC:
        CHECK(shmem_team_sync(s->team) == 0, "team_sync");
        break;
    case K_ACTIVE_SET:
        shmem_barrier(0, 0, shmem_n_pes(), pSync);
        break;
#if SHT_HAVE_SHMEM_SYNC
    case K_SYNC_TEAM:
        CHECK(shmem_sync(s->team) == 0, "shmem_sync(team)");
        break;
    case K_SYNC_ASET:
        shmem_sync(0, 0, shmem_n_pes(), pSync_sync);
        break;
#endif
    default:
        SHT_FAIL("kind %d", kind);
    }
    static const char *names[] = {"barrier_all",   "sync_all",         "team_sync",
                                  "shmem_barrier", "shmem_sync(team)", "shmem_sync(active set)"};
    snprintf(what, sizeof what, "%s on %s: marker of the late PE (team index %d)", names[kind],
             s->name, late);
    CHECK_VAL(what, round, shmem_long_g(&marker, s->world[late]), round);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < 64; i++)
        pSync[i] = pSync_sync[i] = SHMEM_SYNC_VALUE;
    long *box = shmem_malloc((size_t)npes * 64 * sizeof(long));
    CHECK(box, "shmem_malloc");
    sht_shapes_make(shapes);
    long round = 1;

    /* ---- nobody leaves early ---- */
    for (int kind = 0; kind < K_KINDS; kind++) {
        const sht_shape_t *w = &shapes[SHT_SHAPE_WORLD];
        for (int late = 0; late < npes; late++)
            sync_once(w, kind, late, round++);
    }
    shmem_barrier_all();
    for (int sh = 0; sh < SHT_NSHAPES; sh++) {
        const sht_shape_t *s = &shapes[sh];
        if (s->me >= 0)
            for (int late = 0; late < s->n; late++)
                sync_once(s, K_TEAM_SYNC, late, 1000 * (sh + 1) + late);
        shmem_barrier_all();
    }
    /* SHMEM_TEAM_SHARED as well. */
    {
        sht_shape_t sh;
        int w[SHT_MAX_PES], n = sht_host_members(w);
        sht_shape_set(&sh, "SHMEM_TEAM_SHARED", SHMEM_TEAM_SHARED, 0, n, w);
        sync_once(&sh, K_TEAM_SYNC, n - 1, round++);
        sync_once(&sh, K_TEAM_SYNC, 0, round++);
    }
    shmem_barrier_all();

    /* ---- barrier_all completes puts; sync_all/team_sync after quiet ---- */
    for (int r = 0; r < 20; r++) {
        for (int p = 0; p < npes; p++) {
            for (int i = 0; i < 64; i += 16)
                shmem_long_p(&box[64 * me + i], 100000L * r + 100L * me + i, p);
        }
        static long src[64];
        for (int i = 0; i < 64; i++)
            src[i] = 100000L * r + 100L * me + i;
        for (int p = 0; p < npes; p++)
            shmem_long_put_nbi(&box[64 * me], src, 64, p);
        switch (r % 3) {
        case 0:
            shmem_barrier_all();
            break;
        case 1:
            shmem_quiet();
            shmem_sync_all();
            break;
        default:
            shmem_quiet();
            shmem_team_sync(SHMEM_TEAM_WORLD);
            break;
        }
        for (int p = 0; p < npes; p++)
            for (int i = 0; i < 64; i++)
                CHECK_VAL(r % 3 == 0   ? "put before barrier_all"
                          : r % 3 == 1 ? "put + quiet before sync_all"
                                       : "put + quiet before team_sync",
                          64 * p + i, SHT_READ(long, &box[64 * p + i]), 100000L * r + 100L * p + i);
        shmem_barrier_all(); /* before the next round overwrites */
    }

    /* ---- the kinds interleaved, with a late PE that moves ---- */
    for (int r = 0; r < 400; r++) {
        const sht_shape_t *w = &shapes[SHT_SHAPE_WORLD];
        int kind = r % K_KINDS, late = (r * 7) % npes;
        if (r % 16 == 0)
            sync_once(w, kind, late, round++);
        else
            switch (kind) {
            case K_BARRIER_ALL:
                shmem_barrier_all();
                break;
            case K_SYNC_ALL:
                shmem_sync_all();
                break;
            case K_TEAM_SYNC:
                shmem_team_sync(r % 2 ? SHMEM_TEAM_WORLD : SHMEM_TEAM_SHARED);
                break;
            case K_ACTIVE_SET:
                shmem_barrier(0, 0, npes, pSync);
                break;
#if SHT_HAVE_SHMEM_SYNC
            case K_SYNC_TEAM:
                shmem_sync(SHMEM_TEAM_WORLD);
                break;
            default:
                shmem_sync(0, 0, npes, pSync_sync);
                break;
#endif
            }
    }

    /* ---- disjoint teams syncing at the same time: the 2-D x teams ---- */
    {
        const sht_shape_t *x = &shapes[SHT_SHAPE_XAXIS];
        for (int r = 0; r < 300; r++) {
            int nxt = x->world[(x->me + 1) % x->n], prv = x->world[(x->me + x->n - 1) % x->n];
            shmem_long_p(&box[r % 2], 10L * r + me, nxt);
            shmem_quiet();
            shmem_team_sync(x->team);
            CHECK_VAL("row neighbour's value after concurrent team_syncs", r,
                      SHT_READ(long, &box[r % 2]), 10L * r + prv);
        }
        shmem_barrier_all();
    }

    /* ---- many barriers in a row ---- */
    for (int r = 0; r < 3000; r++)
        shmem_barrier_all();
    for (int r = 0; r < 3000; r++)
        shmem_team_sync(shapes[r % 2 ? SHT_SHAPE_WORLD : SHT_SHAPE_REVERSED].team);

    sht_shapes_destroy(shapes);
    shmem_free(box);
    sht_pass("coll_sync");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
