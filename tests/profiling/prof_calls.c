/*
 * prof_calls: a program run with the counting tool (prof_tool.c) in front of
 * libshoal, linked before it or through LD_PRELOAD. It makes a known set of
 * calls, counting each one itself through CALL, and checks that the data
 * crossed between PEs as it should. After shmem_finalize it compares the
 * tool's counters with its own: they must be equal routine by routine, so a
 * call Shoal makes internally through a plain shmem_* name (finalize's
 * barrier, a deprecated name forwarding to its successor, a ctx form to its
 * default form, shmem_team_ptr to shmem_ptr, a collective to a barrier)
 * shows up as a count the program did not make, and a routine the tool
 * failed to interpose as a count of 0. Calls to the pshmem_ twins must not
 * be counted at all.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <pshmem.h>

#include "counted.h"

#define K 5  /* rounds of the ring and fetch-adds per PE */
#define N 16 /* longs in the bulk put */
#define MAX_PES 64

static long want[PROF_NCOUNTED];
#define CALL(NAME, ...) (want[PROF_ID_##NAME]++, NAME(__VA_ARGS__))
#define CALL0(NAME) (want[PROF_ID_##NAME]++, NAME())

#define FAIL_IF(cond, ...)                                                                         \
    do {                                                                                           \
        if (cond) {                                                                                \
            fprintf(stderr, "prof_calls: PE %d: ", pshmem_my_pe());                                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            pshmem_global_exit(1);                                                                 \
        }                                                                                          \
    } while (0)

#define PROF_NAME_OF_VOID(NAME, PARAMS, ARGS) [PROF_ID_##NAME] = #NAME,
#define PROF_NAME_OF_VALUE(RET, NAME, PARAMS, ARGS) [PROF_ID_##NAME] = #NAME,
static const char *const names[PROF_NCOUNTED] = {
    PROF_VOID(PROF_NAME_OF_VOID) PROF_VALUE(PROF_NAME_OF_VALUE)[PROF_ID_shmem_pcontrol] =
        "shmem_pcontrol",
};

static long flag;
static long red_src, red_dst, bc_src[4], bc_dst[4];
static int fc_src[2], fc_dst[2 * MAX_PES];

