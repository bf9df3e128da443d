/*
 * exit_after_finalize: after shmem_finalize a PE is on its own (OpenSHMEM
 * 1.5, section 9.2.3: finalize ends the PE's participation in the job; what
 * the program does afterwards is its own business).  PE 0 finalizes and
 * exits with status 3 at once; every other PE finalizes, sleeps a second,
 * writes DIR/pe<N>.done and exits 0.  run_exit_after_finalize.sh checks that
 * every file is written (no PE was ended because PE 0 exited) and that the
 * job's status names PE 0's 3.
 *
 * usage: exit_after_finalize DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <shmem.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    shmem_finalize();
    if (me == 0)
        return 3;
    sleep(1);
    char path[4096];
    snprintf(path, sizeof path, "%s/pe%d.done", argv[1], me);
    FILE *f = fopen(path, "w");
    if (f == NULL || fprintf(f, "PE %d finished\n", me) < 0 || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}
