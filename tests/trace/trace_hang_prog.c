/*
 * A job that hangs, for the test that traces survive it (run_hang.sh):
 * each PE, with its right neighbour R = (me + 1) % npes, makes
 *   NPUT shmem_putmem of PUT_BYTES to R, shmem_barrier_all,
 *   one shmem_putmem_signal (SIGNAL_SET 1) to R, shmem_signal_wait_until
 *   (GE 1) for its left neighbour's, shmem_barrier_all;
 * then the last PE waits for a signal value (2) that no PE ever sends, and
 * the others go on to shmem_finalize, where they wait for it. Only the
 * launcher's --timeout ends the job. check_trace.py's `hang` mode mirrors
 * these numbers.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NPUT 5
#define PUT_BYTES 48

static uint64_t sig;
static unsigned char landing[PUT_BYTES];

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes;
    unsigned char src[PUT_BYTES];
    for (int i = 0; i < NPUT; i++) {
        memset(src, me + i, sizeof(src));
        shmem_putmem(landing, src, PUT_BYTES, right);
    }
    shmem_barrier_all();
    shmem_putmem_signal(landing, src, PUT_BYTES, &sig, 1, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 1);
    shmem_barrier_all();
    printf("PE %d reached the hang\n", me);
    fflush(stdout);
    if (me == npes - 1)
        shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 2); /* never sent */
    shmem_finalize();
    return 0;
}
