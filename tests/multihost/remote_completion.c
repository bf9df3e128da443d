/*
 * quiet and pe_quiet complete transfers to another host: after them, a PE
 * on the target's host sees the data, even though the message that tells it
 * to look travels on a different connection and could overtake the data.
 *
 * PE 0 (host 0) writes a 1 MiB pattern to PE 1 (host 1) with put_nbi (and,
 * every other round, blocking put), completes it with pe_quiet or quiet,
 * then sets a flag on PE 3, which shares host 1 with PE 1 and checks PE 1's
 * buffer through shmem_ptr. A missing flush shows up as stale words. Also
 * get_nbi: PE 0 reads PE 1's buffer back after quiet. Needs 4 PEs placed
 * round robin on 2 hosts (tests/netns/netns_job.sh 2 2, as_host.sh).
 */
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "mh_check.h"

#define WORDS (128 * 1024) /* 1 MiB of longs */
#define ROUNDS 40

static long flag;

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long *buf = shmem_malloc(WORDS * sizeof(long));
    long *src = malloc(WORDS * sizeof(long));
    long *back = malloc(WORDS * sizeof(long));
    CHECK(buf != NULL && src != NULL && back != NULL, "allocation");
    CHECK(npes >= 4, "needs 4 PEs, got %d", npes);
    /* The placement this test relies on. */
    if (me == 0)
        CHECK(shmem_ptr(buf, 1) == NULL, "PE 1 must be on another host than PE 0");
    if (me == 3)
        CHECK(shmem_ptr(buf, 1) != NULL && shmem_ptr(buf, 0) == NULL,
              "PE 3 must share PE 1's host, not PE 0's");
    for (int i = 0; i < WORDS; i++)
        buf[i] = -1;
    shmem_barrier_all();

    for (long r = 1; r <= ROUNDS; r++) {
        if (me == 0) {
            for (int i = 0; i < WORDS; i++)
                src[i] = r * 10000000 + i;
            const int target = 1;
            switch (r % 4) {
            case 0:
                shmem_long_put_nbi(buf, src, WORDS, 1);
                shmem_pe_quiet(&target, 1);
                break;
            case 1:
                shmem_long_put_nbi(buf, src, WORDS, 1);
                shmem_quiet();
                break;
            case 2:
                shmem_long_put(buf, src, WORDS, 1);
                shmem_pe_quiet(&target, 1);
                break;
            default:
                shmem_putmem(buf, src, WORDS * sizeof(long), 1);
                shmem_quiet();
                break;
            }
            shmem_long_atomic_set(&flag, r, 3); /* before anything else goes to PE 1 */
            /* Read it back: non-blocking get + quiet. */
            shmem_long_get_nbi(back, buf, WORDS, 1);
            shmem_quiet();
            for (int i = 0; i < WORDS; i++)
                CHECK(back[i] == r * 10000000 + i, "round %ld: get_nbi+quiet word %d = %ld", r, i,
                      back[i]);
        } else if (me == 3) {
            shmem_long_wait_until(&flag, SHMEM_CMP_GE, r);
            const volatile long *seen = shmem_ptr(buf, 1);
            for (int i = 0; i < WORDS; i++)
                CHECK(seen[i] == r * 10000000 + i,
                      "round %ld (%s): PE 1's word %d is %ld after the flag: the transfer was "
                      "not complete",
                      r, r % 2 == 0 ? "pe_quiet" : "quiet", i, seen[i]);
        }
        shmem_barrier_all();
    }
    if (me == 0)
        printf("PASS remote_completion (%d PEs, %d rounds of 1 MiB)\n", npes, ROUNDS);
    free(src);
    free(back);
    shmem_free(buf);
    shmem_finalize();
    return 0;
}
