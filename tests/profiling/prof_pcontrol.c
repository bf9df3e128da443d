/*
 * prof_pcontrol: calls shmem_pcontrol with each kind of level (off, flush,
 * flush again, one above 2 with extra arguments, negative, default) between
 * barriers. run_pcontrol.sh reads Shoal's debug lines, which report the
 * level and flush count recorded in the library state after each call; the
 * program checks nothing itself.
 */
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_barrier_all();
    shmem_pcontrol(0);
    shmem_pcontrol(2);
    shmem_pcontrol(2);
    shmem_pcontrol(7, "a profiling library's argument", 3);
    shmem_pcontrol(-1);
    shmem_pcontrol(1);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
