/*
 * A job with one slow PE, for the profile's imbalance view: PE SLOW_PE
 * (2, or the last PE in a smaller job) sleeps SLEEP_MS before each of
 * ROUNDS barriers, so every other PE waits there for it; each PE also puts
 * PUT_BYTES to its right neighbour ROUNDS times (the traffic matrix).
 * run_laggard.sh checks what PE 0 prints and writes.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define ROUNDS 3
#define SLEEP_MS 150
#define PUT_BYTES 1000

static char buf[PUT_BYTES];

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int slow = npes > 2 ? 2 : npes - 1;
    char src[PUT_BYTES];
    memset(src, me, sizeof(src));
    for (int r = 0; r < ROUNDS; r++) {
        shmem_putmem(buf, src, PUT_BYTES, (me + 1) % npes);
        if (me == slow) {
            struct timespec ts = {0, SLEEP_MS * 1000000L};
            while (nanosleep(&ts, &ts) != 0)
                ;
        }
        shmem_barrier_all();
        if (buf[0] != (char)((me + npes - 1) % npes)) {
            printf("FAIL: PE %d: buf[0] = %d after round %d\n", me, buf[0], r);
            shmem_global_exit(1);
        }
    }
    shmem_finalize();
    return 0;
}
