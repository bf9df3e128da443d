/*
 * Stream-ordered calls (shmemx_*_on_stream) between the PEs of a host, on
 * the default stream: a put into the right PE's device heap and one into
 * its host heap with a signal (ADD, host memory: a host function), a SET
 * signal into its device heap that the right PE's stream waits for before
 * it signals its own host (so the host sees the stream got past the wait),
 * and the refusals that return -1 instead of ending the job. A stream wait
 * on a host-memory word that another PE satisfies a second later (the
 * stand-in ends the process if a host function blocks meanwhile). Runs on
 * the stand-in driver (streams there act at once) and on a GPU.
 *
 * argv[1] "no64" (with the stand-in's FAKE_CUDA_MODE=no64memops): a device
 * without 64-bit stream memory operations: stream signals and waits on
 * device memory are refused with -1 (and a message naming the attribute),
 * host-memory ones still work.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/check.h"

#define N 4096

/* PE 0's stream waits for a host word (every comparison goes through the
 * waiter's gate) that PE 1 sets a second later; PE 0 then learns through
 * its own stream that the wait passed. */
static void host_word_wait(uint64_t *hsig, int me, int npes)
{
    if (npes < 2)
        return;
    if (me == 0) {
        CHECK(shmemx_signal_wait_until_on_stream(&hsig[2], SHMEM_CMP_GT, 6, NULL) == 0,
              "a stream wait on a host word");
        CHECK(shmemx_signal_op_on_stream(&hsig[3], 1, SHMEM_SIGNAL_SET, me, NULL) == 0,
              "a host signal after it");
        shmem_signal_wait_until(&hsig[3], SHMEM_CMP_EQ, 1);
        CHECK_VAL("the host word the stream waited for", 0, (long)hsig[2], 7L);
    } else if (me == 1) {
        sleep(1);
        shmem_uint64_p(&hsig[2], 7, 0);
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    const int no64 = argc > 1 && strcmp(argv[1], "no64") == 0;
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static long src[N], got[N];

    long *ddata = shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    uint64_t *dsig = shmemx_malloc_device(sizeof(uint64_t), SHMEMX_DEVICE_DEFAULT);
    long *hdata = shmem_calloc(N, sizeof(long));
    uint64_t *hsig = shmem_calloc(4, sizeof(uint64_t));
    CHECK(ddata != NULL && dsig != NULL && hdata != NULL && hsig != NULL, "allocations");
    static const uint64_t zero = 0;
    shmem_putmem(dsig, &zero, sizeof(zero), me);
    for (int i = 0; i < N; i++)
        src[i] = me * 1000000L + i;
    shmem_barrier_all();

    if (no64) {
        CHECK(shmemx_signal_op_on_stream(dsig, 5, SHMEM_SIGNAL_SET, right, NULL) == -1,
              "without 64-bit stream memory operations a SET into device memory is refused");
        CHECK(shmemx_signal_wait_until_on_stream(dsig, SHMEM_CMP_GE, 5, NULL) == -1,
              "and so is a wait on device memory");
        CHECK(shmemx_putmem_signal_on_stream(hdata, src, sizeof(src), &hsig[0], 1, SHMEM_SIGNAL_ADD,
                                             right, NULL) == 0,
              "a put with a host-memory signal still works");
        shmem_signal_wait_until(&hsig[0], SHMEM_CMP_GE, 1);
        host_word_wait(hsig, me, npes);
        shmem_barrier_all();
        if (me == 0)
            printf("PASS device_stream (no 64-bit stream memory operations) at %d PEs\n", npes);
        shmem_finalize();
        return 0;
    }

    host_word_wait(hsig, me, npes);

    CHECK(shmemx_putmem_on_stream(ddata, src, sizeof(src), right, NULL) == 0, "put on stream");
    CHECK(shmemx_putmem_signal_on_stream(hdata, src, sizeof(src), &hsig[0], 1, SHMEM_SIGNAL_ADD,
                                         right, NULL) == 0,
          "put with a host-memory ADD signal on stream");
    CHECK(shmemx_signal_op_on_stream(dsig, 5, SHMEM_SIGNAL_SET, right, NULL) == 0,
          "SET signal into device memory on stream");
    CHECK(shmemx_quiet_on_stream(NULL) == 0, "quiet on stream");
    /* This PE's stream waits for the left PE's SET, then tells this host. */
    CHECK(shmemx_signal_wait_until_on_stream(dsig, SHMEM_CMP_GE, 5, NULL) == 0, "wait on stream");
    CHECK(shmemx_signal_op_on_stream(&hsig[1], 7, SHMEM_SIGNAL_SET, me, NULL) == 0,
          "host signal after the stream wait");

    shmem_signal_wait_until(&hsig[0], SHMEM_CMP_GE, 1);
    for (int i = 0; i < N; i++)
        CHECK_VAL("host heap data with its stream signal", i, hdata[i], left * 1000000L + i);
    shmem_signal_wait_until(&hsig[1], SHMEM_CMP_EQ, 7);
    shmem_barrier_all(); /* every PE's device put was queued before its signals */
    shmem_getmem(got, ddata, sizeof(got), me);
    for (int i = 0; i < N; i++)
        CHECK_VAL("device heap data put on the left PE's stream", i, got[i], left * 1000000L + i);

    /* Refusals: -1 and a message, the job goes on. */
    CHECK(shmemx_signal_op_on_stream(dsig, 1, SHMEM_SIGNAL_ADD, right, NULL) == -1,
          "ADD into device memory from a stream is refused");
    CHECK(shmemx_signal_wait_until_on_stream(dsig, SHMEM_CMP_LT, 1, NULL) == -1,
          "a stream wait for < on device memory is refused");
    long *private_buf = malloc(64);
    CHECK(shmemx_putmem_on_stream(private_buf, src, 64, right, NULL) == -1,
          "a put to memory that is not symmetric is refused");
    CHECK(shmemx_putmem_on_stream(ddata, src, 8, npes, NULL) == -1, "a PE out of range is refused");
    CHECK(shmemx_signal_op_on_stream(&hsig[0], 1, 99, right, NULL) == -1, "a bad sig_op");
    free(private_buf);

    shmem_barrier_all();
    if (me == 0)
        printf("PASS device_stream at %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
