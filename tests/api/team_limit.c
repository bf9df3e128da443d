/*
 * team_limit: many teams alive at once, and a clean failure when the
 * library runs out.
 *
 *  - teams are split from the world (copies in world order, reversed
 *    copies, and every third one the even PEs only) and kept alive until a
 *    split fails; at least 64 user teams must fit (with SHOAL_TEAMS_MAX set,
 *    all but the predefined teams' share of that many);
 *  - the failing split returns nonzero with SHMEM_TEAM_INVALID, on every PE
 *    and at the same split everywhere; another split and a split_2d fail
 *    the same way while the teams are still alive;
 *  - every live team still works (team_sync and a reduction on each);
 *  - destroying one team lets one more be made; destroying all lets as
 *    many be made again.
 */
#include "check.h"

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("team_limit", "needs the OpenSHMEM 1.5 team API")
#else

#define CAP 5000

static shmem_team_t teams[CAP];
static int g_in, g_out, g_min, g_max;

static int fill(int npes, int me, int *made)
{
    int k;
    for (k = 0; k < CAP; k++) {
        int kind = k % 3;
        shmem_team_t t = (shmem_team_t)&g_in;
        int rc =
            kind == 0 ? shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t)
            : kind == 1
                ? shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &t)
                : shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &t);
        if (rc != 0) {
            CHECK(t == SHMEM_TEAM_INVALID, "a failed split (number %d) left new_team set", k);
            break;
        }
        if (kind == 2 && me % 2)
            CHECK(t == SHMEM_TEAM_INVALID, "split %d: a non-member got a team", k);
        else
            CHECK(t != SHMEM_TEAM_INVALID, "split %d returned 0 but no team", k);
        teams[k] = t;
    }
    *made = k;
    /* Every PE must have stopped at the same split. */
    g_in = k;
    shmem_barrier_all();
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &g_min, &g_in, 1);
    shmem_int_max_reduce(SHMEM_TEAM_WORLD, &g_max, &g_in, 1);
    CHECK(g_min == g_max, "PEs stopped at different splits: %d to %d", g_min, g_max);
    return k < CAP;
}

static void use_all(int made, int npes)
{
    for (int k = 0; k < made; k++) {
        if (teams[k] == SHMEM_TEAM_INVALID)
            continue;
        int n = shmem_team_n_pes(teams[k]);
        CHECK(n == (k % 3 == 2 ? (npes + 1) / 2 : npes), "team %d has %d PEs", k, n);
        if (k % 7 == 0 || k == made - 1) {
            CHECK(shmem_team_sync(teams[k]) == 0, "team_sync on team %d of %d", k, made);
            g_in = 1;
            CHECK(shmem_int_sum_reduce(teams[k], &g_out, &g_in, 1) == 0, "reduce on team %d", k);
            CHECK(g_out == n, "sum over team %d is %d, expected %d", k, g_out, n);
        }
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *env = getenv("SHOAL_TEAMS_MAX");
    /* The predefined teams (world, shared, node) may take up to 3 slots. */
    int need = env ? atoi(env) - 3 : 64;

    int made;
    CHECK(fill(npes, me, &made), "%d splits succeeded and none failed: no limit?", CAP);
    CHECK(made >= need, "only %d teams could be alive at once; at least %d expected%s", made, need,
          env ? " with SHOAL_TEAMS_MAX set" : "");
    if (me == 0)
        printf("team_limit: %d user teams alive at once (SHOAL_TEAMS_MAX %s)\n", made,
               env ? env : "default");
    use_all(made, npes);

    /* Still full: more splits fail cleanly. */
    {
        shmem_team_t t = (shmem_team_t)&g_in, x = (shmem_team_t)&g_in, y = (shmem_team_t)&g_in;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &t) != 0,
              "a split succeeded with no team slots left");
        CHECK(t == SHMEM_TEAM_INVALID, "failed split left new_team set");
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &x, NULL, 0, &y) != 0,
              "split_2d succeeded with no team slots left");
        CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID,
              "failed split_2d left a team handle set");
        shmem_barrier_all();
    }

    /* One destroyed: one more fits (an all-member team, so every PE frees). */
    shmem_team_destroy(teams[0]);
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[0]) == 0,
          "a split failed after a team was destroyed");
    shmem_barrier_all();
    use_all(made, npes);

    /* All destroyed: as many fit again. */
    for (int k = 0; k < made; k++)
        if (teams[k] != SHMEM_TEAM_INVALID)
            shmem_team_destroy(teams[k]);
    shmem_barrier_all();
    int again;
    CHECK(fill(npes, me, &again), "second fill found no limit");
    CHECK(again == made, "after destroying every team %d could be made again, first time %d", again,
          made);
    use_all(again, npes);
    for (int k = 0; k < again; k++)
        if (teams[k] != SHMEM_TEAM_INVALID)
            shmem_team_destroy(teams[k]);

    sht_pass("team_limit");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
