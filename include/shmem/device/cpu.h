/*
 * The device API's primitives on the CPU: what <shmemx_device.h> uses when
 * a host compiler (no __CUDACC__) compiles it. The same names as
 * <shmem/device/ptx.h>, over GCC atomics and C11 threads, so the public
 * functions of <shmem/device/api.h> run on host memory: a "kernel" is a
 * host function run by one thread of the PE (blocks and warps of one
 * thread). Shoal's tests run the device API this way against a stand-in
 * driver; a program can use it the same way.
 */
#ifndef SHMEM_DEVICE_CPU_H
#define SHMEM_DEVICE_CPU_H

#include <string.h>
#include <threads.h>
#include <time.h>

#define SHMEMX_DEV_FN static inline __attribute__((always_inline, unused))

/* ---- loads and stores ---------------------------------------------------- */

SHMEMX_DEV_FN uint16_t shmemx_dev__ld_acquire16(const void *p)
{
    return __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
}

SHMEMX_DEV_FN uint32_t shmemx_dev__ld_acquire32(const void *p)
{
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
}

SHMEMX_DEV_FN uint64_t shmemx_dev__ld_acquire64(const void *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
}

SHMEMX_DEV_FN uint32_t shmemx_dev__ld_relaxed32(const void *p)
{
    return __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
}

SHMEMX_DEV_FN uint64_t shmemx_dev__ld_relaxed64(const void *p)
{
    return __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
}

SHMEMX_DEV_FN void shmemx_dev__st_relaxed32(void *p, uint32_t v)
{
    __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELAXED);
}

SHMEMX_DEV_FN void shmemx_dev__st_relaxed64(void *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
}

SHMEMX_DEV_FN void shmemx_dev__st_release32(void *p, uint32_t v)
{
    __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE);
}

SHMEMX_DEV_FN void shmemx_dev__st_release64(void *p, uint64_t v)
{
    __atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

SHMEMX_DEV_FN void shmemx_dev__add_release64(void *p, uint64_t v)
{
    __atomic_fetch_add((uint64_t *)p, v, __ATOMIC_RELEASE);
}

/* ---- relaxed read-modify-writes ------------------------------------------- */

#define SHMEMX_DEV__ATOM(bits, name, gccop)                                                        \
    SHMEMX_DEV_FN uint##bits##_t shmemx_dev__atom_##name##bits(void *p, uint##bits##_t v)          \
    {                                                                                              \
        return gccop((uint##bits##_t *)p, v, __ATOMIC_RELAXED);                                    \
    }
SHMEMX_DEV__ATOM(32, add, __atomic_fetch_add)
SHMEMX_DEV__ATOM(64, add, __atomic_fetch_add)
SHMEMX_DEV__ATOM(32, and, __atomic_fetch_and)
SHMEMX_DEV__ATOM(64, and, __atomic_fetch_and)
SHMEMX_DEV__ATOM(32, or, __atomic_fetch_or)
SHMEMX_DEV__ATOM(64, or, __atomic_fetch_or)
SHMEMX_DEV__ATOM(32, xor, __atomic_fetch_xor)
SHMEMX_DEV__ATOM(64, xor, __atomic_fetch_xor)
SHMEMX_DEV__ATOM(32, exch, __atomic_exchange_n)
SHMEMX_DEV__ATOM(64, exch, __atomic_exchange_n)
#undef SHMEMX_DEV__ATOM

SHMEMX_DEV_FN uint32_t shmemx_dev__atom_cas32(void *p, uint32_t cond, uint32_t v)
{
    __atomic_compare_exchange_n((uint32_t *)p, &cond, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cond;
}

SHMEMX_DEV_FN uint64_t shmemx_dev__atom_cas64(void *p, uint64_t cond, uint64_t v)
{
    __atomic_compare_exchange_n((uint64_t *)p, &cond, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cond;
}

/* ---- fences, time, pauses -------------------------------------------------- */

SHMEMX_DEV_FN void shmemx_dev__fence(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

SHMEMX_DEV_FN void shmemx_dev__quiet(void)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

SHMEMX_DEV_FN uint64_t shmemx_dev__now_ns(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A yield between polls, then short sleeps (the PE waited for may share
 * this CPU). */
SHMEMX_DEV_FN void shmemx_dev__pause(unsigned *spins)
{
    if (++*spins > 64) {
        struct timespec ts = {0, 20000};
        thrd_sleep(&ts, NULL);
    } else {
        thrd_yield();
    }
}

/* ---- the calling thread, its group: one thread ------------------------------ */

SHMEMX_DEV_FN unsigned shmemx_dev__tid(void)
{
    return 0;
}

SHMEMX_DEV_FN unsigned shmemx_dev__nthreads(void)
{
    return 1;
}

SHMEMX_DEV_FN unsigned shmemx_dev__lane(void)
{
    return 0;
}

SHMEMX_DEV_FN unsigned shmemx_dev__warp_size(void)
{
    return 1u;
}

SHMEMX_DEV_FN void shmemx_dev__sync_warp(void) {}

SHMEMX_DEV_FN void shmemx_dev__sync_block(void) {}

/* ---- reports ----------------------------------------------------------------- */

/* Block and thread indices stay 0: one thread per PE. */
SHMEMX_DEV_FN void shmemx_dev__position(volatile shmemx_dev_report_t *w)
{
    (void)w;
}

/* After a report the thread waits for the host's monitor to end the job. */
SHMEMX_DEV_FN void shmemx_dev__halt(void)
{
    for (;;) {
        struct timespec ts = {0, 10000000};
        thrd_sleep(&ts, NULL);
    }
}

/* ---- bulk copies ---------------------------------------------------------- */

typedef struct {
    uint64_t w[2];
} __attribute__((aligned(16))) shmemx_dev__vec_t;

#endif
