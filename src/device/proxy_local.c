/*
 * The device proxy's copies and atomics on memory this process reaches:
 * host memory directly, device memory through the driver (proxy.c routes
 * a request here when its target is local).
 */
#include <string.h>

#include <shmemx_device_proxy.h>

#include "device/device_heap.h"
#include "device/proxy_internal.h"

void shoal_proxy_copy_local(void *dst, const void *src, size_t len)
{
    if (len == 0)
        return;
    if (!shoal_device_owns(dst) && !shoal_device_owns(src)) {
        memcpy(dst, src, len);
        return;
    }
    char msg[PROXY_MSG];
    if (shoal_device_copy("the device proxy", dst, src, len, msg, sizeof(msg)) != SHOAL_OK)
        shoal_proxy_fatal("%s", msg);
}

/* A kernel's source or destination: always through the driver, which knows
 * every address a kernel may hold (device heap, cudaMalloc, mapped host). */
void shoal_proxy_copy_kernel(void *dst, const void *src, size_t len)
{
    char msg[PROXY_MSG];
    if (len != 0 &&
        shoal_device_copy("the device proxy", dst, src, len, msg, sizeof(msg)) != SHOAL_OK)
        shoal_proxy_fatal("%s", msg);
}

/* What an atomic makes of `old`; *writes_p: whether it stores at all. */
uint64_t shoal_proxy_amo_apply(unsigned amo, unsigned size, uint64_t old, uint64_t operand,
                               uint64_t compare, int *writes_p)
{
    *writes_p = 1;
    switch (amo) {
    case SHMEMX_DEV_PROXY_AMO_FETCH:
        *writes_p = 0;
        return old;
    case SHMEMX_DEV_PROXY_AMO_SET:
    case SHMEMX_DEV_PROXY_AMO_SWAP:
        return operand;
    case SHMEMX_DEV_PROXY_AMO_CSWAP:
        *writes_p = old == compare;
        return operand;
    case SHMEMX_DEV_PROXY_AMO_ADD:
    case SHMEMX_DEV_PROXY_AMO_FETCH_ADD:
        return old + operand;
    case SHMEMX_DEV_PROXY_AMO_AND:
    case SHMEMX_DEV_PROXY_AMO_FETCH_AND:
        return old & operand;
    case SHMEMX_DEV_PROXY_AMO_OR:
    case SHMEMX_DEV_PROXY_AMO_FETCH_OR:
        return old | operand;
    case SHMEMX_DEV_PROXY_AMO_XOR:
    case SHMEMX_DEV_PROXY_AMO_FETCH_XOR:
        return old ^ operand;
    case SHMEMX_DEV_PROXY_AMO_FADD:
    case SHMEMX_DEV_PROXY_AMO_FETCH_FADD:
        if (size == 4) {
            float a, b;
            uint32_t o32 = (uint32_t)old, v32 = (uint32_t)operand;
            memcpy(&a, &o32, 4);
            memcpy(&b, &v32, 4);
            a += b;
            memcpy(&o32, &a, 4);
            return o32;
        } else {
            double a, b;
            memcpy(&a, &old, 8);
            memcpy(&b, &operand, 8);
            a += b;
            uint64_t w;
            memcpy(&w, &a, 8);
            return w;
        }
    }
    shoal_proxy_fatal("unknown atomic operation %u in a request", amo);
}

/* An atomic on memory of this process. Host memory: a CPU compare-and-swap
 * loop, atomic against kernels on the CPU stand-in and against other
 * proxies. Device memory: a copy out and back, atomic against other
 * relayed operations (one proxy thread carries them out) but not against a
 * kernel's own atomics on the same word on a real GPU. */
uint64_t shoal_proxy_amo_local(void *p, unsigned amo, unsigned size, uint64_t operand,
                               uint64_t compare)
{
    operand &= shoal_proxy_mask_of(size);
    compare &= shoal_proxy_mask_of(size);
    int writes;
    if (shoal_device_owns(p)) {
        uint64_t old = 0;
        shoal_proxy_copy_local(&old, p, size);
        uint64_t v = shoal_proxy_amo_apply(amo, size, old, operand, compare, &writes);
        if (writes)
            shoal_proxy_copy_local(p, &v, size);
        return old;
    }
    if (size == 8) {
        uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_ACQUIRE);
        for (;;) {
            uint64_t v = shoal_proxy_amo_apply(amo, size, old, operand, compare, &writes);
            if (!writes)
                return old;
            if (__atomic_compare_exchange_n((uint64_t *)p, &old, v, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return old;
        }
    }
    uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_ACQUIRE);
    for (;;) {
        uint32_t v = (uint32_t)shoal_proxy_amo_apply(amo, size, old, operand, compare, &writes);
        if (!writes)
            return old;
        if (__atomic_compare_exchange_n((uint32_t *)p, &old, v, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            return old;
    }
}
