/*
 * An older OpenSHMEM program that includes the deprecated-annex headers
 * <mpp/shmem.h> and <mpp/shmemx.h> (built with shoalcc by run_example.sh):
 * each PE puts its number to the right and checks what the left PE sent.
 */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include <stdio.h>

static long from_left = -1;

int main(void)
{
    start_pes(0);
    int me = _my_pe(), npes = _num_pes();
    long mine = 1000 + me;
    shmem_long_put(&from_left, &mine, 1, (me + 1) % npes);
    shmem_barrier_all();
    long want = 1000 + (me + npes - 1) % npes;
    if (from_left != want) {
        fprintf(stderr, "FAIL: PE %d got %ld from the left, expected %ld\n", me, from_left, want);
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("mpp_ring: ok at %d PEs\n", npes);
    return 0;
}
