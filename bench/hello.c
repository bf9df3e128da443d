/*
 * hello.c: the smallest whole SHMEM job, for timing a job's wall clock
 * (launch, init, one barrier, finalize, exit) under each launcher.
 * PE 0 prints one line so a run that did nothing is visible.
 */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_barrier_all();
    if (me == 0)
        printf("# hello from PE 0 of %d\n", npes);
    shmem_finalize();
    return 0;
}
