/*
 * team_api: the team routines of OpenSHMEM 1.5/1.6.
 *
 *  - predefined teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and the
 *    extension SHMEMX_TEAM_NODE (on one host both hold every PE);
 *    SHMEM_TEAM_INVALID gives -1 from my_pe/n_pes/translate_pe, NULL from
 *    team_ptr, nonzero from get_config and split, and destroy ignores it;
 *  - split_strided with positive, negative (1.6: start is the highest PE,
 *    the team in reverse order) and zero strides (size 1), single-PE teams,
 *    splits of splits; membership, my_pe, n_pes and translate_pe in both
 *    directions and between two created teams; a reduction over each new
 *    team proves it works as a collective team;
 *  - invalid triplets (size 0, start out of range, running past the parent,
 *    a negative stride running below 0) and an invalid parent: nonzero on
 *    every PE and SHMEM_TEAM_INVALID;
 *  - split_2d with xrange 1, 2, 3, N and N+2, of the world and of a
 *    reversed team: x-team index = x coordinate, y-team index = y
 *    coordinate, short last row, both teams usable at once;
 *  - team_get_config: num_contexts honoured only when its mask bit was
 *    given at creation; mask 0 leaves config alone;
 *  - team_ptr: the same address as shmem_ptr of the translated PE, with
 *    stores through it seen by the owner, for globals and the heap;
 *  - team_sync on the concurrent 2-D teams with data checks (put + quiet +
 *    sync), many rounds;
 *  - creating and destroying 300 teams one after another (slots reused).
 */
#include "check.h"

#include <shmemx.h>

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("team_api", "needs the OpenSHMEM 1.5 team API")
#else

static long g_cells[SHT_MAX_PES];
static int g_in, g_out;
static char what[256];

/* A reduction over `team` of world PE numbers: proves the team works. */
static void team_reduce_check(const char *name, shmem_team_t team, int n, const int *world)
{
    int expect = 0;
    for (int i = 0; i < n; i++)
        expect += world[i] + 1;
    g_in = shmem_my_pe() + 1;
    g_out = -1;
    shmem_team_sync(team);
    CHECK(shmem_int_sum_reduce(team, &g_out, &g_in, 1) == 0, "%s: int_sum_reduce failed", name);
    CHECK(g_out == expect, "%s: sum of (world PE + 1) over the team is %d, expected %d", name,
          g_out, expect);
    shmem_team_sync(team);
}

/* Split the world with a triplet, check it against the expected members,
 * use it, and return it (or destroy it when keep is 0). */
static shmem_team_t split_case(const char *name, shmem_team_t parent, const int *parent_world,
                               int start, int stride, int size, int keep)
{
    int w[SHT_MAX_PES];
    for (int i = 0; i < size; i++)
        w[i] = parent_world[start + stride * i];
    shmem_team_t t = (shmem_team_t)&g_in; /* a non-NULL garbage value */
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    CHECK(rc == 0, "%s: split_strided(%d, %d, %d) returned %d", name, start, stride, size, rc);
    sht_check_team(name, t, size, w);
    if (t != SHMEM_TEAM_INVALID)
        team_reduce_check(name, t, size, w);
    shmem_barrier_all();
    if (!keep && t != SHMEM_TEAM_INVALID) {
        shmem_team_destroy(t);
        t = SHMEM_TEAM_INVALID;
    }
    return t;
}

static void invalid_split(const char *name, shmem_team_t parent, int start, int stride, int size)
{
    shmem_team_t t = (shmem_team_t)&g_in;
    int rc = shmem_team_split_strided(parent, start, stride, size, NULL, 0, &t);
    CHECK(rc != 0, "%s: split_strided(%d, %d, %d) returned 0 for an invalid triplet", name, start,
          stride, size);
    CHECK(t == SHMEM_TEAM_INVALID, "%s: new_team is not SHMEM_TEAM_INVALID after a failed split",
          name);
    shmem_barrier_all();
}

