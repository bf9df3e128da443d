/*
 * grid_reduce: the PEs form a grid (shmem_team_split_2d); each PE holds a
 * block of numbers, and row, column and world reductions, a broadcast and a
 * prefix scan combine them. Every result is checked against its closed form.
 */
#include <shmem.h>
#include <stdio.h>

#define COUNT 1024

static long block[COUNT], sums[COUNT], maxes[COUNT], prefix[COUNT];
static long answer;

static long value(int pe, int i)
{
    return (long)pe * 1000 + i;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), ok = 1;
    int xrange = npes >= 4 ? 2 : 1;
    shmem_team_t row, col;
    if (shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &row, NULL, 0, &col) != 0) {
        fprintf(stderr, "PE %d: team split failed\n", me);
        shmem_global_exit(1);
    }
    for (int i = 0; i < COUNT; i++)
        block[i] = value(me, i);

    /* World: sum and max of every element. */
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sums, block, COUNT);
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, maxes, block, COUNT);
    for (int i = 0; i < COUNT; i++) {
        long expect = 1000L * npes * (npes - 1) / 2 + (long)npes * i;
        ok &= sums[i] == expect && maxes[i] == value(npes - 1, i);
    }

    /* Column: the sum over the PEs with my x coordinate. */
    shmem_long_sum_reduce(col, sums, block, COUNT);
    long col_expect = 0;
    for (int pe = me % xrange; pe < npes; pe += xrange)
        col_expect += value(pe, 7);
    ok &= sums[7] == col_expect;

    /* Row: the row leader broadcasts its first element. */
    shmem_long_broadcast(row, &answer, &block[0], 1, 0);
    ok &= answer == value(me - me % xrange, 0);

    /* Inclusive prefix sum across the world. */
    shmem_long_sum_inscan(SHMEM_TEAM_WORLD, prefix, block, COUNT);
    ok &= prefix[3] == 1000L * me * (me + 1) / 2 + (long)(me + 1) * 3;

    int all_ok = 0;
    static int oks[1], total[1];
    oks[0] = ok;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, total, oks, 1);
    all_ok = total[0] == npes;
    if (me == 0)
        printf("grid_reduce: %d PEs as a %d x %d grid: world, row and column reductions, "
               "broadcast and scan %s\n",
               npes, xrange, (npes + xrange - 1) / xrange, all_ok ? "OK" : "WRONG");
    shmem_team_destroy(row);
    shmem_team_destroy(col);
    shmem_finalize();
    return all_ok ? 0 : 1;
}
