/*
 * A job that ends abruptly, for the tests that its trace survives
 * (run_fault.sh): each PE puts NPUT longs to its right neighbour and enters
 * a barrier; then PE 1
 *   (no argument) passes shmem_long_put a source pointer that faults, which
 *                 the library turns into an error that ends the job;
 *   kill          sleeps 1.2 s, makes one more put (the first record after
 *                 a second writes the thread's earlier records) and kills
 *                 itself with SIGKILL, which no handler sees.
 */
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define NPUT 3

static long landing[NPUT];

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long v = me;
    for (int i = 0; i < NPUT; i++)
        shmem_long_put(&landing[i], &v, 1, (me + 1) % npes);
    shmem_barrier_all();
    if (me == 1 && argc > 1 && strcmp(argv[1], "kill") == 0) {
        usleep(1200000);
        shmem_long_put(landing, &v, 1, (me + 1) % npes);
        raise(SIGKILL);
    }
    if (me == 1)
        shmem_long_put(landing, (const long *)(uintptr_t)16, 1, (me + 1) % npes);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
