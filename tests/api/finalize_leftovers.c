/*
 * finalize_leftovers: shmem_finalize releases the teams and contexts a
 * program left alive.  OpenSHMEM 1.5 (section 9.2.3): shmem_finalize
 * "releases all resources used by the OpenSHMEM library"; 1.6 lets a
 * program call shmem_init again afterwards.  Each of two lives splits
 * teams (strided and 2-D) and creates contexts (on the world team and on
 * the split teams), uses them, and ends with shmem_finalize without
 * destroying any; the handles are then dropped.  Run under LeakSanitizer
 * (tests/asan) every one of them left behind is a leak.  The second life
 * must start clean: it can split as many teams as the first, and the
 * predefined teams and contexts work.
 */
#include "check.h"

#define NTEAMS 8

static long target;

static void one_life(int life)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t *teams = malloc(sizeof(shmem_team_t) * (NTEAMS + 2));
    shmem_ctx_t *ctxs = malloc(sizeof(shmem_ctx_t) * (NTEAMS + 1));
    CHECK(teams != NULL && ctxs != NULL, "malloc failed");
    for (int i = 0; i < NTEAMS; i++) {
        CHECK_EQ("shmem_team_split_strided",
                 shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[i]), 0);
        CHECK_EQ("team size", shmem_team_n_pes(teams[i]), npes);
        CHECK_EQ("shmem_team_create_ctx", shmem_team_create_ctx(teams[i], 0, &ctxs[i]), 0);
    }
    int xrange = npes > 1 ? 2 : 1;
    CHECK_EQ("shmem_team_split_2d",
             shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &teams[NTEAMS], NULL, 0,
                                 &teams[NTEAMS + 1]),
             0);
    CHECK_EQ("shmem_ctx_create", shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctxs[NTEAMS]), 0);

    /* Use them: an add on each context, a sync on each team. */
    target = 0;
    shmem_barrier_all();
    for (int i = 0; i <= NTEAMS; i++)
        shmem_ctx_long_atomic_add(ctxs[i], &target, 1, 0);
    for (int i = 0; i <= NTEAMS; i++)
        shmem_ctx_quiet(ctxs[i]);
    for (int i = 0; i < NTEAMS + 2; i++)
        shmem_team_sync(teams[i]);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ("adds through the contexts", target, (long)(NTEAMS + 1) * npes);
    shmem_barrier_all();

    /* Dropped without shmem_team_destroy / shmem_ctx_destroy. */
    free(teams);
    free(ctxs);
    if (life == 1)
        sht_pass("finalize_leftovers");
    shmem_finalize();
}

int main(void)
{
    one_life(0);
    one_life(1);
    return 0;
}
