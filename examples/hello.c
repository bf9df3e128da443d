/* hello: every PE reports in; PE 0 checks that all of them did. */
#include <shmem.h>
#include <stdio.h>

static int arrived[4096];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    printf("Hello from PE %d of %d\n", me, npes);
    shmem_int_p(&arrived[me], 1, 0);
    shmem_barrier_all();
    int ok = 1;
    if (me == 0)
        for (int i = 0; i < npes; i++)
            ok &= arrived[i] == 1;
    shmem_finalize();
    return ok ? 0 : 1;
}
