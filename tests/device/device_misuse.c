/*
 * Host code may put to and get from device memory, but not use it for
 * atomics, signals or waits (the host cannot load GPU memory): each ends
 * the job with a message naming the call and the argument instead of a
 * crash (waits on one variable are not checked: core/wait.c says why). argv[1]: amo, signal or
 * wait. Run by run_device_errors.sh against the fake driver (tests/device/fake_cuda.c), which would
 * let the host load it, so only the library's own check stands between the call and the crash it
 * would be on a GPU.
 */
#include <shmem.h>
#include <shmemx.h>

#include <string.h>

#include "../api/check.h"

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    long *d = shmemx_malloc_device(64 * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    CHECK(d != NULL, "a device block");
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "amo") == 0)
        shmem_long_atomic_add(d, 1, (me + 1) % npes);
    else if (strcmp(mode, "signal") == 0)
        shmem_putmem_signal(d + 8, d, 8, (uint64_t *)d, 1, SHMEM_SIGNAL_SET, (me + 1) % npes);
    else if (strcmp(mode, "wait") == 0)
        shmem_long_wait_until_all(d, 4, NULL, SHMEM_CMP_EQ, 1);
    printf("FAIL: %s on device memory returned\n", mode);
    shmem_finalize();
    return 1;
}
