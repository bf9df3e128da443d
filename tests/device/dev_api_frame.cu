/*
 * One small kernel per family of the device API, for the frame check
 * (run_frame_check.sh): `nvcc -Xptxas -v` must report a 0-byte stack frame
 * and no spills for every one of them, on sm_80 and sm_90. A frame here
 * means the API put something in local memory -- most often a copy of the
 * by-value handle, made when a field of it is indexed at run time. Never
 * launched: only compiled.
 */
#include <shmemx_device.h>
#include <shmemx_device_coll.h>
#include <shmemx_device_famo.h>

__global__ void frame_p_g(shmemx_dev_t d, long *x, long *out, int pe)
{
    shmemx_dev_long_p(d, x, 7, pe);
    *out = shmemx_dev_long_g(d, x, pe);
}

__global__ void frame_ptr(shmemx_dev_t d, const void *addr, void **out, int pe)
{
    *out = shmemx_dev_ptr(d, addr, pe);
}

__global__ void frame_putmem(shmemx_dev_t d, void *dst, const void *src, size_t n, int pe)
{
    shmemx_dev_putmem(d, dst, src, n, pe);
}

__global__ void frame_putmem_warp(shmemx_dev_t d, void *dst, const void *src, size_t n, int pe)
{
    shmemx_dev_putmem_warp(d, dst, src, n, pe);
}

__global__ void frame_putmem_block(shmemx_dev_t d, void *dst, const void *src, size_t n, int pe)
{
    shmemx_dev_putmem_block(d, dst, src, n, pe);
}

__global__ void frame_getmem_block(shmemx_dev_t d, void *dst, const void *src, size_t n, int pe)
{
    shmemx_dev_getmem_block(d, dst, src, n, pe);
}

__global__ void frame_put_signal(shmemx_dev_t d, double *dst, const double *src, size_t n,
                                 uint64_t *sig, int pe)
{
    shmemx_dev_double_put_signal(d, dst, src, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
}

__global__ void frame_put_signal_block(shmemx_dev_t d, void *dst, const void *src, size_t n,
                                       uint64_t *sig, int pe)
{
    shmemx_dev_putmem_signal_block(d, dst, src, n, sig, 1, SHMEM_SIGNAL_SET, pe);
}

__global__ void frame_amo(shmemx_dev_t d, long *w, unsigned *u, long *out, int pe)
{
    out[0] = shmemx_dev_long_atomic_fetch_add(d, w, 3, pe);
    out[1] = shmemx_dev_long_atomic_compare_swap(d, w + 1, 0, 5, pe);
    shmemx_dev_long_atomic_inc(d, w + 2, pe);
    out[2] = shmemx_dev_long_atomic_swap(d, w + 3, 9, pe);
    out[3] = (long)shmemx_dev_uint_atomic_fetch_xor(d, u, 1u, pe);
    out[4] = shmemx_dev_long_atomic_fetch(d, w + 4, pe);
}

__global__ void frame_wait(shmemx_dev_t d, long *ivar, uint64_t *sig, uint64_t *out)
{
    shmemx_dev_long_wait_until(d, ivar, SHMEM_CMP_GE, 4);
    *out = shmemx_dev_signal_wait_until(d, sig, SHMEM_CMP_EQ, 2) +
           shmemx_dev_long_test(d, ivar, SHMEM_CMP_NE, 0);
}

__global__ void frame_barrier(shmemx_dev_t d, shmemx_dev_team_t t)
{
    shmemx_dev_barrier_all(d);
    shmemx_dev_team_sync(d, t);
}

__global__ void frame_barrier_block(shmemx_dev_t d)
{
    shmemx_dev_barrier_all_block(d);
}

__global__ void frame_event(shmemx_dev_t d, uint64_t *out)
{
    shmemx_dev_event_raise(d, 3);
    *out = shmemx_dev_event_wait(d, 4, 1);
}

/* The device collectives and the float atomics (issue 26): the same rule. */
__global__ void frame_broadcast_block(shmemx_dev_t d, shmemx_dev_team_t t, long *dst,
                                      const long *src, size_t n)
{
    shmemx_dev_long_broadcast_block(d, t, dst, src, n, 0);
}

__global__ void frame_fcollectmem(shmemx_dev_t d, shmemx_dev_team_t t, void *dst, const void *src,
                                  size_t n)
{
    shmemx_dev_fcollectmem(d, t, dst, src, n);
}

__global__ void frame_alltoall_block(shmemx_dev_t d, shmemx_dev_team_t t, int *dst, const int *src,
                                     size_t n)
{
    shmemx_dev_int_alltoall_block(d, t, dst, src, n);
}

__global__ void frame_sum_reduce_block(shmemx_dev_t d, shmemx_dev_team_t t, float *dst,
                                       const float *src, size_t n)
{
    shmemx_dev_float_sum_reduce_block(d, t, dst, src, n);
}

__global__ void frame_max_reduce(shmemx_dev_t d, shmemx_dev_team_t t, double *dst,
                                 const double *src, size_t n)
{
    shmemx_dev_double_max_reduce(d, t, dst, src, n);
}

__global__ void frame_float_fetch_add(shmemx_dev_t d, float *x, float *out, int pe)
{
    *out = shmemx_dev_float_atomic_fetch_add(d, x, 1.0f, pe);
}
