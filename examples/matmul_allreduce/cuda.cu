/*
 * matmul_allreduce, CUDA version: one fused kernel per PE computes
 * C_pe = A_pe x B tile by tile and forms the all-reduced C while later
 * tiles are still computing, through Shoal's device API
 * (<shmemx_device.h>: plain nvcc -c, no -rdc). Shares common.c (inputs,
 * check, report) with host.c.
 *
 * The fused kernel, launched with shmemx_dev_collective_launch (all blocks
 * resident): tile t is owned by PE t % npes, its slot there j = t / npes.
 *  1. Each block computes its tiles (block b: the PE's tiles b, b + B, ...,
 *     starting at an offset by PE so the PEs aim at different owners) and
 *     sends each with one shmemx_dev_putmem_signal_block into the owner's
 *     workspace ws[src][j], signal flags[src][j] = epoch (a new epoch per
 *     run, so nothing is reset between runs).
 *  2. Then each block takes owned slots: it waits until every PE's part of
 *     slot j has arrived (signal_wait_until: acquire, so the data is
 *     there), sums them and puts the sum into slot (me, j) of every PE's
 *     `gathered`.
 * Owners start reducing a tile as soon as its parts have arrived, while
 * other blocks and PEs still compute; the kernel's completion (and a host
 * barrier) makes `gathered` whole on every PE.
 *
 * The unfused baseline in the same run: a kernel computes every tile, a
 * host barrier, then a second kernel reduces each owned tile by reading
 * every PE's tile directly (shmemx_dev_ptr) and puts the sum everywhere.
 * Both are checked exactly against the plain computation on every PE.
 *
 * Several PEs may share one GPU. Under MPS their kernels run at once, each
 * on its share of the SMs. Without MPS the driver time-slices the PEs'
 * contexts (about 1 ms a slice): a block waiting for another PE's tile does
 * not give its slice away (nanosleep included) but spins until the slice
 * ends, so every hand-off between two PEs of one GPU costs about a slice and
 * the fused kernel loses to the unfused one. Correct either way; run such
 * jobs under MPS (nvidia-cuda-mps-control -d) for the numbers.
 *
 *   nvcc -O2 -arch=sm_90 -Xcompiler -fno-threadsafe-statics -I$PREFIX/include -c cuda.cu &&
 *   cc -O2 -c common.c &&
 *   cc cuda.o common.o -L$PREFIX/lib -lshoal -lcudart -o matmul_allreduce_cuda
 *   shoalrun -n 2 ./matmul_allreduce_cuda [-m 512 -n 512 -k 512 -t 64 -r 5]
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" {
#include "common.h"
}

#define THREADS 256

typedef struct {
    int m, n, k, tile, tiles, tiles_per_row, per_owner;
    const double *a, *b;          /* this PE's A_pe and B (device, private) */
    double *cpe, *ws, *owned;     /* device heap */
    double *gathered, *gathered2; /* device heap: [npes][per_owner] tiles */
    uint64_t *flags, *gflags;     /* device heap: [npes][per_owner] */
    uint64_t epoch;
} mm_dev_t;

/* One tile of A_pe x B into c, by every thread of the block. */
__device__ static void tile_compute(const mm_dev_t &s, int t, double *c)
{
    const int r0 = (t / s.tiles_per_row) * s.tile, c0 = (t % s.tiles_per_row) * s.tile;
    const int tt = s.tile * s.tile;
    for (int e = threadIdx.x; e < tt; e += blockDim.x) {
        const int i = r0 + e / s.tile, j = c0 + e % s.tile;
        double sum = 0.0;
        for (int k = 0; k < s.k; k++)
            sum += s.a[(size_t)i * s.k + k] * s.b[(size_t)k * s.n + j];
        c[e] = sum;
    }
    __syncthreads();
}

/* Sums the parts of owned slot j (in ws, or read from every PE's cpe) and
 * puts the sum into slot (me, j) of every PE's `out`. */
