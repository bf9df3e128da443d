/*
 * Threads recording while other threads flush their buffers, for
 * run_threads.sh: NTHREADS threads of each PE make NPUT puts each (records
 * fill the small SHOAL_TRACE_EVENTS buffers again and again, so each thread
 * writes its own) while the main thread asks for hang reports (SIGUSR1 to
 * its own process, every 3 ms), whose flush writes every thread's pending
 * records from the watchdog thread. Every record must reach the file
 * exactly once.
 */
#include <pthread.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define NTHREADS 3
#define NPUT 20000

static long landing[NTHREADS];
static int right;
static int done; /* threads finished */

static void *worker(void *arg)
{
    const long t = (long)(size_t)arg;
    for (long i = 0; i < NPUT; i++) {
        shmem_long_p(&landing[t], i, right);
        if (i % 500 == 499)
            usleep(1000); /* the job lasts long enough for several reports */
    }
    __atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
    return NULL;
}

int main(void)
{
    int provided;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0 ||
        provided != SHMEM_THREAD_MULTIPLE) {
        printf("FAIL: SHMEM_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    right = (shmem_my_pe() + 1) % shmem_n_pes();
    pthread_t th[NTHREADS];
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(size_t)t);
    int asked = 0;
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < NTHREADS) {
        kill(getpid(), SIGUSR1);
        asked++;
        usleep(3000);
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    printf("PE %d asked for %d reports\n", shmem_my_pe(), asked);
    shmem_barrier_all();
    printf("PE %d done\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
