/*
 * matmul_allreduce, host version: each PE computes C_pe = A_pe x B tile by
 * tile, and the all-reduced C = sum of every C_pe is formed while later tiles
 * are still computing. The CPU of each PE does the tiles; cuda.cu is the CUDA
 * version with one fused kernel, sharing common.c (the inputs, the check,
 * the report).
 *
 * The fused path. Tile t is owned by PE t % npes. A PE computes its tiles in
 * the order me, me+1, ... (so at each step the PEs aim at different owners);
 * a tile it owns is added straight into its accumulator, any other tile is
 * sent with shmem_putmem_signal_nbi into the next of D slots (-d, default 2:
 * double-buffered) that the owner's symmetric workspace keeps for this
 * sender: ws[src][seq % D], with the signal word flags[src*D + seq % D] set
 * to (seq + 1) << 32 | (tile + 1), seq counting the sender's tiles to that
 * owner. Before reusing a slot the sender needs a credit: the owner adds 1 to
 * the sender's flags[npes*D + owner] each time it has reduced one of that
 * sender's tiles. When every PE has reduced its own tiles, shmem_fcollectmem
 * gives every PE the whole C (each owner's tiles are one block, so tile t is
 * block t % npes, entry t / npes).
 *
 * Why interleaving and not a second thread. On one host a put is a CPU copy
 * and a reduce is CPU additions, so a communication thread only overlaps
 * anything when a core is spare; with as many PEs as cores (or more: CI runs
 * 8 PEs on 2 cores) it would compete with the compute for the same cores. So
 * each PE interleaves: after each tile it reduces whatever tiles have arrived
 * (shmem_uint64_test_any_vector), and a wait for a credit is one
 * shmem_uint64_wait_until_any_vector over both the credit and the arrival
 * slots, so a PE waiting for room keeps reducing what others sent it (two PEs
 * waiting for each other's credits cannot deadlock). The overlap is real in
 * that no PE waits for all tiles before reducing: owners reduce while others
 * still compute, and across hosts the nbi puts travel while the next tile
 * computes; the report's "tail" (the time after the last PE's last tile)
 * shows what was left. This is the loop a fused GPU kernel runs (compute a
 * tile, publish it, consume what arrived), with thread blocks instead of
 * steps.
 *
 * The unfused baseline, measured in the same run: compute every tile, then
 * shmem_double_sum_reduce on SHMEM_TEAM_WORLD. Both produce C as tiles and
 * are checked exactly against common.c's plain computation on every PE after
 * every rep (integer-valued doubles, so the comparison is exact); a wrong
 * value names the variant, the PE, the tile and its owner, and the job exits
 * non-zero.
 *
 *   shoalcc -O2 host.c common.c -o matmul_allreduce
 *   shoalrun -n 4 ./matmul_allreduce [-m 512 -n 512 -k 512 -t 64 -d 2 -r 5]
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

typedef struct {
    mm_args_t args;
    int me, npes, depth, tiles, tiles_per_row, per_owner, my_tiles;
    size_t credits;       /* index in flags of the first credit: npes*depth */
    size_t tt;            /* elements in a tile */
    double *a, *b;        /* this PE's A_pe and B, private */
    double *cpe;          /* symmetric: this PE's product, tile t at cpe[t*tt] */
    double *ws;           /* symmetric: arrival slots, ws[(src*depth + seq%depth)*tt] */
    double *owned;        /* symmetric: the sums of my tiles, tile t at owned[(t/npes)*tt] */
    double *gathered;     /* symmetric: every owner's `owned`, in PE order */
    double *reduced;      /* symmetric: the baseline's result, plain tile order */
    uint64_t *flags;      /* symmetric: npes*depth arrival signals, then npes credits */
    int *status;          /* 0: flags[i] takes part in the wait, 1: ignored */
    uint64_t *cmp;        /* flags[i] is ready when >= cmp[i] */
    int *received, *sent; /* per PE: tiles reduced from it, tiles sent to it */
    double computed_at;   /* mm_now() when this PE's last tile of the variant was computed */
} mm_host_t;

