/* lock_counter: a non-atomic read-modify-write on PE 0, made safe by a lock. */
#include <shmem.h>
#include <stdio.h>

#define ROUNDS 500

static long lock;
static long total;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < ROUNDS; i++) {
        shmem_set_lock(&lock);
        long v = shmem_long_g(&total, 0);
        shmem_long_p(&total, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    int ok = me != 0 || total == (long)ROUNDS * npes;
    if (me == 0)
        printf("lock_counter: %ld (expected %ld)\n", total, (long)ROUNDS * npes);
    shmem_finalize();
    return ok ? 0 : 1;
}
