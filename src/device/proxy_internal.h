/*
 * What the device proxy's files share (proxy.c: the rings, the thread and
 * the network; proxy_local.c: copies and atomics on memory this process
 * reaches). Not for use outside src/device/proxy*.c.
 */
#ifndef SHOAL_DEVICE_PROXY_INTERNAL_H
#define SHOAL_DEVICE_PROXY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define PROXY_MSG 512

/* A failure here has no caller to return to: the job ends, naming it. */
__attribute__((noreturn, format(printf, 1, 2))) void shoal_proxy_fatal(const char *fmt, ...);

/* A copy between memory this process reaches (host or device). */
void shoal_proxy_copy_local(void *dst, const void *src, size_t len);

/* A kernel's source or destination: always through the driver, which knows
 * every address a kernel may hold (device heap, cudaMalloc, mapped host). */
void shoal_proxy_copy_kernel(void *dst, const void *src, size_t len);

/* What atomic `amo` (SHMEMX_DEV_PROXY_AMO_*) makes of `old`; *writes_p:
 * whether it stores at all. */
uint64_t shoal_proxy_amo_apply(unsigned amo, unsigned size, uint64_t old, uint64_t operand,
                               uint64_t compare, int *writes_p);

/* An atomic on memory of this process; returns the old value. */
uint64_t shoal_proxy_amo_local(void *p, unsigned amo, unsigned size, uint64_t operand,
                               uint64_t compare);

static inline uint64_t shoal_proxy_mask_of(unsigned size)
{
    return size == 8 ? ~0ull : 0xffffffffull;
}

#endif