/* One tile of A_pe x B, written (not accumulated) into c. */
static void mm_tile_compute(const mm_host_t *s, int t, double *restrict c)
{
    int tile = s->args.tile, k_len = s->args.k, n = s->args.n;
    int r0 = (t / s->tiles_per_row) * tile, c0 = (t % s->tiles_per_row) * tile;
    for (int i = 0; i < tile; i++) {
        double *restrict crow = c + (size_t)i * tile;
        const double *restrict arow = s->a + (size_t)(r0 + i) * k_len;
        for (int j = 0; j < tile; j++)
            crow[j] = 0.0;
        for (int k = 0; k < k_len; k++) {
            double aik = arow[k];
            const double *restrict brow = s->b + (size_t)k * n + c0;
            for (int j = 0; j < tile; j++)
                crow[j] += aik * brow[j];
        }
    }
}

static void mm_tile_add(double *restrict dst, const double *restrict src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] += src[i];
}

/* The next tile from src lands in slot received[src] % depth with sequence
 * received[src] + 1; watch that slot only (a source's tiles are reduced in the
 * order it sent them), or none once src has sent all it owes me. */
static void mm_watch_next(mm_host_t *s, int src)
{
    int r = s->received[src], more = src != s->me && r < s->my_tiles;
    size_t first = (size_t)src * s->depth, next = first + (size_t)(r % s->depth);
    for (size_t slot = first; slot < first + (size_t)s->depth; slot++)
        s->status[slot] = 1;
    s->status[next] = !more;
    s->cmp[next] = (uint64_t)(r + 1) << 32;
}

/* flags[slot] has signalled: add the tile into my sum, give the sender its
 * credit, and watch for its next one. */
static void mm_reduce_arrival(mm_host_t *s, size_t slot)
{
    int src = (int)(slot / (size_t)s->depth);
    uint64_t sig = shmem_signal_fetch(&s->flags[slot]);
    int t = (int)(sig & 0xffffffffu) - 1;
    mm_tile_add(s->owned + (size_t)(t / s->npes) * s->tt, s->ws + slot * s->tt, s->tt);
    shmem_signal_add(&s->flags[s->credits + (size_t)s->me], 1, src);
    s->received[src]++;
    mm_watch_next(s, src);
}

/* Reduces every tile that has arrived, without waiting. */
static void mm_reduce_arrived(mm_host_t *s)
{
    size_t slot;
    while ((slot = shmem_uint64_test_any_vector(s->flags, s->credits, s->status, SHMEM_CMP_GE,
                                                s->cmp)) != SIZE_MAX)
        mm_reduce_arrival(s, slot);
}

/* Waits until `owner` has reduced at least `need` of my tiles, reducing the
 * tiles that arrive meanwhile. */
static void mm_wait_credit(mm_host_t *s, int owner, uint64_t need)
{
    size_t credit = s->credits + (size_t)owner;
    s->status[credit] = 0;
    s->cmp[credit] = need;
    for (;;) {
        size_t slot = shmem_uint64_wait_until_any_vector(s->flags, s->credits + (size_t)s->npes,
                                                         s->status, SHMEM_CMP_GE, s->cmp);
        if (slot == credit)
            break;
        mm_reduce_arrival(s, slot);
    }
    s->status[credit] = 1;
}

/* Clears the sums, the signals and the counts before a fused run; the
 * barrier that starts the run orders this before any PE's first signal. */
static void mm_fused_reset(mm_host_t *s)
{
    memset(s->owned, 0, (size_t)s->per_owner * s->tt * sizeof(double));
    memset(s->flags, 0, (s->credits + (size_t)s->npes) * sizeof(uint64_t));
    for (int pe = 0; pe < s->npes; pe++) {
        s->received[pe] = s->sent[pe] = 0;
        s->status[s->credits + (size_t)pe] = 1;
        mm_watch_next(s, pe);
    }
}

