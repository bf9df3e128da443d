/* ring: a token travels once around the ring of PEs, each adding its number. */
#include <shmem.h>
#include <stdio.h>

static long token;
static long arrived;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes;
    if (me != 0)
        shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, 1);
    long value = (me == 0 ? 0 : token) + me;
    if (npes == 1) {
        token = value;
    } else {
        shmem_long_p(&token, value, next); /* the last PE hands the token back to PE 0 */
        shmem_fence();                     /* the token lands before the flag */
        shmem_long_p(&arrived, 1, next);
    }
    if (me == 0 && npes > 1)
        shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, 1);
    shmem_barrier_all();
    long expected = (long)npes * (npes - 1) / 2;
    int ok = me != 0 || token == expected;
    if (me == 0)
        printf("ring: token %ld after %d PEs (expected %ld)\n", token, npes, expected);
    shmem_finalize();
    return ok ? 0 : 1;
}
