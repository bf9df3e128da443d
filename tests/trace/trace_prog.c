/*
 * A program with a known amount of traffic, for the tracer and profiler
 * tests (check_trace.py mirrors these numbers). Each PE, with its right
 * neighbour R = (me + 1) % npes:
 *   NPUT  shmem_putmem of PUT_BYTES to R
 *   NGET  shmem_getmem of GET_BYTES from R
 *   NAMO  AMOs adding 1 to R: shmem_long_atomic_fetch_add, the last one
 *         shmem_long_atomic_inc (traced under its own name)
 *   NSIG  rounds of shmem_putmem_signal (SIG_BYTES, SHMEM_SIGNAL_SET round)
 *         to R, then shmem_signal_wait_until(GE round) for its left
 *         neighbour's, then shmem_barrier_all
 *   1 shmem_malloc, 1 shmem_free, 2 more shmem_barrier_all
 *   the AMOs inside a user range "compute" (shmemx_trace_begin/end), and
 *   a range "step 1" (its name built in a buffer that is then overwritten)
 *   one shmem_quiet and one shmem_fence
 *   a team of every PE split from the world (shmem_team_split_strided)
 *   and one shmem_team_sync on it
 * and, between shmem_pcontrol(0) and shmem_pcontrol(1), NHIDDEN puts of
 * HIDDEN_BYTES that no trace or profile may show. A shmem_pcontrol(2) in
 * the middle flushes. Every value that crossed is checked.
 */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPUT 10
#define PUT_BYTES 64
#define NGET 5
#define GET_BYTES 32
#define NAMO 4
#define NSIG 3
#define SIG_BYTES 16
#define NHIDDEN 7
#define HIDDEN_BYTES 1000

static uint64_t sig;
static long counter;
static unsigned char sig_data[NSIG][SIG_BYTES];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL: PE %d: ", me);                                                           \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            fflush(stdout);                                                                        \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *buf = shmem_malloc(HIDDEN_BYTES);
    unsigned char src[HIDDEN_BYTES], got[GET_BYTES];
    CHECK(buf != NULL, "shmem_malloc failed");
    memset(buf, 0, HIDDEN_BYTES);
    shmem_barrier_all();

    for (int i = 0; i < NPUT; i++) {
        memset(src, me * 16 + i, PUT_BYTES);
        shmem_putmem(buf, src, PUT_BYTES, right);
    }
    shmem_barrier_all();
    /* The last put from the left neighbour is here. */
    CHECK(buf[0] == (unsigned char)(left * 16 + NPUT - 1), "buf[0] = %d, expected %d", buf[0],
          left * 16 + NPUT - 1);
    for (int i = 0; i < NGET; i++) {
        shmem_getmem(got, buf, GET_BYTES, right);
        CHECK(got[0] == (unsigned char)(me * 16 + NPUT - 1), "got %d from PE %d", got[0], right);
    }
    shmem_pcontrol(2); /* flushes the records so far */
    shmemx_trace_begin("compute");
    for (int i = 0; i < NAMO - 1; i++)
        shmem_long_atomic_fetch_add(&counter, 1, right);
    shmem_long_atomic_inc(&counter, right);
    shmemx_trace_end("compute");
    char step[16];
    snprintf(step, sizeof(step), "step %d", 1);
    shmemx_trace_begin(step);
    memset(step, 'x', sizeof(step) - 1); /* the range keeps its own copy of the name */
    shmem_quiet();
    shmem_fence();
    shmemx_trace_end(NULL);
    shmem_team_t all;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &all) == 0,
          "shmem_team_split_strided failed");
    CHECK(shmem_team_sync(all) == 0, "shmem_team_sync failed");
    shmem_team_destroy(all);

    shmem_pcontrol(0);
    for (int i = 0; i < NHIDDEN; i++)
        shmem_putmem(buf, src, HIDDEN_BYTES, right);
    shmem_pcontrol(1);

    for (int r = 0; r < NSIG; r++) {
        unsigned char data[SIG_BYTES];
        memset(data, 100 + me + r, SIG_BYTES);
        shmem_putmem_signal(sig_data[r], data, SIG_BYTES, &sig, (uint64_t)r + 1, SHMEM_SIGNAL_SET,
                            right);
        shmem_signal_wait_until(&sig, SHMEM_CMP_GE, (uint64_t)r + 1);
        CHECK(sig_data[r][0] == (unsigned char)(100 + left + r), "signal data %d, expected %d",
              sig_data[r][0], 100 + left + r);
        shmem_barrier_all();
    }
    CHECK(counter == NAMO, "counter = %ld, expected %d", counter, NAMO);
    shmem_free(buf);
    printf("PE %d done\n", me);
    shmem_finalize();
    return 0;
}
