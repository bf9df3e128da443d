/*
 * Check mode (SHOAL_CHECK=1) against programs with known bugs, and against
 * a correct program that must run unchanged with the checks on.
 *
 * usage: check_prog MODE   (run_check.sh runs every mode and checks the
 * messages; modes that end the job are meant to fail)
 *   ok              every collective, on TEAM_WORLD and on a split team,
 *                   values checked; must exit 0
 *   root_mismatch   the last PE broadcasts from root 1, the others from 0
 *   count_mismatch  the last PE reduces 3 elements, the others 4
 *   op_mismatch     the last PE calls max_reduce, the others sum_reduce
 *   desync          the last PE skips a shmem_barrier_all
 *   overrun         PE 0 puts 108 bytes into the last PE's 100-byte
 *                   allocation (found at the put)
 *   overrun_get     PE 0 gets 108 bytes from the last PE's 100-byte
 *                   allocation (found at the get)
 *   overrun_free    the last PE writes 108 bytes into its own 100-byte
 *                   allocation with memset, then frees it (found at
 *                   shmem_free: the guard zone)
 *   overrun_final   the same, never freed (found at shmem_finalize)
 *   use_after_free  PE 0 puts into the last PE's allocation after it was
 *                   freed (found at the put)
 *   use_after_free_local  the last PE writes into its own allocation after
 *                   freeing it (found at shmem_finalize: the poison)
 *   finalize_desync the last PE calls shmem_barrier_all once more while
 *                   the others call shmem_finalize
 *   double_free     every PE frees an allocation twice
 *   overlap         every PE puts 64 bytes of an allocation to 8 bytes
 *                   further on in its own copy (source and dest overlap)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

static int me, npes, failures;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: PE %d: ", me);                                                           \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* Every collective on `team`, in buffers of 8 and 8 * npes longs (allocated
 * by every PE: allocation is a collective over all PEs). */
static void correct_program(shmem_team_t team, long *src, long *dst)
{
    const int n = shmem_team_n_pes(team), r = shmem_team_my_pe(team);
    for (int round = 0; round < 3; round++) { /* several calls: both parities */
        for (int i = 0; i < 8; i++)
            src[i] = 1000 * r + 10 * round + i;
        shmem_team_sync(team);
        shmem_long_broadcast(team, dst, src, 4, round % n);
        for (int i = 0; i < 4; i++)
            EXPECT(dst[i] == 1000 * (round % n) + 10 * round + i, "broadcast[%d] = %ld", i, dst[i]);
        /* dest is reused: every PE must be done reading it before the next
         * collective writes it (the spec leaves that to the program). */
        shmem_team_sync(team);
        shmem_long_fcollect(team, dst, src, 2);
        for (int p = 0; p < n; p++)
            EXPECT(dst[2 * p + 1] == 1000 * p + 10 * round + 1, "fcollect from %d = %ld", p,
                   dst[2 * p + 1]);
        shmem_team_sync(team);
        /* collect: team PE p gives p % 3 + 1 elements (counts differ: allowed) */
        shmem_long_collect(team, dst, src, (size_t)(r % 3 + 1));
        size_t at = 0;
        for (int p = 0; p < n; p++) {
            EXPECT(dst[at] == 1000 * p + 10 * round, "collect from %d = %ld", p, dst[at]);
            at += (size_t)(p % 3 + 1);
        }
        shmem_team_sync(team);
        shmem_long_sum_reduce(team, dst, src, 4);
        long want = 0;
        for (int p = 0; p < n; p++)
            want += 1000 * p + 10 * round + 3;
        EXPECT(dst[3] == want, "sum_reduce = %ld, want %ld", dst[3], want);
        shmem_team_sync(team); /* src changes next: others may still read it */
        for (int i = 0; i < 8; i++)
            src[i] = 100 * r + i;
        shmem_long_alltoall(team, dst, src, 1);
        for (int p = 0; p < n && p < 8; p++)
            EXPECT(dst[p] == 100 * p + r, "alltoall from %d = %ld", p, dst[p]);
        shmem_team_sync(team);
        if (team == SHMEM_TEAM_WORLD) {
            shmem_barrier_all();
            shmem_sync_all();
        }
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const int last = me == npes - 1 && npes > 1;
    long *src = shmem_calloc(8, sizeof(long)), *dst = shmem_calloc(8, sizeof(long));

    if (strcmp(mode, "ok") == 0) {
        long *big = shmem_calloc(8 * (size_t)npes, sizeof(long));
        correct_program(SHMEM_TEAM_WORLD, src, big);
        shmem_team_t evens = SHMEM_TEAM_INVALID;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
        if (evens != SHMEM_TEAM_INVALID) {
            correct_program(evens, src, big);
            shmem_team_destroy(evens);
        }
        shmem_free(big);
        if (failures == 0 && me == 0)
            printf("check_prog ok: every collective gave the right values at %d PEs\n", npes);
    } else if (strcmp(mode, "root_mismatch") == 0) {
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, last ? 1 : 0);
    } else if (strcmp(mode, "count_mismatch") == 0) {
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, last ? 3 : 4);
    } else if (strcmp(mode, "op_mismatch") == 0) {
        if (last)
            shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
        else
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
    } else if (strcmp(mode, "desync") == 0) {
        shmem_barrier_all();
        if (!last)
            shmem_barrier_all();
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, 0);
    } else if (strcmp(mode, "overrun") == 0 || strcmp(mode, "overrun_get") == 0) {
        char *a = shmem_malloc(100), *b = shmem_malloc(100);
        char bytes[108];
        memset(bytes, 7, sizeof(bytes));
        shmem_barrier_all();
        if (me == 0 && strcmp(mode, "overrun") == 0)
            shmem_putmem(a, bytes, sizeof(bytes), npes - 1);
        if (me == 0 && strcmp(mode, "overrun_get") == 0)
            shmem_getmem(bytes, a, sizeof(bytes), npes - 1);
        shmem_barrier_all();
        shmem_free(a);
        shmem_free(b);
    } else if (strcmp(mode, "overrun_free") == 0 || strcmp(mode, "overrun_final") == 0) {
        char *a = shmem_malloc(100), *b = shmem_malloc(100);
        shmem_barrier_all();
        if (me == npes - 1)
            memset(a, 7, 108); /* a store of its own: only the guard zone sees it */
        shmem_barrier_all();
        if (strcmp(mode, "overrun_free") == 0)
            shmem_free(a);
        shmem_free(b);
    } else if (strcmp(mode, "use_after_free") == 0) {
        char *a = shmem_malloc(100);
        shmem_free(a);
        if (me == 0)
            shmem_char_p(a + 10, 1, npes - 1);
        shmem_barrier_all();
    } else if (strcmp(mode, "use_after_free_local") == 0) {
        char *a = shmem_malloc(100);
        shmem_free(a);
        if (me == npes - 1)
            ((volatile char *)a)[10] = 1;
        shmem_barrier_all();
    } else if (strcmp(mode, "finalize_desync") == 0) {
        shmem_barrier_all();
        if (me == npes - 1)
            shmem_barrier_all();
        else {
            shmem_finalize(); /* before the set-up's frees, which are collectives too */
            return 0;
        }
    } else if (strcmp(mode, "overlap") == 0) {
        char *a = shmem_malloc(128);
        shmem_putmem(a + 8, a, 64, me);
        shmem_barrier_all();
        shmem_free(a);
    } else if (strcmp(mode, "double_free") == 0) {
        char *a = shmem_malloc(100);
        shmem_free(a);
        shmem_free(a);
    } else {
        printf("check_prog: unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return failures != 0;
}
