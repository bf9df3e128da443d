/* pingpong: PE 0 and PE 1 bounce a growing number with p + wait_until. */
#include <shmem.h>
#include <stdio.h>

#define ROUNDS 1000

static long ball;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int ok = 1;
    if (npes >= 2 && me < 2) {
        int peer = 1 - me;
        for (long i = 1; i <= ROUNDS; i++) {
            if ((i % 2 == 1) == (me == 0)) {
                shmem_long_p(&ball, i, peer);
            } else {
                shmem_long_wait_until(&ball, SHMEM_CMP_EQ, i);
            }
        }
        ok = ball == (me == 0 ? ROUNDS : ROUNDS - 1) || ball == ROUNDS;
        if (me == 0)
            printf("pingpong: %d rounds, last ball %ld\n", ROUNDS, ball);
    }
    shmem_barrier_all();
    shmem_finalize();
    return ok ? 0 : 1;
}