__device__ static void reduce_and_share(shmemx_dev_t d, const mm_dev_t &s, int j, int direct,
                                        double *out)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    const size_t tt = (size_t)s.tile * s.tile;
    const int t = j * npes + me;
    double *sum = s.owned + (size_t)j * tt;
    for (size_t e = threadIdx.x; e < tt; e += blockDim.x) {
        double v = 0.0;
        for (int src = 0; src < npes; src++) {
            const double *part =
                direct ? (const double *)shmemx_dev_ptr(d, s.cpe + (size_t)t * tt, src)
                       : s.ws + ((size_t)src * s.per_owner + j) * tt;
            v += part[e];
        }
        sum[e] = v;
    }
    __syncthreads();
    double *slot = out + ((size_t)me * s.per_owner + j) * tt;
    for (int p = 0; p < npes; p++)
        shmemx_dev_putmem_signal_block(d, slot, sum, tt * sizeof(double),
                                       &s.gflags[(size_t)me * s.per_owner + j], s.epoch,
                                       SHMEM_SIGNAL_SET, p);
}

__global__ void mm_fused(shmemx_dev_t d, mm_dev_t s)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    const size_t tt = (size_t)s.tile * s.tile;
    for (int i = blockIdx.x; i < s.tiles; i += gridDim.x) {
        const int t = (i + me * (s.tiles / npes + 1)) % s.tiles;
        const int owner = t % npes, j = t / npes;
        double *c = s.cpe + (size_t)t * tt;
        tile_compute(s, t, c);
        shmemx_dev_putmem_signal_block(d, s.ws + ((size_t)me * s.per_owner + j) * tt, c,
                                       tt * sizeof(double), &s.flags[(size_t)me * s.per_owner + j],
                                       s.epoch, SHMEM_SIGNAL_SET, owner);
    }
    for (int j = blockIdx.x; j < s.per_owner; j += gridDim.x) {
        if (j * npes + me >= s.tiles)
            break;
        if (threadIdx.x == 0)
            for (int src = 0; src < npes; src++)
                shmemx_dev_signal_wait_until(d, &s.flags[(size_t)src * s.per_owner + j],
                                             SHMEM_CMP_GE, s.epoch);
        __syncthreads();
        reduce_and_share(d, s, j, 0, s.gathered);
    }
}

__global__ void mm_compute_all(mm_dev_t s)
{
    for (int t = blockIdx.x; t < s.tiles; t += gridDim.x)
        tile_compute(s, t, s.cpe + (size_t)t * s.tile * s.tile);
}

__global__ void mm_reduce_all(shmemx_dev_t d, mm_dev_t s)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    for (int j = blockIdx.x; j < s.per_owner; j += gridDim.x)
        if (j * npes + me < s.tiles)
            reduce_and_share(d, s, j, 1, s.gathered2);
}

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "matmul_allreduce_cuda: PE %d: %s: %s\n", shmem_my_pe(), #call,        \
                    cudaGetErrorString(e_));                                                       \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