static void mm_fused(mm_host_t *s)
{
    int me = s->me, npes = s->npes;
    size_t bytes = s->tt * sizeof(double);
    for (int i = 0; i < s->tiles; i++) {
        int t = (i + me) % s->tiles, owner = t % npes;
        double *tile = s->cpe + (size_t)t * s->tt;
        mm_tile_compute(s, t, tile);
        if (owner == me) {
            mm_tile_add(s->owned + (size_t)(t / npes) * s->tt, tile, s->tt);
        } else {
            int seq = s->sent[owner]++;
            size_t slot = (size_t)me * s->depth + (size_t)(seq % s->depth);
            if (seq >= s->depth) /* the tile sent depth tiles ago has been reduced */
                mm_wait_credit(s, owner, (uint64_t)(seq - s->depth + 1));
            uint64_t sig = ((uint64_t)(seq + 1) << 32) | (uint64_t)(t + 1);
            shmem_putmem_signal_nbi(s->ws + slot * s->tt, tile, bytes, &s->flags[slot], sig,
                                    SHMEM_SIGNAL_SET, owner);
        }
        mm_reduce_arrived(s);
    }
    s->computed_at = mm_now();
    int expected = (npes - 1) * s->my_tiles, got = 0;
    for (int pe = 0; pe < npes; pe++)
        got += s->received[pe];
    for (; got < expected; got++)
        mm_reduce_arrival(s, shmem_uint64_wait_until_any_vector(s->flags, s->credits, s->status,
                                                                SHMEM_CMP_GE, s->cmp));
    if (s->args.break_tile >= 0 && s->args.break_tile % npes == me)
        s->owned[(size_t)(s->args.break_tile / npes) * s->tt] += 1.0;
    shmem_quiet(); /* my puts and credits are complete before the gather */
    shmem_fcollectmem(SHMEM_TEAM_WORLD, s->gathered, s->owned, (size_t)s->per_owner * bytes);
}

static void mm_unfused(mm_host_t *s)
{
    for (int t = 0; t < s->tiles; t++)
        mm_tile_compute(s, t, s->cpe + (size_t)t * s->tt);
    s->computed_at = mm_now();
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, s->reduced, s->cpe, (size_t)s->tiles * s->tt);
}

/* Runs one variant on every PE; when rep >= 0, stores its time (the slowest
 * PE's) and its tail: the time from the end of the last PE's last tile to the
 * end, which is the smallest of the PEs' own tails (durations only, so the
 * clocks of different hosts need not agree). */
static void mm_timed(mm_host_t *s, void (*variant)(mm_host_t *), mm_times_t *times, int rep)
{
    static double total, tail, total_max, tail_min;
    shmem_barrier_all();
    double t0 = mm_now();
    variant(s);
    shmem_barrier_all();
    double t1 = mm_now();
    total = t1 - t0;
    tail = t1 - s->computed_at;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &total_max, &total, 1);
    shmem_double_min_reduce(SHMEM_TEAM_WORLD, &tail_min, &tail, 1);
    if (rep >= 0)
        times->total[rep] = total_max, times->tail[rep] = tail_min;
}

