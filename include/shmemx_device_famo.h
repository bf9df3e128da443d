/*
 * Floating-point atomic add in kernels: shmemx_dev_{float,double}_atomic_add
 * and _atomic_fetch_add, as NVSHMEM 3.7 has them. Included by
 * <shmemx_device.h>.
 *
 * On a PE this GPU maps: one system-scope atom.add.f32/.f64 (relaxed, as
 * the integer AMOs); on the CPU stand-in a compare-and-swap loop. On a PE
 * of another host: one request to the device proxy, which does the add as
 * a compare-and-swap loop over the network (host memory there) or has the
 * target's proxy do it (its device heap).
 */
#ifndef SHMEMX_DEVICE_FAMO_H
#define SHMEMX_DEVICE_FAMO_H

#if defined(__CUDA_ARCH__)
SHMEMX_DEV_FN float shmemx_dev__atom_fadd32(void *p, float v)
{
    float old;
    asm volatile("atom.relaxed.sys.add.f32 %0, [%1], %2;" : "=f"(old) : "l"(p), "f"(v) : "memory");
    return old;
}
SHMEMX_DEV_FN double shmemx_dev__atom_fadd64(void *p, double v)
{
    double old;
    asm volatile("atom.relaxed.sys.add.f64 %0, [%1], %2;" : "=d"(old) : "l"(p), "d"(v) : "memory");
    return old;
}
#else
SHMEMX_DEV_FN float shmemx_dev__atom_fadd32(void *p, float v)
{
    uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), nw;
    float f;
    do {
        memcpy(&f, &old, 4);
        f += v;
        memcpy(&nw, &f, 4);
    } while (!__atomic_compare_exchange_n((uint32_t *)p, &old, nw, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    memcpy(&f, &old, 4);
    return f;
}
SHMEMX_DEV_FN double shmemx_dev__atom_fadd64(void *p, double v)
{
    uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), nw;
    double f;
    do {
        memcpy(&f, &old, 8);
        f += v;
        memcpy(&nw, &f, 8);
    } while (!__atomic_compare_exchange_n((uint64_t *)p, &old, nw, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    memcpy(&f, &old, 8);
    return f;
}
#endif

#define SHMEMX_DEV__FLOAT_AMO(T, N, bits)                                                          \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_add(shmemx_dev_t d, T *dest, T value, int pe)    \
    {                                                                                              \
        void *p = shmemx_dev__ptr_range(d, dest, sizeof(T), pe);                                   \
        if (p != NULL)                                                                             \
            return shmemx_dev__atom_fadd##bits(p, value);                                          \
        return shmemx_dev__##N##_value(shmemx_dev__proxy_amo(                                      \
            d, dest, SHMEMX_DEV_PROXY_AMO_FETCH_FADD, sizeof(T), shmemx_dev__##N##_bits(value), 0, \
            pe, "shmemx_dev_" #N "_atomic_fetch_add"));                                            \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_add(shmemx_dev_t d, T *dest, T value, int pe)       \
    {                                                                                              \
        void *p = shmemx_dev__ptr_range(d, dest, sizeof(T), pe);                                   \
        if (p != NULL)                                                                             \
            (void)shmemx_dev__atom_fadd##bits(p, value);                                           \
        else                                                                                       \
            (void)shmemx_dev__proxy_amo(d, dest, SHMEMX_DEV_PROXY_AMO_FADD, sizeof(T),             \
                                        shmemx_dev__##N##_bits(value), 0, pe,                      \
                                        "shmemx_dev_" #N "_atomic_add");                           \
    }
SHMEMX_DEV__FLOAT_AMO(float, float, 32)
SHMEMX_DEV__FLOAT_AMO(double, double, 64)

#endif
