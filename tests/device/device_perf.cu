/*
 * Device-side numbers for the notes (GPU only; gpu-check.sh runs it at 2 PEs
 * sharing the GPU, or on two GPUs where there are):
 *   - put+signal latency from a kernel: 8 bytes + a SET signal to PE 1,
 *     PE 1's kernel answers the same way; half the round trip;
 *   - putmem bandwidth at 1 MiB and 64 MiB from a kernel (every block of
 *     the grid copies its share with shmemx_dev_putmem_block, then quiet)
 *     and from a stream (shmemx_putmem_on_stream, the copy engine);
 *   - device barrier_all time (one thread per PE, many in a row);
 *   - the in-process figure: two blocks of PE 0 ping-pong put+signal through
 *     the peer path (to PE 0 itself): the hardware's latency, with no
 *     second process and no time slicing.
 * It says whether its PEs share one GPU (PCI bus ids) and whether an MPS
 * control pipe is there; numbers between PEs of one GPU without MPS are
 * labelled time-sliced (each hand-off waits for the driver's ~1 ms slice).
 * The kernel bandwidth test runs 2 blocks per SM. Every transfer's last
 * word is checked on the receiving PE, so a number comes only from
 * transfers that arrived.
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PINGS 2000
#define BARRIERS 2000

__global__ void pingpong(shmemx_dev_t d, uint64_t *data, uint64_t *sig, int n)
{
    const int me = shmemx_dev_my_pe(d), peer = 1 - me;
    for (int i = 1; i <= n; i++) {
        if (me == 0) {
            shmemx_dev_putmem_signal(d, data, &data[1], 8, sig, (uint64_t)i, SHMEM_SIGNAL_SET,
                                     peer);
            shmemx_dev_signal_wait_until(d, sig, SHMEM_CMP_GE, (uint64_t)i);
        } else {
            shmemx_dev_signal_wait_until(d, sig, SHMEM_CMP_GE, (uint64_t)i);
            shmemx_dev_putmem_signal(d, data, &data[1], 8, sig, (uint64_t)i, SHMEM_SIGNAL_SET,
                                     peer);
        }
    }
}

/* Block 0 and block 1 of one PE, through the peer path to the PE itself. */
__global__ void inproc(shmemx_dev_t d, uint64_t *data, uint64_t *sig, int n)
{
    const int me = shmemx_dev_my_pe(d);
    if (threadIdx.x != 0)
        return;
    for (int i = 1; i <= n; i++) {
        if (blockIdx.x == 0) {
            shmemx_dev_putmem_signal(d, data, &data[1], 8, &sig[0], (uint64_t)i, SHMEM_SIGNAL_SET,
                                     me);
            shmemx_dev_signal_wait_until(d, &sig[1], SHMEM_CMP_GE, (uint64_t)i);
        } else {
            shmemx_dev_signal_wait_until(d, &sig[0], SHMEM_CMP_GE, (uint64_t)i);
            shmemx_dev_putmem_signal(d, &data[2], &data[3], 8, &sig[1], (uint64_t)i,
                                     SHMEM_SIGNAL_SET, me);
        }
    }
}

__global__ void put_bw(shmemx_dev_t d, char *dst, const char *src, size_t bytes, int pe)
{
    const size_t share = (bytes / gridDim.x + 15) & ~(size_t)15;
    const size_t off = share * blockIdx.x;
    if (off < bytes)
        shmemx_dev_putmem_block(d, dst + off, src + off, off + share > bytes ? bytes - off : share,
                                pe);
    if (threadIdx.x == 0)
        shmemx_dev_quiet(d);
}

__global__ void barriers(shmemx_dev_t d, int n)
{
    for (int i = 0; i < n; i++)
        shmemx_dev_barrier_all(d);
}

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "device_perf: PE %d: %s: %s\n", shmem_my_pe(), #call,                  \
                    cudaGetErrorString(e_));                                                       \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

