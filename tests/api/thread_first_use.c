/*
 * thread_first_use: a peer's memory is mapped the first time it is used, and that
 * is safe from many threads at once.
 *
 * Every thread of every PE starts at the same moment (a pthread barrier)
 * and goes over the PEs in the same order, so the threads of a PE reach an
 * unmapped peer together. For each PE on its host, shmem_ptr must give a
 * pointer (and the pointers of all threads agree); for a PE on another host
 * it must give NULL. Each thread puts a value that names it into its own
 * slot on every PE (through the pointer when it has one, else shmem_p), and
 * after a barrier every PE checks every slot: the values crossed. Its name
 * starts with thread_ so that tests/tsan runs it under ThreadSanitizer too.
 */
#include "check.h"

#include <pthread.h>

#define NT 4

static long *slots; /* [npes * NT] on every PE */
static pthread_barrier_t start;
static int me, npes;
static void *seen[NT][64]; /* pointers each thread got for the first PEs */

static long value_of(int pe, int t)
{
    return 1000L * pe + t + 1;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    pthread_barrier_wait(&start);
    for (int pe = 0; pe < npes; pe++) {
        long *dest = &slots[me * NT + t];
        long *p = shmem_ptr(dest, pe);
        if (sht_same_host(me, pe))
            CHECK(p != NULL, "shmem_ptr to PE %d on this host gave NULL (thread %d)", pe, t);
        else
            CHECK(p == NULL, "shmem_ptr to PE %d on another host gave %p (thread %d)", pe,
                  (void *)p, t);
        if (pe < 64)
            seen[t][pe] = shmem_ptr(slots, pe);
        if (p != NULL)
            *p = value_of(me, t);
        else
            shmem_long_p(dest, value_of(me, t), pe);
    }
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided thread level %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    slots = shmem_calloc((size_t)npes * NT, sizeof(long));
    CHECK(slots != NULL, "shmem_calloc failed");

    pthread_t th[NT];
    pthread_barrier_init(&start, NULL, NT);
    for (long t = 0; t < NT; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < NT; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    for (int pe = 0; pe < npes && pe < 64; pe++)
        for (int t = 1; t < NT; t++)
            CHECK(seen[t][pe] == seen[0][pe], "threads 0 and %d see PE %d's heap at %p and %p", t,
                  pe, seen[0][pe], seen[t][pe]);
    shmem_quiet();
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        for (int t = 0; t < NT; t++)
            CHECK_VAL("slot", pe * NT + t, slots[pe * NT + t], value_of(pe, t));
    /* Mapped peers stay usable after first use: an atomic on every local PE. */
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmem_long_atomic_add(&slots[pe * NT], 1, pe);
    shmem_barrier_all();
    CHECK_VAL("slot", me * NT, slots[me * NT], value_of(me, 0) + npes);
    shmem_free(slots);
    sht_pass("thread_first_use");
    shmem_finalize();
    return 0;
}
