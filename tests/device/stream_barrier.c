/*
 * Barriers on a stream without a kernel (shmemx_barrier_all_on_stream,
 * shmemx_sync_all_on_stream): for 200 rounds every PE puts a value of the
 * round into its slot of every PE's device heap and host heap on its
 * stream, passes the barrier on the stream, then reads all the slots on
 * its stream: each must hold its writer's value of this round. Slots are
 * double-buffered by the round's parity, so a PE one barrier ahead cannot
 * overwrite what a slower one has still to read. Also checks which barrier
 * shmemx_dev_create chose for shmemx_dev_barrier_all_on_stream:
 *   argv[1] "shared": the stand-in's one GPU is shared without MPS: the
 *                     host path (1) from 2 PEs on, a kernel (0) at 1 PE;
 *   argv[1] "mps":    CUDA_MPS_PIPE_DIRECTORY names a folder with a control
 *                     pipe: a kernel (0);
 *   argv[1] "any":    either (a GPU, where the setup is what the machine has).
 * Runs on the stand-in driver (streams act at once there) and on a GPU.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdlib.h>
#include <string.h>

#include "../api/check.h"

#define ROUNDS 200
#define MAX_PES 64

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "shared";
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(npes <= MAX_PES, "at most 64 PEs");

    CHECK(shmemx_dev_sync_on_host() == -1, "no choice before shmemx_dev_create");
    shmemx_dev_t dv;
    CHECK(shmemx_dev_create(&dv) == 0, "shmemx_dev_create");
    const int want = strcmp(mode, "mps") == 0 || npes == 1 ? 0 : 1;
    if (strcmp(mode, "any") != 0)
        CHECK_VAL("shmemx_dev_sync_on_host()", 0, shmemx_dev_sync_on_host(), want);
    else
        CHECK(shmemx_dev_sync_on_host() >= 0, "a choice after shmemx_dev_create");

    long *dslot = shmemx_malloc_device(2 * MAX_PES * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    long *hslot = shmem_calloc(2 * MAX_PES, sizeof(long));
    uint64_t *done = shmem_calloc(1, sizeof(uint64_t));
    CHECK(dslot != NULL && hslot != NULL && done != NULL, "allocations");
    static long mine[ROUNDS], dgot[2 * MAX_PES], hgot[2 * MAX_PES];
    shmem_barrier_all();

    for (int r = 0; r < ROUNDS; r++) {
        const int half = (r % 2) * MAX_PES;
        mine[r] = (long)(r + 1) * 1000 + me;
        for (int p = 0; p < npes; p++) {
            CHECK(shmemx_putmem_on_stream(&dslot[half + me], &mine[r], sizeof(long), p, NULL) == 0,
                  "put into a device heap on the stream");
            CHECK(shmemx_putmem_on_stream(&hslot[half + me], &mine[r], sizeof(long), p, NULL) == 0,
                  "put into a host heap on the stream");
        }
        if (r % 2 == 0)
            CHECK(shmemx_barrier_all_on_stream(NULL) == 0, "barrier_all on the stream");
        else
            CHECK(shmemx_sync_all_on_stream(NULL) == 0, "sync_all on the stream");
        CHECK(shmemx_getmem_on_stream(dgot, &dslot[half], (size_t)npes * sizeof(long), me, NULL) ==
                  0,
              "read the device slots on the stream");
        CHECK(shmemx_getmem_on_stream(hgot, &hslot[half], (size_t)npes * sizeof(long), me, NULL) ==
                  0,
              "read the host slots on the stream");
        /* The host learns through the stream that the reads are done. */
        CHECK(shmemx_signal_op_on_stream(done, (uint64_t)r + 1, SHMEM_SIGNAL_SET, me, NULL) == 0,
              "signal the host");
        shmem_signal_wait_until(done, SHMEM_CMP_GE, (uint64_t)r + 1);
        for (int p = 0; p < npes; p++) {
            const long expect = (long)(r + 1) * 1000 + p;
            CHECK_VAL("a device slot after the stream barrier", p, dgot[p], expect);
            CHECK_VAL("a host slot after the stream barrier", p, hgot[p], expect);
        }
    }

    shmem_barrier_all();
    if (me == 0)
        printf("PASS stream_barrier (%s) at %d PEs: %d rounds\n", mode, npes, ROUNDS);
    shmem_finalize();
    return 0;
}
