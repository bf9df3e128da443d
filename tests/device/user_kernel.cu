/*
 * A user's program as the device API promises it can be built: this file
 * compiled by plain `nvcc -c` (no -rdc, no device link step) with warnings
 * as errors, and linked by the C compiler against libshoal and the CUDA
 * runtime (run_user_kernel.sh). It runs where there is a GPU: a ring of
 * puts from a kernel, checked on the host.
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include <stdio.h>

__global__ void ring(shmemx_dev_t d, long *x)
{
    const int me = shmemx_dev_my_pe(d), right = (me + 1) % shmemx_dev_n_pes(d);
    shmemx_dev_long_p(d, x, 100 + me, right);
    shmemx_dev_barrier_all(d);
}

int main(void)
{
    shmem_init();
    shmemx_dev_t d;
    if (shmemx_dev_create(&d) != 0)
        return 77; /* no GPU: the build is what this program checks there */
    long *x = (long *)shmemx_malloc_device(sizeof(long), SHMEMX_DEVICE_DEFAULT);
    ring<<<1, 1>>>(d, x);
    long got = -1;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(&got, x, sizeof(got), cudaMemcpyDeviceToHost) != cudaSuccess)
        return 1;
    const int left = (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
    shmem_barrier_all();
    if (got != 100 + left) {
        printf("FAIL: PE %d got %ld from its left PE, expected %d\n", shmem_my_pe(), got,
               100 + left);
        return 1;
    }
    shmem_finalize();
    return 0;
}
