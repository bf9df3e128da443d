/*
 * coll_zero: collectives of zero elements with NULL buffers.  OpenSHMEM 1.5
 * (section 9.9) lets nelems be 0; a call that moves nothing must return
 * without touching dest or source, which may then be NULL (memcpy/memmove
 * with a NULL pointer is undefined even for 0 bytes, and UBSan reports it).
 * Every team collective, reduction and scan, and every deprecated
 * active-set form, with 0 elements and NULL buffers; then a collect where
 * only some PEs contribute (the others pass 0 elements) must still gather
 * the rest, and the job must go on with a barrier and a
 * real broadcast, so no PE was left behind.
 */
#include "check.h"

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    for (int round = 0; round < 3; round++) {
        CHECK_EQ("broadcastmem", shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
        CHECK_EQ("long_broadcast", shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
        CHECK_EQ("collectmem", shmem_collectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("fcollectmem", shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("int_fcollect", shmem_int_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("alltoallmem", shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("alltoallsmem", shmem_alltoallsmem(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0), 0);
        CHECK_EQ("long_sum_reduce", shmem_long_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("double_max_reduce", shmem_double_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("uint_and_reduce", shmem_uint_and_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
#if SHOAL_TEST_HAVE_16
        CHECK_EQ("long_sum_inscan", shmem_long_sum_inscan(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
        CHECK_EQ("long_sum_exscan", shmem_long_sum_exscan(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
#endif
        shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, npes, psync);
        shmem_collect32(NULL, NULL, 0, 0, 0, npes, psync);
        shmem_fcollect64(NULL, NULL, 0, 0, 0, npes, psync);
        shmem_alltoall32(NULL, NULL, 0, 0, 0, npes, psync);
        shmem_alltoalls64(NULL, NULL, 1, 1, 0, 0, 0, npes, psync);
        shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, npes, pwrk, psync);
        shmem_barrier_all();
    }
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        CHECK_VAL("pSync after the zero-length calls", i, psync[i], (long)SHMEM_SYNC_VALUE);

    /* Even PEs contribute one long, odd PEs nothing (source is symmetric, so
     * the same object everywhere). */
    long *src = shmem_malloc(sizeof(long));
    long *dest = shmem_calloc((size_t)npes, sizeof(long));
    *src = 100 + me;
    shmem_barrier_all();
    CHECK_EQ("collect with empty blocks",
             shmem_long_collect(SHMEM_TEAM_WORLD, dest, src, me % 2 ? 0 : 1), 0);
    for (int i = 0, k = 0; i < npes; i += 2, k++)
        CHECK_VAL("collect with empty blocks", k, dest[k], 100L + i);

    long *b = shmem_malloc(sizeof(long));
    *b = me == 0 ? 42 : -1;
    shmem_barrier_all();
    shmem_long_broadcast(SHMEM_TEAM_WORLD, b, b, 1, 0);
    CHECK_EQ("broadcast after the zero-length calls", *b, 42L);

    shmem_free(b);
    shmem_free(dest);
    shmem_free(src);
    sht_pass("coll_zero");
    shmem_finalize();
    return 0;
}