static void check_2d(const char *name, shmem_team_t parent, int pn, const int *pworld, int xrange)
{
    int me = shmem_my_pe();
    int idx = -1; /* my index in the parent */
    for (int i = 0; i < pn; i++)
        if (pworld[i] == me)
            idx = i;
    shmem_team_t xt = (shmem_team_t)&g_in, yt = (shmem_team_t)&g_in;
    shmem_team_config_t xc = {.num_contexts = 2}, yc = {.num_contexts = 7};
    /* x teams ask for 2 contexts; y teams pass a config but no mask bit. */
    int rc = shmem_team_split_2d(parent, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, 0, &yt);
    snprintf(what, sizeof what, "%s: split_2d(xrange %d)", name, xrange);
    if (idx < 0) {
        /* Not in the parent (its handle here is SHMEM_TEAM_INVALID). */
        CHECK(rc != 0, "%s with an invalid parent returned 0", what);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
              "%s with an invalid parent gave a team", what);
        shmem_barrier_all(); /* as many as the members below */
        shmem_barrier_all();
        return;
    }
    CHECK(rc == 0, "%s returned %d", what, rc);
    int x = idx % xrange, y = idx / xrange;
    int w[SHT_MAX_PES], n = 0;
    for (int i = y * xrange; i < pn && i < (y + 1) * xrange; i++)
        w[n++] = pworld[i];
    char sub[300];
    snprintf(sub, sizeof sub, "%s x-team", what);
    sht_check_team(sub, xt, n, w);
    CHECK(shmem_team_my_pe(xt) == x, "%s: my_pe %d is not the x coordinate %d", sub,
          shmem_team_my_pe(xt), x);
    team_reduce_check(sub, xt, n, w);
    n = 0;
    for (int i = x; i < pn; i += xrange)
        w[n++] = pworld[i];
    snprintf(sub, sizeof sub, "%s y-team", what);
    sht_check_team(sub, yt, n, w);
    CHECK(shmem_team_my_pe(yt) == y, "%s: my_pe %d is not the y coordinate %d", sub,
          shmem_team_my_pe(yt), y);
    team_reduce_check(sub, yt, n, w);
    /* This PE is in both: translating between them maps x to y. */
    CHECK(shmem_team_translate_pe(xt, x, yt) == y,
          "%s: translate_pe(x-team, %d, y-team) = %d, "
          "expected %d",
          what, x, shmem_team_translate_pe(xt, x, yt), y);
    /* Configs: the x team was asked for 2 contexts, the y team got defaults. */
    shmem_team_config_t got = {.num_contexts = -1};
    CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0, "%s: get_config", what);
    CHECK(got.num_contexts == 2, "%s: x-team num_contexts %d, expected 2", what, got.num_contexts);
    got.num_contexts = -1;
    CHECK(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0, "%s: get_config", what);
    CHECK(got.num_contexts == 0, "%s: y-team num_contexts %d, expected the default 0 (mask was 0)",
          what, got.num_contexts);
    shmem_barrier_all();
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int world[SHT_MAX_PES] = {0}, rev[SHT_MAX_PES] = {0};
    CHECK(npes <= SHT_MAX_PES, "at most %d PEs", SHT_MAX_PES);
    for (int i = 0; i < npes; i++) {
        world[i] = i;
        rev[i] = npes - 1 - i;
    }

    /* ---- predefined teams ---- */
    sht_check_team("SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, npes, world);
    /* The shared and node teams hold the PEs of this PE's host (all of them
     * on one host). */
    int shared[SHT_MAX_PES], nshared = sht_host_members(shared), shared_at[SHT_MAX_PES];
    for (int i = 0; i < npes; i++)
        shared_at[i] = -1;
    for (int i = 0; i < nshared; i++)
        shared_at[shared[i]] = i;
    sht_check_team("SHMEM_TEAM_SHARED", SHMEM_TEAM_SHARED, nshared, shared);
    sht_check_team("SHMEMX_TEAM_NODE", SHMEMX_TEAM_NODE, nshared, shared);
    for (int i = 0; i < nshared; i++) {
        CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, &g_cells[0], i) ==
                  shmem_ptr(&g_cells[0], shared[i]),
              "team_ptr(SHMEM_TEAM_SHARED, PE %d) differs from shmem_ptr", i);
        CHECK(shmem_team_ptr(SHMEM_TEAM_SHARED, &g_cells[0], i) != NULL,
              "team_ptr(SHMEM_TEAM_SHARED, PE %d) is NULL on its host", i);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEMX_TEAM_NODE) == i,
              "translate_pe(SHARED, %d, NODE)", i);
    }
    for (int pe = 0; pe < npes; pe++)
        CHECK((shmem_ptr(&g_cells[0], pe) != NULL) == (shared_at[pe] >= 0),
              "shmem_ptr(PE %d) is %s for a PE %s this host", pe,
              shmem_ptr(&g_cells[0], pe) ? "set" : "NULL", shared_at[pe] >= 0 ? "on" : "off");
    {
        shmem_team_config_t c = {.num_contexts = -5};
        CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &c) == 0,
              "get_config(SHMEM_TEAM_WORLD) failed");
        CHECK(c.num_contexts >= 0, "get_config(WORLD) num_contexts %d", c.num_contexts);
    }

    /* ---- SHMEM_TEAM_INVALID ---- */
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID) = %d",
          shmem_team_my_pe(SHMEM_TEAM_INVALID));
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID) = %d",
          shmem_team_n_pes(SHMEM_TEAM_INVALID));
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1,
          "translate_pe(INVALID, 0, WORLD) is not -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1,
          "translate_pe(WORLD, 0, INVALID) is not -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1,
          "translate_pe(WORLD, npes, WORLD) is not -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD) == -1,
          "translate_pe(WORLD, -1, WORLD) is not -1");
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, &g_cells[0], 0) == NULL,
          "team_ptr(INVALID) is not NULL");
    {
        shmem_team_config_t c = {.num_contexts = 42};
        CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &c) != 0,
              "get_config(INVALID) returned 0");
    }
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no operation */
    invalid_split("invalid parent", SHMEM_TEAM_INVALID, 0, 1, 1);
    {
        shmem_team_t xt = (shmem_team_t)&g_in, yt = (shmem_team_t)&g_in;
        CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0,
              "split_2d(INVALID) returned 0");
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID,
              "split_2d(INVALID) gave a team");
    }
    shmem_barrier_all();

    /* ---- split_strided ---- */
    split_case("dup (0,1,N)", SHMEM_TEAM_WORLD, world, 0, 1, npes, 0);
    split_case("evens (0,2)", SHMEM_TEAM_WORLD, world, 0, 2, (npes + 1) / 2, 0);
    if (npes >= 2) {
        split_case("odds (1,2)", SHMEM_TEAM_WORLD, world, 1, 2, npes / 2, 0);
        split_case("last two (N-2,1,2)", SHMEM_TEAM_WORLD, world, npes - 2, 1, 2, 0);
    }
    split_case("single (N/2,1,1)", SHMEM_TEAM_WORLD, world, npes / 2, 1, 1, 0);
    split_case("zero stride (N-1,0,1)", SHMEM_TEAM_WORLD, world, npes - 1, 0, 1, 0);
    split_case("zero stride (0,0,1)", SHMEM_TEAM_WORLD, world, 0, 0, 1, 0);
    split_case("stride past N, size 1", SHMEM_TEAM_WORLD, world, npes - 1, npes + 5, 1, 0);
    split_case("reversed (N-1,-1,N)", SHMEM_TEAM_WORLD, world, npes - 1, -1, npes, 0);
    split_case("reversed stride -2", SHMEM_TEAM_WORLD, world, npes - 1, -2, (npes + 1) / 2, 0);
    split_case("reversed from the middle", SHMEM_TEAM_WORLD, world, npes / 2, -1, npes / 2 + 1, 0);
    if (npes >= 3)
        split_case("stride 3 from 1", SHMEM_TEAM_WORLD, world, 1, 3, (npes - 2) / 3 + 1, 0);

    /* Splits of splits: numbering is the parent's. */
    {
        shmem_team_t r =
            split_case("reversed parent", SHMEM_TEAM_WORLD, world, npes - 1, -1, npes, 1);
        shmem_team_t d = split_case("dup parent", SHMEM_TEAM_WORLD, world, 0, 1, npes, 1);
        /* Between two created teams: dup index i is world i, reversed N-1-i. */
        for (int i = 0; i < npes; i++) {
            CHECK(shmem_team_translate_pe(d, i, r) == npes - 1 - i,
                  "translate_pe(dup, %d, rev) = %d", i, shmem_team_translate_pe(d, i, r));
            CHECK(shmem_team_translate_pe(r, i, SHMEM_TEAM_SHARED) == shared_at[npes - 1 - i],
                  "translate_pe(rev, %d, SHARED)", i);
        }
        CHECK(shmem_team_translate_pe(r, npes, d) == -1, "translate_pe(rev, N, dup) is not -1");
        if (npes >= 2)
            split_case("(1,2) of reversed", r, rev, 1, 2, npes / 2, 0);
        split_case("(0,3) of reversed", r, rev, 0, 3, (npes + 2) / 3, 0);
        split_case("(last,-1) of reversed = world order", r, rev, npes - 1, -1, npes, 0);
        shmem_team_t ev = split_case("evens", SHMEM_TEAM_WORLD, world, 0, 2, (npes + 1) / 2, 1);
        int evw[SHT_MAX_PES], nev = (npes + 1) / 2;
        for (int i = 0; i < nev; i++)
            evw[i] = 2 * i;
        /* Non-members of the evens call with SHMEM_TEAM_INVALID as parent. */
        if (ev != SHMEM_TEAM_INVALID) {
            split_case("evens reversed", ev, evw, nev - 1, -1, nev, 0);
            split_case("evens (1,1)", ev, evw, nev > 1 ? 1 : 0, 1, nev > 1 ? nev - 1 : 1, 0);
        } else {
            invalid_split("split of a team this PE is not in", ev, 0, 1, 1);
            invalid_split("split of a team this PE is not in", ev, 0, 1, 1);
        }
        check_2d("2d of reversed", r, npes, rev, 2);
        check_2d("2d of evens", ev, nev, evw, 2);
        shmem_barrier_all();
        shmem_team_destroy(r);
        shmem_team_destroy(d);
        if (ev != SHMEM_TEAM_INVALID)
            shmem_team_destroy(ev);
        shmem_barrier_all();
    }

    /* Invalid triplets: nonzero and SHMEM_TEAM_INVALID on every PE. */
    invalid_split("size 0", SHMEM_TEAM_WORLD, 0, 1, 0);
    invalid_split("negative size", SHMEM_TEAM_WORLD, 0, 1, -2);
    invalid_split("start == N", SHMEM_TEAM_WORLD, npes, 1, 1);
    invalid_split("start < 0", SHMEM_TEAM_WORLD, -1, 1, 1);
    invalid_split("size N+1", SHMEM_TEAM_WORLD, 0, 1, npes + 1);
    invalid_split("stride 2 past the end", SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2 + 1);
    if (npes >= 2)
        invalid_split("negative stride below 0", SHMEM_TEAM_WORLD, 0, -1, 2);

    /* ---- config ---- */
    {
        shmem_team_config_t c = {.num_contexts = 5}, got;
        shmem_team_t t1, t2;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, SHMEM_TEAM_NUM_CONTEXTS,
                                       &t1) == 0,
              "split with num_contexts 5");
        c.num_contexts = 9; /* not in the mask: ignored */
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &c, 0, &t2) == 0,
              "split with mask 0");
        got.num_contexts = -1;
        CHECK(shmem_team_get_config(t1, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0, "get_config(t1)");
        CHECK(got.num_contexts == 5, "num_contexts %d, expected 5", got.num_contexts);
        got.num_contexts = -1;
        CHECK(shmem_team_get_config(t2, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0, "get_config(t2)");
        CHECK(got.num_contexts == 0,
              "num_contexts %d, expected the default 0: the creation mask "
              "was 0, so config must be ignored",
              got.num_contexts);
        got.num_contexts = -77;
        CHECK(shmem_team_get_config(t1, 0, &got) == 0, "get_config(mask 0)");
        CHECK(got.num_contexts == -77, "get_config with mask 0 wrote num_contexts (%d)",
              got.num_contexts);
        /* Contexts can be made on the team that asked for them. */
        shmem_ctx_t ctx[5];
        for (int i = 0; i < 5; i++)
            CHECK(shmem_team_create_ctx(t1, 0, &ctx[i]) == 0,
                  "team_create_ctx %d of 5 on a team "
                  "configured for 5 contexts failed",
                  i);
        for (int i = 0; i < 5; i++)
            shmem_ctx_destroy(ctx[i]);
        shmem_barrier_all();
        shmem_team_destroy(t1);
        shmem_team_destroy(t2);
    }

    /* ---- split_2d ---- */
    {
        int xr[] = {1, 2, 3, npes, npes + 2};
        for (size_t k = 0; k < sizeof xr / sizeof xr[0]; k++)
            check_2d("2d of world", SHMEM_TEAM_WORLD, npes, world, xr[k]);
    }

    /* ---- team_ptr ---- */
    {
        long *heap = shmem_malloc(SHT_MAX_PES * sizeof(long));
        shmem_team_t r;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &r) == 0,
              "split reversed");
        for (int k = 0; k < SHT_MAX_PES; k++)
            g_cells[k] = heap[k] = -1;
        shmem_barrier_all();
        for (int i = 0; i < npes; i++) {
            long *pg = shmem_team_ptr(r, &g_cells[me], i);
            long *ph = shmem_team_ptr(r, &heap[me], i);
            CHECK(pg == shmem_ptr(&g_cells[me], npes - 1 - i),
                  "team_ptr(reversed, %d) is not shmem_ptr(PE %d)", i, npes - 1 - i);
            CHECK(ph == shmem_ptr(&heap[me], npes - 1 - i),
                  "team_ptr(reversed, %d) (heap) is not shmem_ptr(PE %d)", i, npes - 1 - i);
            if (!sht_same_host(me, npes - 1 - i)) { /* another host: no pointer */
                CHECK(pg == NULL && ph == NULL, "team_ptr(reversed, %d) is set off this host", i);
                shmem_long_p(&g_cells[me], 1000L * me + i, npes - 1 - i);
                shmem_long_p(&heap[me], 2000L * me + i, npes - 1 - i);
                continue;
            }
            CHECK(pg != NULL && ph != NULL, "team_ptr(reversed, %d) is NULL on this host", i);
            *pg = 1000L * me + i;
            *ph = 2000L * me + i;
        }
        shmem_barrier_all();
        /* PE k stored 1000 k + (my index in the reversed team) into cell k. */
        for (int k = 0; k < npes; k++) {
            CHECK_VAL("global written through team_ptr", k, SHT_READ(long, &g_cells[k]),
                      1000L * k + (npes - 1 - me));
            CHECK_VAL("heap written through team_ptr", k, SHT_READ(long, &heap[k]),
                      2000L * k + (npes - 1 - me));
        }
        shmem_barrier_all();
        shmem_team_destroy(r);
        shmem_free(heap);
    }

    /* ---- team_sync on the 2-D teams, all at once ---- */
    {
        int xr = sht_xrange(npes);
        shmem_team_t xt, yt;
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &xt, NULL, 0, &yt) == 0, "2d");
        int xn = shmem_team_n_pes(xt), xi = shmem_team_my_pe(xt);
        int yn = shmem_team_n_pes(yt), yi = shmem_team_my_pe(yt);
        for (int round = 0; round < 50; round++) {
            /* Put to the next member of my row, quiet, sync the row: the value
             * from the previous member is there.  Then the same along the column. */
            int nx = shmem_team_translate_pe(xt, (xi + 1) % xn, SHMEM_TEAM_WORLD);
            shmem_long_p(&g_cells[0], 100L * round + me, nx);
            shmem_quiet();
            CHECK(shmem_team_sync(xt) == 0, "team_sync(x) failed");
            int px = shmem_team_translate_pe(xt, (xi + xn - 1) % xn, SHMEM_TEAM_WORLD);
            CHECK_VAL("row neighbour's value after team_sync", round, SHT_READ(long, &g_cells[0]),
                      100L * round + px);
            shmem_team_sync(xt); /* before the next round overwrites it */
            int ny = shmem_team_translate_pe(yt, (yi + 1) % yn, SHMEM_TEAM_WORLD);
            shmem_long_p(&g_cells[1], 100L * round + me, ny);
            shmem_quiet();
            CHECK(shmem_team_sync(yt) == 0, "team_sync(y) failed");
            int py = shmem_team_translate_pe(yt, (yi + yn - 1) % yn, SHMEM_TEAM_WORLD);
            CHECK_VAL("column neighbour's value after team_sync", round,
                      SHT_READ(long, &g_cells[1]), 100L * round + py);
            shmem_team_sync(yt);
        }
        CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0, "team_sync(WORLD)");
        CHECK(shmem_team_sync(SHMEM_TEAM_SHARED) == 0, "team_sync(SHARED)");
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }

    /* ---- churn: slots are given back ---- */
    for (int k = 0; k < 300; k++) {
        shmem_team_t t;
        int stride = k % 2 ? -1 : 1, start = k % 2 ? npes - 1 : 0;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, npes, NULL, 0, &t) == 0,
              "split number %d of 300 (each destroyed at once) failed", k);
        if (k % 50 == 0) {
            int w[SHT_MAX_PES];
            for (int i = 0; i < npes; i++)
                w[i] = start + stride * i;
            snprintf(what, sizeof what, "churn team %d", k);
            team_reduce_check(what, t, npes, w);
        }
        shmem_team_destroy(t);
    }

    /* Mask 0 with a NULL config is allowed (1.5: "If config_mask is 0 ...
     * config may or may not be a null pointer") and returns 0 for a valid
     * team.  Checked last, so that a failure here hides nothing above. */
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, 0, NULL) == 0,
          "get_config(SHMEM_TEAM_WORLD, mask 0, NULL) returned nonzero");

    sht_pass("team_api");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
