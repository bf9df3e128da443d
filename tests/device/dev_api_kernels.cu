/*
 * The device API test's steps as CUDA kernels. Compiled with plain
 * `nvcc -c` (no -rdc, nothing device-side linked) and linked by the C
 * compiler with dev_api_main.c against libshoal: what a user's kernel that
 * calls <shmemx_device.h> needs, and nothing more.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "dev_api_steps.h"

/* One kernel per step: step_run with a constant step is that step's body
 * alone, so ptxas compiles eleven small kernels rather than one that holds
 * every step (7.5 MB of PTX, minutes of ptxas). */
template <int STEP> __global__ void step_kernel(shmemx_dev_t d, step_args_t a)
{
    step_run(d, STEP, &a);
}

static const void *const step_kernels[] = {
    (const void *)step_kernel<STEP_RMA>,     (const void *)step_kernel<STEP_TYPED>,
    (const void *)step_kernel<STEP_AMO>,     (const void *)step_kernel<STEP_SIGNAL>,
    (const void *)step_kernel<STEP_BARRIER>, (const void *)step_kernel<STEP_WAIT>,
    (const void *)step_kernel<STEP_EVENT>,   (const void *)step_kernel<STEP_TIMEOUT>,
    (const void *)step_kernel<STEP_BADPTR>,  (const void *)step_kernel<STEP_RANGE>,
    (const void *)step_kernel<STEP_MULTI>};
static_assert(sizeof(step_kernels) / sizeof(step_kernels[0]) == STEP_COUNT,
              "a kernel for every step, in the order of the enum");

static cudaStream_t stream;

static int ensure_stream(void)
{
    return stream != NULL ||
           cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess;
}

extern "C" int dev_launch(shmemx_dev_t d, int step, const step_args_t *a)
{
    if (!ensure_stream())
        return -1;
    /* Thread-scope steps run on one thread; warp and block ones on 32 / 128. */
    const unsigned threads = a->scope == SCOPE_WARP ? 32 : a->scope == SCOPE_BLOCK ? 128 : 1;
    if (step < 0 || step >= STEP_COUNT) {
        fprintf(stderr, "launching step %d: no such step\n", step);
        return -1;
    }
    step_args_t copy = *a;
    void *args[] = {&d, &copy};
    cudaError_t e = cudaLaunchKernel(step_kernels[step], dim3(1), dim3(threads), args, 0, stream);
    if (e != cudaSuccess) {
        fprintf(stderr, "launching step %d: %s\n", step, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* The barrier step through the collective launch (its one block is
 * resident on every GPU); a grid that cannot be resident is refused. */
extern "C" int dev_collective(shmemx_dev_t d, const step_args_t *a)
{
    step_args_t copy = *a;
    void *args[] = {&d, &copy};
    if (!ensure_stream())
        return -1;
    if (shmemx_dev_collective_launch(step_kernels[STEP_BARRIER], dim3(1), dim3(1), args, 0,
                                     stream) != 0)
        return -1;
    if (cudaStreamSynchronize(stream) != cudaSuccess)
        return -1;
    /* A barrier on the stream between two kernels. */
    if (shmemx_dev_barrier_all_on_stream(d, stream) != 0 ||
        cudaStreamSynchronize(stream) != cudaSuccess)
        return -1;
    /* Far more blocks than any GPU holds at once: refused on every PE, no hang. */
    return shmemx_dev_collective_launch(step_kernels[STEP_BARRIER], dim3(1u << 24), dim3(1024),
                                        args, 0, stream) == -1
               ? 0
               : -2;
}

extern "C" int dev_finish(void)
{
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) {
        fprintf(stderr, "a step kernel failed: %s\n", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

extern "C" int dev_on_gpu(void)
{
    return 1;
}
