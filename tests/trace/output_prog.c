/*
 * A program that makes as much trace as asked, for run_output_full.sh: each
 * PE puts one long to its right neighbour NPUT times (argv[1]), checking the
 * last value, between two barriers. Prints "PE <n> ok" on success; exit
 * status 10 when a value is wrong.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long slot;

int main(int argc, char **argv)
{
    const long nput = argc > 1 ? atol(argv[1]) : 1000;
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_barrier_all();
    for (long i = 0; i < nput; i++)
        shmem_long_p(&slot, me * 1000000L + i, right);
    shmem_barrier_all();
    if (slot != left * 1000000L + nput - 1) {
        printf("FAIL: PE %d holds %ld, expected %ld\n", me, slot, left * 1000000L + nput - 1);
        return 10;
    }
    printf("PE %d ok\n", me);
    shmem_finalize();
    return 0;
}