static float timed(cudaStream_t s, cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    CUDA_OK(cudaEventRecord(b, s));
    CUDA_OK(cudaEventSynchronize(b));
    CUDA_OK(cudaEventElapsedTime(&ms, a, b));
    return ms;
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    shmemx_dev_t d;
    if (npes != 2 || shmemx_dev_create(&d) != 0) {
        if (me == 0)
            fprintf(stderr, "device_perf: needs 2 PEs and a GPU\n");
        shmem_finalize();
        return npes != 2 ? 2 : 77;
    }
    size_t t, u, b;
    int dev;
    shmemx_device_heap_info(&t, &u, &b, &dev);
    CUDA_OK(cudaSetDevice(dev));
    cudaStream_t s;
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    const size_t big = (size_t)64 << 20;
    uint64_t *data = (uint64_t *)shmemx_malloc_device(64, SHMEMX_DEVICE_DEFAULT);
    uint64_t *sig = (uint64_t *)shmemx_malloc_device(8, SHMEMX_DEVICE_DEFAULT);
    uint64_t *sig2 = (uint64_t *)shmemx_malloc_device(16, SHMEMX_DEVICE_DEFAULT);
    /* Do the PEs share a GPU (PCI bus ids), and is an MPS control pipe there? */
    char *ids = (char *)shmem_calloc(3, 32);
    if (ids == NULL || cudaDeviceGetPCIBusId(ids + 64, 32, dev) != cudaSuccess)
        shmem_global_exit(1);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, ids, ids + 64, 32);
    const int shared = strcmp(ids, ids + 32) == 0;
    const char *pipe_dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    char control[512];
    snprintf(control, sizeof(control), "%s/control",
             pipe_dir != NULL ? pipe_dir : "/tmp/nvidia-mps");
    const int mps = access(control, F_OK) == 0;
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    char *src = (char *)shmemx_malloc_device(big, SHMEMX_DEVICE_DEFAULT);
    char *dst = (char *)shmemx_malloc_device(big, SHMEMX_DEVICE_DEFAULT);
    if (dst == NULL)
        shmem_global_exit(1);
    CUDA_OK(cudaMemset(sig, 0, 8));
    CUDA_OK(cudaMemset(sig2, 0, 16));
    CUDA_OK(cudaMemset(src, me + 1, big));
    CUDA_OK(cudaDeviceSynchronize());
    shmem_barrier_all();

    /* Latency. */
    CUDA_OK(cudaEventRecord(e0, s));
    pingpong<<<1, 1, 0, s>>>(d, data, sig, PINGS);
    const float ping_ms = timed(s, e0, e1);
    shmem_barrier_all();

    /* The in-process figure: two blocks of PE 0. */
    float inproc_ms = 0;
    if (me == 0) {
        CUDA_OK(cudaEventRecord(e0, s));
        inproc<<<2, 32, 0, s>>>(d, data, sig2, PINGS);
        inproc_ms = timed(s, e0, e1);
    }
    shmem_barrier_all();

    /* Bandwidth from a kernel (2 blocks per SM) and from a stream, PE 0 -> PE 1. */
    const unsigned blocks = 2u * (unsigned)sms;
    const size_t sizes[] = {(size_t)1 << 20, big};
    float kernel_ms[2] = {0, 0}, stream_ms[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        const int reps = k == 0 ? 50 : 5;
        if (me == 0) {
            put_bw<<<blocks, 1024, 0, s>>>(d, dst, src, sizes[k], 1); /* warm-up */
            CUDA_OK(cudaEventRecord(e0, s));
            for (int r = 0; r < reps; r++)
                put_bw<<<blocks, 1024, 0, s>>>(d, dst, src, sizes[k], 1);
            kernel_ms[k] = timed(s, e0, e1) / reps;
            CUDA_OK(cudaEventRecord(e0, s));
            for (int r = 0; r < reps; r++)
                if (shmemx_putmem_on_stream(dst, src, sizes[k], 1, s) != 0)
                    shmem_global_exit(1);
            stream_ms[k] = timed(s, e0, e1) / reps;
        }
        shmem_barrier_all();
        if (me == 1) {
            char last = 0;
            CUDA_OK(cudaMemcpy(&last, dst + sizes[k] - 1, 1, cudaMemcpyDeviceToHost));
            if (last != 1) {
                fprintf(stderr, "device_perf: PE 1 got %d at the end of %zu bytes, expected 1\n",
                        last, sizes[k]);
                shmem_global_exit(1);
            }
        }
        shmem_barrier_all();
    }

    /* Device barrier. */
    barriers<<<1, 1, 0, s>>>(d, 10);
    CUDA_OK(cudaStreamSynchronize(s));
    shmem_barrier_all();
    CUDA_OK(cudaEventRecord(e0, s));
    barriers<<<1, 1, 0, s>>>(d, BARRIERS);
    const float bar_ms = timed(s, e0, e1);
    shmem_barrier_all();

    if (me == 0) {
        const char *sliced = shared && !mps ? " [time-sliced: 2 PEs on one GPU without MPS]" : "";
        printf("device_perf: 2 PEs, GPU %d (%s), %s, MPS %s\n", dev, ids + 64,
               shared ? "both PEs on this one GPU" : "one GPU each",
               mps ? "control pipe present" : "off");
        printf("  put+signal 8 B from a kernel: %.2f us one way (half of %d round trips)%s\n",
               1e3 * ping_ms / PINGS / 2, PINGS, sliced);
        printf("  in-process put+signal 8 B (two blocks of PE 0): %.2f us one way\n",
               1e3 * inproc_ms / PINGS / 2);
        for (int k = 0; k < 2; k++)
            printf("  putmem %zu MiB: kernel %.1f GB/s, stream %.1f GB/s\n", sizes[k] >> 20,
                   sizes[k] / (kernel_ms[k] * 1e6), sizes[k] / (stream_ms[k] * 1e6));
        printf("  putmem kernel grid: %u blocks of 1024 threads (2 per SM)\n", blocks);
        printf("  device barrier_all: %.2f us each (%d in a row)%s\n", 1e3 * bar_ms / BARRIERS,
               BARRIERS, sliced);
    }
    shmem_finalize();
    return 0;
}
