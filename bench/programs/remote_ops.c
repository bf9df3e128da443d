/*
 * remote_ops.c: PE 0 issues N blocking 8-byte operations of one kind to
 * PE 1 and nothing else, for bench/drivers/netns_callgrind.sh to count the
 * instructions each costs PE 0 when PE 1 is on another host (callgrind, N
 * and 2N runs: the difference over N is the cost of one operation).
 *
 *   get        shmem_getmem of 8 bytes          (every value checked)
 *   fetch_add  shmem_long_atomic_fetch_add      (every old value checked)
 *   put_quiet  shmem_putmem of 8 bytes + quiet  (PE 1 checks the last)
 *
 * usage: remote_ops N get|fetch_add|put_quiet   (2 PEs)
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long word, counter, slot;

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe();
    long n = argc > 2 ? atol(argv[1]) : 0;
    const char *op = argc > 2 ? argv[2] : "";
    int kind = !strcmp(op, "get")         ? 0
               : !strcmp(op, "fetch_add") ? 1
               : !strcmp(op, "put_quiet") ? 2
                                          : -1;
    if (shmem_n_pes() != 2 || n <= 0 || kind < 0) {
        if (me == 0)
            fprintf(stderr, "usage: remote_ops N get|fetch_add|put_quiet (2 PEs)\n");
        shmem_finalize();
        return 2;
    }
    word = 1000 + me;
    shmem_barrier_all();
    long bad = 0;
    if (me == 0) {
        for (long i = 0; i < n; i++) {
            long v = -1;
            if (kind == 0) {
                shmem_getmem(&v, &word, sizeof(v), 1);
                bad += v != 1001;
            } else if (kind == 1) {
                bad += shmem_long_atomic_fetch_add(&counter, 1, 1) != i;
            } else {
                shmem_putmem(&slot, &i, sizeof(i), 1);
                shmem_quiet();
            }
        }
    }
    shmem_barrier_all();
    if (me == 1 && kind == 1)
        bad += counter != n;
    if (me == 1 && kind == 2)
        bad += slot != n - 1;
    if (bad)
        fprintf(stderr, "remote_ops: PE %d: %ld wrong values in %ld %s\n", me, bad, n, op);
    else if (me == 0)
        printf("remote_ops op=%s n=%ld ok\n", op, n);
    shmem_finalize();
    return bad != 0;
}
