/*
 * Stream-ordered calls (shmemx_*_on_stream) between the PEs of a host, on
 * the default stream: a put into the right PE's device heap and one into
 * its host heap with a signal (ADD, host memory: a host function), a SET
 * signal into its device heap that the right PE's stream waits for before
 * it signals its own host (so the host sees the stream got past the wait),
 * and the refusals that return -1 instead of ending the job. Runs on the
 * stand-in driver (streams there act at once) and on a GPU.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdlib.h>

#include "../api/check.h"

#define N 4096

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    static long src[N], got[N];

    long *ddata = shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    uint64_t *dsig = shmemx_malloc_device(sizeof(uint64_t), SHMEMX_DEVICE_DEFAULT);
    long *hdata = shmem_calloc(N, sizeof(long));
    uint64_t *hsig = shmem_calloc(2, sizeof(uint64_t));
    CHECK(ddata != NULL && dsig != NULL && hdata != NULL && hsig != NULL, "allocations");
    static const uint64_t zero = 0;
    shmem_putmem(dsig, &zero, sizeof(zero), me);
    for (int i = 0; i < N; i++)
        src[i] = me * 1000000L + i;
    shmem_barrier_all();

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
