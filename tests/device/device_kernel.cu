/*
 * Kernels and the device heap (built with nvcc; needs a GPU, else
 * run_gpu.sh skips it): a kernel on each PE writes its right neighbour's
 * device block through shmem_ptr, and another reads its left neighbour's;
 * every value is checked with the CUDA runtime (cudaMemcpy), not through
 * Shoal, so Shoal's own copies are checked independently too: a host
 * shmem_putmem into the right PE's device block is read back by that PE
 * with cudaMemcpy. Several PEs may share one GPU.
 */
#include <shmem.h>
#include <shmemx.h>

#include <cuda_runtime.h>

#include "../api/check.h"

#define N (1 << 16)

__global__ void fill(long *p, int n, long base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = base + i;
}

__global__ void copy(long *to, const long *from, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        to[i] = from[i];
}

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        CHECK(e_ == cudaSuccess, "%s: %s", #call, cudaGetErrorString(e_));                         \
    } while (0)

static long host[N], src[N];

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    long *a = (long *)shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    long *b = (long *)shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    CHECK(a != NULL && b != NULL, "device blocks %p %p", (void *)a, (void *)b);
    size_t total, used, backed;
    int dev;
    shmemx_device_heap_info(&total, &used, &backed, &dev);
    CUDA_OK(cudaSetDevice(dev));

    /* A kernel writes the right PE's block through the peer pointer. */
    long *pr = (long *)shmem_ptr(a, right);
    CHECK(pr != NULL, "shmem_ptr(a, %d) of a local peer's device block", right);
    fill<<<(N + 255) / 256, 256>>>(pr, N, (long)me * 1000000L);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    shmem_barrier_all();
    CUDA_OK(cudaMemcpy(host, a, sizeof(host), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_VAL("own block, written by the left PE's kernel", i, host[i], left * 1000000L + i);

    /* A kernel reads the left PE's block (written by its own left PE). */
    long *local;
    CUDA_OK(cudaMalloc(&local, N * sizeof(long)));
    shmem_barrier_all();
    copy<<<(N + 255) / 256, 256>>>(local, (const long *)shmem_ptr(a, left), N);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(host, local, sizeof(host), cudaMemcpyDeviceToHost));
    const int left2 = (left + npes - 1) % npes;
    for (int i = 0; i < N; i++)
        CHECK_VAL("left PE's block, read by a kernel", i, host[i], left2 * 1000000L + i);

    /* Host put through Shoal (copy engine), read back with the runtime. */
    for (int i = 0; i < N; i++)
        src[i] = (long)me * 7777L + 3 * i;
    shmem_putmem(b, src, sizeof(src), right);
    shmem_barrier_all();
    CUDA_OK(cudaMemcpy(host, b, sizeof(host), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_VAL("own block, put by the left PE from the host", i, host[i], left * 7777L + 3 * i);

    /* Host get from a peer's device block written by the runtime. */
    for (int i = 0; i < N; i++)
        src[i] = (long)me * 31L - i;
    CUDA_OK(cudaMemcpy(b, src, sizeof(src), cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize());
    shmem_barrier_all();
    shmem_getmem(host, b, sizeof(host), right);
    for (int i = 0; i < N; i++)
        CHECK_VAL("right PE's block, got from the host", i, host[i], right * 31L - i);
    shmem_barrier_all();

    CUDA_OK(cudaFree(local));
    shmem_free(b);
    shmem_free(a);
    sht_pass("device_kernel");
    shmem_finalize();
    return 0;
}