static int mm_setup(mm_host_t *s)
{
    int npes = s->npes;
    s->tiles = mm_tiles(&s->args);
    s->tiles_per_row = s->args.n / s->args.tile;
    s->per_owner = (s->tiles + npes - 1) / npes;
    s->my_tiles = s->tiles / npes + (s->me < s->tiles % npes);
    s->tt = mm_tile_elems(&s->args);
    s->depth = s->args.depth;
    s->credits = (size_t)npes * s->depth;
    size_t nflags = s->credits + (size_t)npes;
    size_t bytes = s->tt * sizeof(double);
    s->a = malloc((size_t)s->args.m * s->args.k * sizeof(double));
    s->b = malloc((size_t)s->args.k * s->args.n * sizeof(double));
    s->status = malloc(nflags * sizeof(int));
    s->cmp = malloc(nflags * sizeof(uint64_t));
    s->received = malloc((size_t)npes * sizeof(int));
    s->sent = malloc((size_t)npes * sizeof(int));
    s->cpe = shmem_malloc((size_t)s->tiles * bytes);
    s->reduced = shmem_malloc((size_t)s->tiles * bytes);
    s->ws = shmem_malloc(s->credits * bytes);
    s->owned = shmem_malloc((size_t)s->per_owner * bytes);
    s->gathered = shmem_malloc((size_t)npes * s->per_owner * bytes);
    s->flags = shmem_malloc(nflags * sizeof(uint64_t));
    int ok = s->a && s->b && s->status && s->cmp && s->received && s->sent && s->cpe &&
             s->reduced && s->ws && s->owned && s->gathered && s->flags;
    if (!ok) {
        fprintf(stderr,
                "matmul_allreduce: PE %d: no memory for C %d x %d (%zu MiB symmetric); "
                "use smaller -m/-n or raise SHMEM_SYMMETRIC_SIZE\n",
                s->me, s->args.m, s->args.n,
                ((size_t)2 * s->tiles + (size_t)(npes + 1) * s->per_owner + s->credits) * bytes >>
                    20);
        return -1;
    }
    mm_fill_a(s->a, &s->args, s->me);
    mm_fill_b(s->b, &s->args);
    return 0;
}

/* Frees what mm_setup allocated (all of it, or the part it got); collective,
 * like shmem_free. */
static void mm_teardown(mm_host_t *s)
{
    shmem_free(s->flags);
    shmem_free(s->gathered);
    shmem_free(s->owned);
    shmem_free(s->ws);
    shmem_free(s->reduced);
    shmem_free(s->cpe);
    free(s->sent);
    free(s->received);
    free(s->cmp);
    free(s->status);
    free(s->b);
    free(s->a);
}

int main(int argc, char **argv)
{
    shmem_init();
    mm_host_t s = {.me = shmem_my_pe(), .npes = shmem_n_pes()};
    static int ok_me, ok_all;
    if (mm_args_parse(&s.args, argc, argv, s.me) != 0) {
        shmem_finalize();
        return 2;
    }
    ok_me = mm_setup(&s) == 0;
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_all, &ok_me, 1);
    if (!ok_all) {
        mm_teardown(&s);
        shmem_finalize();
        return 1;
    }
    double *ref = mm_reference(&s.args, s.npes);
    double *times = calloc((size_t)4 * s.args.reps, sizeof(double));
    mm_times_t fused = {times, times + s.args.reps};
    mm_times_t unfused = {times + 2 * s.args.reps, times + 3 * s.args.reps};
    ok_me = ref != NULL && times != NULL;
    shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_all, &ok_me, 1);
    /* Rep -1 warms up (first touch of the symmetric pages) and is not timed;
     * the variants alternate so a change in the machine's load hits both.
     * Every PE checks the whole C after every rep, and all stop together at
     * the first rep where any PE found a wrong value. */
    for (int rep = -1; rep < s.args.reps && ok_all; rep++) {
        mm_fused_reset(&s);
        mm_timed(&s, mm_fused, &fused, rep);
        mm_timed(&s, mm_unfused, &unfused, rep);
        ok_me = mm_check("fused", &s.args, s.gathered, s.npes, s.per_owner, ref, s.me, s.npes) &&
                mm_check("unfused", &s.args, s.reduced, 1, s.tiles, ref, s.me, s.npes);
        shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_all, &ok_me, 1);
    }
    if (s.me == 0 && ok_all) {
        mm_report("put-with-signal per tile, reduce on arrival, fcollect",
                  "matmul all tiles, then shmem_double_sum_reduce", &s.args, s.npes, &fused,
                  &unfused);
        printf("matmul_allreduce: result matches the plain computation on all %d PEs "
               "(fused and unfused, every rep)\n",
               s.npes);
    }
    free(times);
    free(ref);
    mm_teardown(&s);
    shmem_finalize();
    return ok_all ? 0 : 1;
}
