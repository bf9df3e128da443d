/*
 * A job that faults, for the test that its trace survives (run_fault.sh):
 * each PE puts NPUT longs to its right neighbour and enters a barrier;
 * then PE 1 passes shmem_long_put a source pointer that faults, which the
 * library turns into an error that ends the job.
 */
#include <shmem.h>
#include <stdint.h>

#define NPUT 3

static long landing[NPUT];

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long v = me;
    for (int i = 0; i < NPUT; i++)
        shmem_long_put(&landing[i], &v, 1, (me + 1) % npes);
    shmem_barrier_all();
    if (me == 1)
        shmem_long_put(landing, (const long *)(uintptr_t)16, 1, (me + 1) % npes);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
