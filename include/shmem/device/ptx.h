/*
 * The device API's primitives on the GPU: inline PTX at system scope (peers
 * are other processes, possibly on other GPUs). Included by
 * <shmemx_device.h> in CUDA translation units only; every public function
 * is written once in <shmem/device/api.h> over the names defined here, and
 * <shmem/device/cpu.h> defines the same names for a host compiler.
 *
 * In nvcc's host pass these __device__ bodies are parsed but never
 * compiled for the host, so they need no host form.
 */
#ifndef SHMEM_DEVICE_PTX_H
#define SHMEM_DEVICE_PTX_H

#define SHMEMX_DEV_FN static __device__ __forceinline__

/* ---- loads and stores ---------------------------------------------------- */

SHMEMX_DEV_FN uint16_t shmemx_dev__ld_acquire16(const void *p)
{
    uint16_t v;
    asm volatile("ld.acquire.sys.u16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
    return v;
}

SHMEMX_DEV_FN uint32_t shmemx_dev__ld_acquire32(const void *p)
{
    uint32_t v;
    asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

SHMEMX_DEV_FN uint64_t shmemx_dev__ld_acquire64(const void *p)
{
    uint64_t v;
    asm volatile("ld.acquire.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

SHMEMX_DEV_FN uint32_t shmemx_dev__ld_relaxed32(const void *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

SHMEMX_DEV_FN uint64_t shmemx_dev__ld_relaxed64(const void *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

SHMEMX_DEV_FN void shmemx_dev__st_relaxed32(void *p, uint32_t v)
{
    asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

SHMEMX_DEV_FN void shmemx_dev__st_relaxed64(void *p, uint64_t v)
{
    asm volatile("st.relaxed.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

SHMEMX_DEV_FN void shmemx_dev__st_release32(void *p, uint32_t v)
{
    asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

SHMEMX_DEV_FN void shmemx_dev__st_release64(void *p, uint64_t v)
{
    asm volatile("st.release.sys.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

SHMEMX_DEV_FN void shmemx_dev__add_release64(void *p, uint64_t v)
{
    asm volatile("red.release.sys.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

/* ---- relaxed read-modify-writes at system scope ---------------------------
 * PTX spells the bitwise ones and exch with .b, add with .u. */

#define SHMEMX_DEV__ATOM(bits, name, ptxop, cons)                                                  \
    SHMEMX_DEV_FN uint##bits##_t shmemx_dev__atom_##name##bits(void *p, uint##bits##_t v)          \
    {                                                                                              \
        uint##bits##_t old;                                                                        \
        asm volatile("atom.relaxed.sys." ptxop " %0, [%1], %2;"                                    \
                     : "=" cons(old)                                                               \
                     : "l"(p), cons(v)                                                             \
                     : "memory");                                                                  \
        return old;                                                                                \
    }
SHMEMX_DEV__ATOM(32, add, "add.u32", "r")
SHMEMX_DEV__ATOM(64, add, "add.u64", "l")
SHMEMX_DEV__ATOM(32, and, "and.b32", "r")
SHMEMX_DEV__ATOM(64, and, "and.b64", "l")
SHMEMX_DEV__ATOM(32, or, "or.b32", "r")
SHMEMX_DEV__ATOM(64, or, "or.b64", "l")
SHMEMX_DEV__ATOM(32, xor, "xor.b32", "r")
SHMEMX_DEV__ATOM(64, xor, "xor.b64", "l")
SHMEMX_DEV__ATOM(32, exch, "exch.b32", "r")
SHMEMX_DEV__ATOM(64, exch, "exch.b64", "l")
#undef SHMEMX_DEV__ATOM

SHMEMX_DEV_FN uint32_t shmemx_dev__atom_cas32(void *p, uint32_t cond, uint32_t v)
{
    uint32_t old;
    asm volatile("atom.relaxed.sys.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(old)
                 : "l"(p), "r"(cond), "r"(v)
                 : "memory");
    return old;
}

SHMEMX_DEV_FN uint64_t shmemx_dev__atom_cas64(void *p, uint64_t cond, uint64_t v)
{
    uint64_t old;
    asm volatile("atom.relaxed.sys.cas.b64 %0, [%1], %2, %3;"
                 : "=l"(old)
                 : "l"(p), "l"(cond), "l"(v)
                 : "memory");
    return old;
}

/* ---- fences, time, pauses -------------------------------------------------- */

SHMEMX_DEV_FN void shmemx_dev__fence(void)
{
    asm volatile("fence.acq_rel.sys;" ::: "memory");
}

SHMEMX_DEV_FN void shmemx_dev__quiet(void)
{
    asm volatile("fence.sc.sys;" ::: "memory");
}

SHMEMX_DEV_FN uint64_t shmemx_dev__now_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* A pause between polls that grows to about 1 µs. */
SHMEMX_DEV_FN void shmemx_dev__pause(unsigned *spins)
{
    if (*spins < 1024)
        *spins += *spins + 1;
    __nanosleep(*spins);
}

/* ---- the calling thread, its group ------------------------------------------ */

SHMEMX_DEV_FN unsigned shmemx_dev__tid(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

SHMEMX_DEV_FN unsigned shmemx_dev__nthreads(void)
{
    return blockDim.x * blockDim.y * blockDim.z;
}

SHMEMX_DEV_FN unsigned shmemx_dev__lane(void)
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

SHMEMX_DEV_FN unsigned shmemx_dev__warp_size(void)
{
    return 32u;
}

SHMEMX_DEV_FN void shmemx_dev__sync_warp(void)
{
    __syncwarp();
}

SHMEMX_DEV_FN void shmemx_dev__sync_block(void)
{
    __syncthreads();
}

/* ---- reports ----------------------------------------------------------------- */

/* Where the reporting thread is: its block and thread indices. */
SHMEMX_DEV_FN void shmemx_dev__position(volatile shmemx_dev_report_t *w)
{
    w->block[0] = blockIdx.x, w->block[1] = blockIdx.y, w->block[2] = blockIdx.z;
    w->thread[0] = threadIdx.x, w->thread[1] = threadIdx.y, w->thread[2] = threadIdx.z;
}

/* Stops the kernel after a report: the host sees the launch fail. */
SHMEMX_DEV_FN void shmemx_dev__halt(void)
{
    __trap();
}

/* ---- bulk copies ---------------------------------------------------------- */

typedef uint4 shmemx_dev__vec_t;

#endif
