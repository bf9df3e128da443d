/*
 * The device CUDA launch helpers of <shmemx_device.h>: host code of a CUDA
 * translation unit (the collective launch, a barrier on a stream). Included
 * by <shmemx_device.h> when nvcc compiles; uses the CUDA runtime, which the
 * program links anyway.
 */
#ifndef SHMEM_DEVICE_LAUNCH_CUDA_H
#define SHMEM_DEVICE_LAUNCH_CUDA_H

#include <cuda_runtime.h>
#include <stdio.h>

/* How many PEs of this host use this PE's GPU (by PCI bus id, gathered
 * over the host's PEs); 1 when it cannot tell. Collective over every PE. */
static inline __host__ int shmemx_dev__gpu_sharers(int dev)
{
    enum { ID = 32 };
    const int nn = shmem_team_n_pes(SHMEMX_TEAM_NODE);
    char *ids = (char *)shmem_malloc((size_t)(nn > 0 ? nn + 1 : 1) * ID);
    if (ids == NULL || nn <= 0) {
        shmem_free(ids);
        return 1;
    }
    char *mine = ids + (size_t)nn * ID;
    for (int i = 0; i < ID; i++)
        mine[i] = 0;
    if (cudaDeviceGetPCIBusId(mine, ID, dev) != cudaSuccess)
        mine[0] = '?'; /* unknown: counted as its own GPU */
    int sharers = 1;
    if (shmem_fcollectmem(SHMEMX_TEAM_NODE, ids, mine, ID) == 0) {
        sharers = 0;
        for (int p = 0; p < nn; p++) {
            int same = mine[0] != '?';
            for (int i = 0; i < ID && same; i++)
                same = ids[(size_t)p * ID + i] == mine[i];
            sharers += same;
        }
        if (sharers < 1)
            sharers = 1;
    }
    shmem_free(ids);
    return sharers;
}

/* Launches `func` on every PE with the same grid, as a cooperative launch so
 * that all its blocks are resident at once (a kernel whose blocks wait for
 * each other, or for other PEs, cannot then hang for want of a free SM).
 * grid.x == 0 asks for the largest grid every PE's GPU can hold resident
 * (occupancy x SMs over the PEs that share that GPU -- under MPS their
 * kernels run at once -- the least over the PEs). Collective over every PE.
 * 0, or -1 on every PE after a message when the grid cannot be resident on
 * some PE's GPU or the launch fails -- never a hang. */
static inline __host__ int shmemx_dev_collective_launch(const void *func, dim3 grid, dim3 block,
                                                        void **args, size_t shared_bytes,
                                                        cudaStream_t stream)
{
    int dev = 0, sms = 0, per_sm = 0, coop = 0;
    const unsigned threads = block.x * block.y * block.z;
    long long fits = -1;
    const int have_dev = cudaGetDevice(&dev) == cudaSuccess;
    const int sharers = shmemx_dev__gpu_sharers(have_dev ? dev : 0);
    if (have_dev &&
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) == cudaSuccess && coop &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, (int)threads, shared_bytes) ==
            cudaSuccess)
        fits = (long long)per_sm * sms / sharers;
    /* The least over the PEs (-1 where a PE cannot launch cooperatively). */
    long long *mine = (long long *)shmem_malloc(4 * sizeof(long long));
    if (mine == NULL)
        return -1;
    mine[0] = fits;
    mine[1] = sharers;
    shmem_longlong_min_reduce(SHMEM_TEAM_WORLD, &mine[2], &mine[0], 1);
    shmem_longlong_max_reduce(SHMEM_TEAM_WORLD, &mine[3], &mine[1], 1);
    const long long least = mine[2], most_sharers = mine[3];
    shmem_free(mine);
    const unsigned long long want = grid.x == 0 ? (unsigned long long)(least > 0 ? least : 0)
                                                : (unsigned long long)grid.x * grid.y * grid.z;
    if (least <= 0 || want == 0 || want > (unsigned long long)least) {
        if (shmem_my_pe() == 0)
            fprintf(stderr,
                    "shmemx_dev_collective_launch: %llu blocks of %u threads cannot all be "
                    "resident on every PE's GPU (the least any PE holds is %lld%s; up to %lld "
                    "PEs share one GPU, each with its share of the SMs); launch fewer blocks, "
                    "or pass grid.x = 0 for the most that fit\n",
                    want, threads, least, least < 0 ? ": a GPU without cooperative launch" : "",
                    most_sharers);
        return -1;
    }
    if (grid.x == 0)
        grid = dim3((unsigned)least, 1, 1);
    cudaError_t e = cudaLaunchCooperativeKernel(func, grid, block, args, shared_bytes, stream);
    if (e != cudaSuccess) {
        fprintf(stderr, "shmemx_dev_collective_launch: PE %d: cudaLaunchCooperativeKernel: %s\n",
                shmem_my_pe(), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* barrier_all on a stream. Where shmemx_dev_create found PEs sharing a GPU
 * without MPS (shmemx_dev_sync_on_host() == 1), the driver time-slices
 * them and a kernel that waits for a peer of its GPU holds the GPU until
 * its slice (~1 ms) ends: then it is shmemx_barrier_all_on_stream, through
 * host memory, with nothing spinning on the GPU. Otherwise (a GPU per PE,
 * MPS, several hosts) a one-thread kernel (defined here, so it is compiled
 * into the calling program: no device code in libshoal) that runs
 * shmemx_dev_barrier_all after the work queued before it; the work queued
 * after waits for it. Every PE calls it. 0, or -1 when the launch fails. */
template <int unused = 0> __global__ void shmemx_dev__barrier_kernel(shmemx_dev_t d)
{
    shmemx_dev_barrier_all(d);
}

static inline __host__ int shmemx_dev_barrier_all_on_stream(shmemx_dev_t d, cudaStream_t stream)
{
    if (shmemx_dev_sync_on_host() == 1)
        return shmemx_barrier_all_on_stream((shmemx_stream_t)stream);
    shmemx_dev__barrier_kernel<<<1, 1, 0, stream>>>(d);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        fprintf(stderr, "shmemx_dev_barrier_all_on_stream: PE %d: %s\n", d.my_pe,
                cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

#endif
