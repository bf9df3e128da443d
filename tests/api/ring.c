/*
 * ring: a token travels once around the ring of PEs by put + barrier, each
 * PE adding its number, so the value that returns to PE 0 proves every hop
 * happened in order.  Then a whole array rotates one step per round for
 * n_pes rounds and must come back to where it started, on the symmetric heap
 * and in a global at the same time.
 */
#include "check.h"

#define N 64

static long token;
static int ring_global[N];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = sht_right();

    /* One token around the ring: hop k is made by PE k. */
    token = -1;
    shmem_barrier_all();
    if (me == 0)
        shmem_long_p(&token, 0, right);
    for (int hop = 1; hop < npes; hop++) {
        shmem_barrier_all();
        if (me == hop) {
            long v = SHT_READ(long, &token);
            CHECK_EQ("token at hop", v, (long)hop * (hop - 1) / 2);
            shmem_long_p(&token, v + me, right);
        }
    }
    shmem_barrier_all();
    if (me == 0) {
        long expect = (long)npes * (npes - 1) / 2;
        CHECK_EQ("token back at PE 0", SHT_READ(long, &token), expect);
    }

    /* An array rotates around the ring, once on the heap and once global. */
    int *heap = shmem_malloc(2 * N * sizeof(int));
    CHECK(heap != NULL, "shmem_malloc(%zu) returned NULL", 2 * N * sizeof(int));
    int *cur = heap, *next = heap + N;
    for (int i = 0; i < N; i++)
        cur[i] = ring_global[i] = me * 1000 + i;
    shmem_barrier_all();
    int gbuf[N];
    for (int round = 1; round <= npes; round++) {
        shmem_int_put(next, cur, N, right);
        memcpy(gbuf, ring_global, sizeof gbuf);
        shmem_barrier_all(); /* everyone has read ring_global */
        shmem_int_put(ring_global, gbuf, N, right);
        shmem_barrier_all();
        int from = (me - round % npes + npes) % npes;
        for (int i = 0; i < N; i++) {
            CHECK_VAL("heap ring", i, next[i], from * 1000 + i);
            CHECK_VAL("global ring", i, ring_global[i], from * 1000 + i);
        }
        int *t = cur;
        cur = next;
        next = t;
    }
    for (int i = 0; i < N; i++)
        CHECK_VAL("after full turn", i, cur[i], me * 1000 + i);

    shmem_barrier_all();
    shmem_free(heap);
    sht_pass("ring");
    shmem_finalize();
    return 0;
}
