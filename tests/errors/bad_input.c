/*
 * Programs that pass bad input to the library, one mode per argv[1]. The
 * driver (run_bad_input.sh) checks that each ends the job with an error
 * naming the call and the argument, instead of corrupting memory or hanging.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

static long global_target;

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long local = 1;

    if (strcmp(mode, "before_init") == 0) {
        shmem_long_p(&global_target, 1, 0);
        return 0;
    }
    if (strncmp(mode, "debug_", 6) == 0)
        setenv("SHMEM_DEBUG", "1", 1); /* the checks of the debug mode */
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *heap = shmem_malloc(64 * sizeof(long));

    if (strcmp(mode, "nonsymmetric") == 0) {
        long stack_var = 0;
        shmem_long_put(&stack_var, &local, 1, (me + 1) % npes);
    } else if (strcmp(mode, "pe_range") == 0) {
        shmem_long_put(heap, &local, 1, npes);
    } else if (strcmp(mode, "negative_pe") == 0) {
        shmem_long_atomic_add(&global_target, 1, -1);
    } else if (strcmp(mode, "inc_pe") == 0) { /* named as called, not as the add it is */
        shmem_long_atomic_inc(&global_target, -1);
    } else if (strcmp(mode, "ctx_fetch_inc_pe") == 0) {
        shmem_ctx_int_atomic_fetch_inc(SHMEM_CTX_DEFAULT, (int *)&global_target, npes + 3);
    } else if (strcmp(mode, "overflow") == 0) {
        /* Runs from the allocation to past the end of the symmetric heap. */
        size_t total, used, largest;
        shmemx_heap_info(&total, &used, &largest);
        char *buf = calloc(1, total + 4096);
        shmem_putmem(heap, buf, total + 4096, (me + 1) % npes);
    } else if (strcmp(mode, "debug_collect_overflow") == 0) {
        /* An 80-byte dest for a collect of npes x 80 bytes. */
        static char src[80];
        char *dest = shmem_malloc(80);
        shmem_collectmem(SHMEM_TEAM_WORLD, dest, src, sizeof src);
    } else if (strcmp(mode, "debug_broadcast_overflow") == 0) {
        static char src[200];
        char *dest = shmem_malloc(80);
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, src, sizeof src, 0);
    } else if (strcmp(mode, "reduce_past_heap") == 0) {
        /* The byte count that shmem_putmem refuses, as a reduction's nreduce. */
        size_t total, used, largest;
        shmemx_heap_info(&total, &used, &largest);
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, heap, heap, total / sizeof(long) + 512);
    } else if (strcmp(mode, "reduce_team_invalid") == 0) {
        shmem_long_sum_reduce(SHMEM_TEAM_INVALID, heap, heap, 1);
    } else if (strcmp(mode, "garbage_team") == 0) {
        /* A handle that points at memory the library never made a team in. */
        long *garbage = malloc(64);
        memset(garbage, 0x5a, 64);
        shmem_team_sync((shmem_team_t)garbage);
    } else if (strcmp(mode, "team_destroy_twice") == 0) {
        shmem_team_t team;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team) != 0) {
            fprintf(stderr, "FAIL: shmem_team_split_strided failed\n");
            shmem_global_exit(2);
        }
        shmem_team_destroy(team);
        shmem_team_destroy(team);
    } else if (strcmp(mode, "ctx_destroyed") == 0) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx) != 0) {
            fprintf(stderr, "FAIL: shmem_ctx_create failed\n");
            shmem_global_exit(2);
        }
        shmem_ctx_destroy(ctx);
        shmem_ctx_long_p(ctx, heap, 1, (me + 1) % npes);
    } else if (strcmp(mode, "put_null_source") == 0) {
        shmem_putmem(heap, NULL, 8, (me + 1) % npes);
    } else if (strcmp(mode, "wait_null") == 0) {
        shmem_long_wait_until(NULL, SHMEM_CMP_EQ, 1);
    } else if (strcmp(mode, "wait_nonsymmetric") == 0) {
        /* No peer can ever write it: without the check this waits forever. */
        long stack_var = 0;
        shmem_long_wait_until(&stack_var, SHMEM_CMP_EQ, 1);
    } else if (strcmp(mode, "clear_lock_not_held") == 0) {
        /* The last PE clears a lock it never took, while PE 0 holds it. */
        static long lock;
        if (me == 0)
            shmem_set_lock(&lock);
        shmem_barrier_all();
        if (me == npes - 1)
            shmem_clear_lock(&lock);
        shmem_barrier_all();
        if (me == 0)
            shmem_clear_lock(&lock);
    } else if (strcmp(mode, "lock_ok") == 0) {
        /* Not fatal: every PE takes and clears the lock in turn, by set and by test. */
        static long lock;
        static long count;
        for (int i = 0; i < 20; i++) {
            if (i % 2 == 0)
                shmem_set_lock(&lock);
            else
                while (shmem_test_lock(&lock) != 0)
                    ;
            long seen = shmem_long_g(&count, 0);
            shmem_long_p(&count, seen + 1, 0);
            shmem_quiet();
            shmem_clear_lock(&lock);
        }
        shmem_barrier_all();
        if (me == 0 && count != 20L * npes) {
            fprintf(stderr, "FAIL: the lock let %ld of %ld increments through\n", count,
                    20L * npes);
            shmem_global_exit(2);
        }
        shmem_free(heap);
        shmem_finalize();
        return 0;
    } else if (strcmp(mode, "malloc_mismatch") == 0) {
        shmem_malloc(me == npes - 1 ? 2048 : 1024);
    } else if (strcmp(mode, "bad_cmp") == 0) {
        shmem_long_wait_until(heap, 42, 0);
    } else if (strcmp(mode, "bad_free") == 0) {
        shmem_free(heap + 1);
    } else if (strcmp(mode, "misaligned_amo") == 0) {
        shmem_long_atomic_add((long *)((char *)heap + 4), 1, 0);
    } else if (strcmp(mode, "out_of_heap") == 0) {
        /* Not fatal: NULL on every PE and one log line, then the job goes on. */
        /* More than the heap may grow to (SHOAL_SYMMETRIC_SIZE_MAX, 64G by default). */
        void *p = shmem_malloc((size_t)1 << 46);
        if (p != NULL) {
            fprintf(stderr, "FAIL: oversized shmem_malloc returned %p\n", p);
            shmem_global_exit(2);
        }
        void *q = shmem_malloc(128);
        if (q == NULL) {
            fprintf(stderr, "FAIL: heap unusable after a failed allocation\n");
            shmem_global_exit(2);
        }
        shmem_free(q);
        shmem_free(heap);
        shmem_finalize();
        return 0;
    } else if (strcmp(mode, "unknown_hint") == 0 || strcmp(mode, "bad_align") == 0) {
        /* Not fatal: a hint Shoal does not know allocates (logged once at
         * info level); a bad alignment gives NULL on every PE (one error). */
        for (int i = 0; i < 3; i++) {
            void *p = mode[0] == 'u' ? shmem_malloc_with_hints(64, 1L << 20)
                                     : shmem_align(i == 0 ? 3 : 0, 64);
            if ((mode[0] == 'u') != (p != NULL)) {
                fprintf(stderr, "FAIL: mode %s call %d returned %p\n", mode, i, p);
                shmem_global_exit(2);
            }
            shmem_free(p);
        }
        shmem_free(heap);
        shmem_finalize();
        return 0;
    } else if (strcmp(mode, "outside_set") == 0) {
        /* Not fatal (unless SHMEM_DEBUG): PEs 1.. are outside the active set
         * {0} and return at once; one warning per call site, here two. */
        static long psync[SHMEM_BARRIER_SYNC_SIZE];
        for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
            psync[i] = SHMEM_SYNC_VALUE;
        shmem_barrier_all();
        for (int i = 0; i < 3; i++)
            shmem_barrier(0, 0, 1, psync);
        shmem_barrier(0, 0, 1, psync);
        shmem_free(heap);
        shmem_finalize();
        return 0;
    } else {
        fprintf(stderr, "unknown mode '%s'\n", mode);
        return 2;
    }
    shmem_barrier_all();
    fprintf(stderr, "FAIL: mode %s was not stopped by the library\n", mode);
    shmem_finalize();
    return 0;
}