static double slowest(double mine)
{
    static double in, out;
    in = mine;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &out, &in, 1);
    return out;
}

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    mm_args_t args;
    if (mm_args_parse(&args, argc, argv, me) != 0) {
        shmem_finalize();
        return 2;
    }
    shmemx_dev_t d;
    if (shmemx_dev_create(&d) != 0) {
        shmem_finalize();
        return 1;
    }
    size_t total, used, backed;
    int device;
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CUDA_OK(cudaSetDevice(device));

    mm_dev_t s = {};
    s.m = args.m, s.n = args.n, s.k = args.k, s.tile = args.tile;
    s.tiles = mm_tiles(&args);
    s.tiles_per_row = args.n / args.tile;
    s.per_owner = (s.tiles + npes - 1) / npes;
    const size_t tt = mm_tile_elems(&args), tb = tt * sizeof(double);
    double *a_host = (double *)malloc((size_t)args.m * args.k * sizeof(double));
    double *b_host = (double *)malloc((size_t)args.k * args.n * sizeof(double));
    double *got = (double *)malloc((size_t)npes * s.per_owner * tb);
    mm_fill_a(a_host, &args, me);
    mm_fill_b(b_host, &args);
    double *a_dev, *b_dev;
    CUDA_OK(cudaMalloc(&a_dev, (size_t)args.m * args.k * sizeof(double)));
    CUDA_OK(cudaMalloc(&b_dev, (size_t)args.k * args.n * sizeof(double)));
    CUDA_OK(cudaMemcpy(a_dev, a_host, (size_t)args.m * args.k * sizeof(double),
                       cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(b_dev, b_host, (size_t)args.k * args.n * sizeof(double),
                       cudaMemcpyHostToDevice));
    s.a = a_dev, s.b = b_dev;
    const size_t slots = (size_t)npes * s.per_owner;
    s.cpe = (double *)shmemx_malloc_device((size_t)s.tiles * tb, SHMEMX_DEVICE_DEFAULT);
    s.ws = (double *)shmemx_malloc_device(slots * tb, SHMEMX_DEVICE_DEFAULT);
    s.owned = (double *)shmemx_malloc_device((size_t)s.per_owner * tb, SHMEMX_DEVICE_DEFAULT);
    s.gathered = (double *)shmemx_malloc_device(slots * tb, SHMEMX_DEVICE_DEFAULT);
    s.gathered2 = (double *)shmemx_malloc_device(slots * tb, SHMEMX_DEVICE_DEFAULT);
    s.flags = (uint64_t *)shmemx_malloc_device(slots * 8, SHMEMX_DEVICE_DEFAULT);
    s.gflags = (uint64_t *)shmemx_malloc_device(slots * 8, SHMEMX_DEVICE_DEFAULT);
    if (s.gflags == NULL || a_host == NULL || b_host == NULL || got == NULL) {
        fprintf(stderr, "matmul_allreduce_cuda: PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }
    CUDA_OK(cudaMemset(s.flags, 0, slots * 8));
    CUDA_OK(cudaMemset(s.gflags, 0, slots * 8));
    CUDA_OK(cudaDeviceSynchronize());
    double *ref = mm_reference(&args, npes);
    double *times = (double *)calloc((size_t)4 * args.reps, sizeof(double));
    mm_times_t fused = {times, times + args.reps};
    mm_times_t unfused = {times + 2 * args.reps, times + 3 * args.reps};
    cudaStream_t stream;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const dim3 block(THREADS);
    /* Few blocks per PE: the PEs of a host share its GPU. */
    const unsigned blocks = (unsigned)(s.tiles < 8 ? s.tiles : 8);

    int ok = 1;
    for (int rep = -1; rep < args.reps && ok; rep++) {
        s.epoch = (uint64_t)(rep + 2);
        /* Fused. */
        shmem_barrier_all();
        double t0 = mm_now();
        void *fargs[] = {&d, &s};
        if (shmemx_dev_collective_launch((const void *)mm_fused, dim3(blocks), block, fargs, 0,
                                         stream) != 0)
            shmem_global_exit(1);
        CUDA_OK(cudaStreamSynchronize(stream));
        double t_kernel = mm_now();
        shmem_barrier_all();
        double t1 = mm_now();
        double f_total = slowest(t1 - t0), f_tail = slowest(t1 - t_kernel);
        /* Unfused: all tiles, then the reduction. */
        shmem_barrier_all();
        t0 = mm_now();
        mm_compute_all<<<blocks, block, 0, stream>>>(s);
        CUDA_OK(cudaStreamSynchronize(stream));
        double t_compute = mm_now();
        shmem_barrier_all();
        mm_reduce_all<<<blocks, block, 0, stream>>>(d, s);
        CUDA_OK(cudaStreamSynchronize(stream));
        shmem_barrier_all();
        t1 = mm_now();
        double u_total = slowest(t1 - t0), u_tail = slowest(t1 - t_compute);
        if (rep >= 0) {
            fused.total[rep] = f_total, fused.tail[rep] = f_tail;
            unfused.total[rep] = u_total, unfused.tail[rep] = u_tail;
        }
        CUDA_OK(cudaMemcpy(got, s.gathered, slots * tb, cudaMemcpyDeviceToHost));
        if (args.break_tile >= 0 && args.break_tile % npes == me)
            got[((size_t)me * s.per_owner + args.break_tile / npes) * tt] += 1.0;
        ok = mm_check("fused", &args, got, npes, s.per_owner, ref, me, npes);
        CUDA_OK(cudaMemcpy(got, s.gathered2, slots * tb, cudaMemcpyDeviceToHost));
        ok = ok && mm_check("unfused", &args, got, npes, s.per_owner, ref, me, npes);
        static int ok_me, ok_all;
        ok_me = ok;
        shmem_int_min_reduce(SHMEM_TEAM_WORLD, &ok_all, &ok_me, 1);
        ok = ok_all;
    }
    if (me == 0 && ok) {
        mm_report("one kernel: put-with-signal per tile, reduce on arrival, share",
                  "a matmul kernel, then a reduce kernel", &args, npes, &fused, &unfused);
        printf("matmul_allreduce: result matches the plain computation on all %d PEs "
               "(fused and unfused, every rep)\n",
               npes);
    }
    shmem_finalize();
    return ok ? 0 : 1;
}
