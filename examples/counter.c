/* counter: every PE adds to one global counter on PE 0 with atomics. */
#include <shmem.h>
#include <stdio.h>

#define ADDS 10000

static long counter;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < ADDS; i++)
        shmem_long_atomic_add(&counter, 1, 0);
    shmem_barrier_all();
    long seen = shmem_long_atomic_fetch(&counter, 0);
    int ok = seen == (long)ADDS * npes;
    if (me == 0)
        printf("counter: %ld (expected %ld)\n", seen, (long)ADDS * npes);
    shmem_finalize();
    return ok ? 0 : 1;
}
