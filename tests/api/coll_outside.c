/*
 * coll_outside: a PE that calls an active-set collective while not in the
 * active set returns at once and leaves its buffers alone (as other
 * implementations do; Shoal warns once per call site), while the members
 * complete the collective with the right values.  Sets: PEs 0..N-2 (the last
 * PE sits out) and the even PEs (the odd ones sit out); each routine is
 * called three times from one call site.  At 1 PE every set is the world.
 */
#include "check.h"

static long pSync[SHMEM_REDUCE_SYNC_SIZE], pSync_bar[SHMEM_BARRIER_SYNC_SIZE];
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long src[4], dst[4 * 64];

static void one_set(int start, int log, int size)
{
    int me = shmem_my_pe(), stride = 1 << log;
    int member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
    for (int rep = 0; rep < 3; rep++) {
        long sum = 0;
        for (int i = 0; i < size; i++)
            sum += start + i * stride + 1 + rep;
        /* sum_to_all */
        src[0] = me + 1 + rep;
        dst[0] = -7;
        shmem_barrier_all();
        shmem_long_sum_to_all(dst, src, 1, start, log, size, pWrk, pSync);
        CHECK_EQ("sum_to_all result (-7: untouched, outside the set)", dst[0], member ? sum : -7L);
        shmem_barrier_all();
        /* what the neighbour got, read across PEs */
        int r = sht_right(),
            rmember = r >= start && (r - start) % stride == 0 && (r - start) / stride < size;
        CHECK_EQ("right PE's sum_to_all result", shmem_long_g(&dst[0], r), rmember ? sum : -7L);
        shmem_barrier_all();
        /* broadcast64 from the set's first PE */
        for (int i = 0; i < 4; i++) {
            src[i] = 100 * (rep + 1) + i;
            dst[i] = -7;
        }
        shmem_barrier_all();
        shmem_broadcast64(dst, src, 4, 0, start, log, size, pSync);
        for (int i = 0; i < 4; i++)
            CHECK_VAL("broadcast64 dest", i, dst[i],
                      member && me != start ? 100L * (rep + 1) + i : -7L);
        shmem_barrier_all();
        /* fcollect64 */
        src[0] = 1000 * (rep + 1) + me;
        for (int i = 0; i < size; i++)
            dst[i] = -7;
        shmem_barrier_all();
        shmem_fcollect64(dst, src, 1, start, log, size, pSync);
        for (int i = 0; i < size; i++)
            CHECK_VAL("fcollect64 dest", i, dst[i],
                      member ? 1000L * (rep + 1) + start + i * stride : -7L);
        /* barrier: the members' puts are visible after it */
        shmem_barrier(start, log, size, pSync_bar);
        shmem_barrier_all();
    }
}

int main(void)
{
    shmem_init();
    int npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        pSync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        pSync_bar[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    one_set(0, 0, npes > 1 ? npes - 1 : 1);
    one_set(0, 1, (npes + 1) / 2);
    sht_pass("coll_outside");
    shmem_finalize();
    return 0;
}