static long load(const long *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

int main(void)
{
    prof_counts_fn counts_of = (prof_counts_fn)dlsym(RTLD_DEFAULT, PROF_COUNTS_SYMBOL);
    if (counts_of == NULL) {
        fprintf(stderr, "prof_calls: the tool library is not loaded; link libprof_tool before "
                        "libshoal or put it in LD_PRELOAD\n");
        return 1;
    }

    CALL0(shmem_init);
    int me = CALL0(shmem_my_pe), npes = CALL0(shmem_n_pes);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    FAIL_IF(npes > MAX_PES, "run at most %d PEs", MAX_PES);
    FAIL_IF(_my_pe() != me, "_my_pe() = %d, shmem_my_pe() = %d", _my_pe(), me);

    /* Allocation: shmalloc forwards to shmem_malloc inside Shoal, and the
     * pshmem_malloc call is not the tool's to see. */
    long *slot = CALL(shmem_malloc, 2 * sizeof(long));
    long *arr = CALL(shmem_malloc, N * sizeof(long));
    long *ctr = CALL(shmem_malloc, sizeof(long));
    long *word = CALL(shmalloc, sizeof(long));
    void *direct = pshmem_malloc(64);
    FAIL_IF(!slot || !arr || !ctr || !word || !direct, "an allocation returned NULL");
    slot[0] = slot[1] = -1;
    *ctr = 0;
    *word = -1;
    CALL0(shmem_barrier_all);

    /* A value around the ring K times; each hop checked on arrival. */
    for (int i = 0; i < K; i++) {
        CALL(shmem_long_p, &slot[0], me * 1000L + i, right);
        CALL0(shmem_barrier_all);
        FAIL_IF(load(&slot[0]) != left * 1000L + i, "round %d: slot = %ld, expected %ld from PE %d",
                i, load(&slot[0]), left * 1000L + i, left);
        CALL0(shmem_barrier_all);
    }

    /* Bulk puts, and a put through the twin that the tool must not count. */
    long src[N];
    for (int j = 0; j < N; j++)
        src[j] = (long)me * N + j;
    long me_long = me;
    CALL(shmem_long_put, arr, src, N, right);
    CALL(shmem_putmem, word, &me_long, sizeof(long), right);
    pshmem_long_p(&slot[1], 7000L + me, right);
    CALL0(shmem_barrier_all);
    for (int j = 0; j < N; j++)
        FAIL_IF(arr[j] != (long)left * N + j, "arr[%d] = %ld, expected %ld from PE %d", j, arr[j],
                (long)left * N + j, left);
    FAIL_IF(load(word) != left, "putmem: word = %ld, expected %d", load(word), left);
    FAIL_IF(load(&slot[1]) != 7000L + left, "pshmem_long_p: slot = %ld, expected %ld",
            load(&slot[1]), 7000L + left);
    long got = CALL(shmem_long_g, &slot[0], right);
    FAIL_IF(got != me * 1000L + K - 1, "shmem_long_g = %ld, expected %ld", got, me * 1000L + K - 1);
    FAIL_IF(pshmem_long_g(&slot[0], right) != got, "pshmem_long_g disagrees with shmem_long_g");

    /* Atomics on PE 0. inc forwards to add, the deprecated fadd to
     * fetch_add, the ctx fetch to the plain fetch, all inside Shoal. */
    const long per_pe = K + 1 + 2 + 1;
    for (int i = 0; i < K; i++) {
        long old = CALL(shmem_long_atomic_fetch_add, ctr, 1, 0);
        FAIL_IF(old < 0 || old >= npes * per_pe, "fetch_add returned %ld", old);
    }
    shmem_long_atomic_inc(ctr, 0);
    CALL(shmem_long_atomic_add, ctr, 2, 0);
    shmem_long_fadd(ctr, 1, 0);
    CALL0(shmem_barrier_all);
    long total = CALL(shmem_long_atomic_fetch, ctr, 0);
    FAIL_IF(total != npes * per_pe, "counter on PE 0 = %ld, expected %ld", total, npes * per_pe);
    FAIL_IF(shmem_ctx_long_atomic_fetch(SHMEM_CTX_DEFAULT, ctr, 0) != total,
            "shmem_ctx_long_atomic_fetch disagrees");

    /* A flag set by the left neighbour; the deprecated wait forwards to
     * shmem_long_wait_until inside Shoal. */
    CALL(shmem_long_p, &flag, 1, right);
    CALL(shmem_long_wait_until, &flag, SHMEM_CMP_EQ, 1);
    shmem_long_wait(&flag, 0);

    /* Collectives over globals (symmetric); each uses barriers inside. */
    red_src = me + 1;
    CALL(shmem_long_sum_reduce, SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
    FAIL_IF(red_dst != (long)npes * (npes + 1) / 2, "sum_reduce = %ld, expected %ld", red_dst,
            (long)npes * (npes + 1) / 2);
    int root = npes - 1;
    for (int j = 0; j < 4; j++)
        bc_src[j] = me * 10L + j;
    CALL(shmem_long_broadcast, SHMEM_TEAM_WORLD, bc_dst, bc_src, 4, root);
    for (int j = 0; j < 4; j++)
        FAIL_IF(bc_dst[j] != root * 10L + j, "broadcast: dest[%d] = %ld, expected %ld", j,
                bc_dst[j], root * 10L + j);
    fc_src[0] = me;
    fc_src[1] = -me;
    CALL(shmem_fcollectmem, SHMEM_TEAM_WORLD, fc_dst, fc_src, sizeof(fc_src));
    for (int p = 0; p < npes; p++)
        FAIL_IF(fc_dst[2 * p] != p || fc_dst[2 * p + 1] != -p,
                "fcollect: PE %d's block is {%d, %d}", p, fc_dst[2 * p], fc_dst[2 * p + 1]);
    CALL(shmem_team_sync, SHMEM_TEAM_WORLD);
    CALL0(shmem_sync_all);

    /* Queries and completion: shmem_team_ptr and shmem_pe_quiet forward
     * inside Shoal; pcontrol is variadic. */
    FAIL_IF(CALL(shmem_ptr, slot, me) != slot, "shmem_ptr(slot, me) is not slot");
    FAIL_IF(shmem_team_ptr(SHMEM_TEAM_WORLD, slot, me) != slot, "shmem_team_ptr is not slot");
    shmem_pe_quiet(&right, 1);
    CALL(shmem_ctx_pe_quiet, SHMEM_CTX_DEFAULT, &right, 1);
    CALL0(shmem_quiet);
    CALL(shmem_pcontrol, 0);
    CALL(shmem_pcontrol, 1);
    pshmem_barrier_all();

    CALL(shmem_free, arr);
    CALL(shmem_free, ctr);
    CALL(shfree, word);
    pshmem_free(direct);
    CALL(shmem_free, slot);
    CALL0(shmem_barrier_all);
    CALL0(shmem_finalize); /* must not count a barrier */

    const long *counts = counts_of();
    int bad = 0;
    long calls = 0;
    for (int id = 0; id < PROF_NCOUNTED; id++) {
        calls += want[id];
        if (counts[id] != want[id]) {
            fprintf(stderr,
                    "prof_calls: PE %d: the program called %s %ld times; the tool counted "
                    "%ld\n",
                    me, names[id], want[id], counts[id]);
            bad = 1;
        }
    }
    if (!bad && me == 0)
        printf("prof_calls: %d PEs: the tool counted exactly the program's %ld calls to %d "
               "routines\n",
               npes, calls, PROF_NCOUNTED);
    return bad;
}
