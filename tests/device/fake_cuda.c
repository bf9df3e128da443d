/*
 * A stand-in CUDA driver for testing the device side on machines without a
 * GPU (SHOAL_CUDA_LIBRARY=path/to/libshoal_fake_cuda.so). It exports what
 * the loader looks up (cuDriverGetVersion, cuGetProcAddress_v2) and emulates
 * the virtual memory API with host memory: an allocation is a memfd, its
 * "POSIX fd" export a dup of it, a reservation a PROT_NONE mapping, a map a
 * MAP_SHARED|MAP_FIXED mmap of the memfd, a copy a memcpy. So the library's
 * own logic -- agreeing, growing, passing fds between processes with
 * SCM_RIGHTS, importing, routing, copying -- runs for real, between real
 * processes; only the GPU is pretend.
 *
 * FAKE_CUDA_MODE (read at load): "nodev" cuInit says no device; "noproc"
 * cuGetProcAddress knows no cuMemCreate. FAKE_CUDA_FAIL (read at each
 * call): "create" makes cuMemCreate fail with out-of-memory, "import" makes
 * cuMemImportFromShareableHandle fail -- a test sets it on one PE only.
 * FAKE_CUDA_LOG=PREFIX records the virtual memory calls, one line each
 * ("reserve ADDR SIZE", "create SIZE", "map ADDR SIZE", "access ADDR SIZE",
 * "unmap ADDR SIZE", "free ADDR SIZE"; addresses in hex), and the host
 * registrations ("register ADDR SIZE", "unregister ADDR SIZE"), in
 * PREFIX.PID, so a test can check how the device heap reserved and grew and
 * what host memory was pinned for kernels.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "device/cuda_abi.h"

#define OK 0
#define ERR_INVALID 1
#define ERR_OOM 2
#define ERR_NOT_FOUND 500
#define ERR_NOT_SUPPORTED 801

#define EXPORT __attribute__((visibility("default")))

static int fails(const char *what)
{
    const char *f = getenv("FAKE_CUDA_FAIL");
    return f != NULL && strcmp(f, what) == 0;
}

/* One line of FAKE_CUDA_LOG, appended in one write. */
static void record(const char *what, uintptr_t addr, size_t size)
{
    const char *prefix = getenv("FAKE_CUDA_LOG");
    if (prefix == NULL || prefix[0] == '\0')
        return;
    char path[512], line[96];
    snprintf(path, sizeof(path), "%s.%d", prefix, (int)getpid());
    int n = addr != 0
                ? snprintf(line, sizeof(line), "%s %#lx %zu\n", what, (unsigned long)addr, size)
                : snprintf(line, sizeof(line), "%s %zu\n", what, size);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n)
        (void)0; /* a test reading the log finds the line missing */
    close(fd);
}

static shoal_CUresult f_cuInit(unsigned int flags)
{
    (void)flags;
    const char *m = getenv("FAKE_CUDA_MODE");
    return m != NULL && strcmp(m, "nodev") == 0 ? SHOAL_CUDA_ERROR_NO_DEVICE : OK;
}
static shoal_CUresult f_cuGetErrorString(shoal_CUresult e, const char **s)
{
    *s = e == ERR_OOM ? "out of memory (fake)"
         : e == 100   ? "no CUDA-capable device is detected (fake)"
                      : "fake error";
    return OK;
}
static shoal_CUresult f_cuGetErrorName(shoal_CUresult e, const char **s)
{
    *s = e == ERR_OOM ? "CUDA_ERROR_OUT_OF_MEMORY"
         : e == 100   ? "CUDA_ERROR_NO_DEVICE"
                      : "CUDA_ERROR_FAKE";
    return OK;
}
static shoal_CUresult f_cuDeviceGetCount(int *n)
{
    *n = 1;
    return OK;
}
static shoal_CUresult f_cuDeviceGet(shoal_CUdevice *d, int ordinal)
{
    *d = ordinal;
    return ordinal == 0 ? OK : ERR_INVALID;
}
static shoal_CUresult f_cuDeviceGetName(char *name, int len, shoal_CUdevice d)
{
    snprintf(name, (size_t)len, "Fake GPU %d", d);
    return OK;
}
/* Every attribute is 1, except FAKE_CUDA_MODE=no64memops: a device without
 * 64-bit stream memory operations. */
static int mode_is(const char *m)
{
    const char *v = getenv("FAKE_CUDA_MODE");
    return v != NULL && strcmp(v, m) == 0;
}
static shoal_CUresult f_cuDeviceGetAttribute(int *v, int attr, shoal_CUdevice d)
{
    (void)d;
    *v = attr == SHOAL_CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS && mode_is("no64memops")
             ? 0
             : 1;
    return OK;
}
static shoal_CUresult f_cuDevicePrimaryCtxRetain(shoal_CUcontext *c, shoal_CUdevice d)
{
    (void)d;
    *c = (shoal_CUcontext)(uintptr_t)0x1000;
    return OK;
}
static shoal_CUresult f_cuDevicePrimaryCtxRelease(shoal_CUdevice d)
{
    (void)d;
    return OK;
}
static shoal_CUresult f_cuCtxSetCurrent(shoal_CUcontext c)
{
    (void)c;
    return OK;
}
static shoal_CUresult f_cuCtxGetCurrent(shoal_CUcontext *c)
{
    *c = (shoal_CUcontext)(uintptr_t)0x1000;
    return OK;
}
static shoal_CUresult f_cuStreamCreate(shoal_CUstream *s, unsigned int flags)
{
    (void)flags;
    *s = (shoal_CUstream)(uintptr_t)0x2000;
    return OK;
}
static shoal_CUresult f_cuStreamDestroy(shoal_CUstream s)
{
    (void)s;
    return OK;
}
static shoal_CUresult f_cuStreamSynchronize(shoal_CUstream s)
{
    (void)s;
    return OK;
}
static shoal_CUresult f_cuMemcpyAsync(shoal_CUdeviceptr dst, shoal_CUdeviceptr src, size_t n,
                                      shoal_CUstream s)
{
    (void)s;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return OK;
}
static shoal_CUresult f_cuMemGetAllocationGranularity(size_t *g, const shoal_CUmemAllocationProp *p,
                                                      int option)
{
    (void)option;
    if (p->type != SHOAL_CU_MEM_ALLOCATION_TYPE_PINNED ||
        p->requestedHandleTypes != SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
        p->location.type != SHOAL_CU_MEM_LOCATION_TYPE_DEVICE)
        return ERR_INVALID;
    *g = (size_t)2 << 20;
    return OK;
}
static shoal_CUresult f_cuMemAddressReserve(shoal_CUdeviceptr *ptr, size_t size, size_t align,
                                            shoal_CUdeviceptr addr, unsigned long long flags)
{
    (void)addr;
    (void)flags;
    /* Over-reserve, then trim to the alignment. */
    char *p =
        mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return ERR_OOM;
    uintptr_t a = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
    if (a > (uintptr_t)p)
        munmap(p, a - (uintptr_t)p);
    munmap((char *)a + size, (uintptr_t)p + align - a);
    *ptr = a;
    record("reserve", a, size);
    return OK;
}
static shoal_CUresult f_cuMemAddressFree(shoal_CUdeviceptr ptr, size_t size)
{
    record("free", (uintptr_t)ptr, size);
    return munmap((void *)(uintptr_t)ptr, size) == 0 ? OK : ERR_INVALID;
}
/* A handle is the memfd's number + 1 (0 is never a handle). */
static shoal_CUresult f_cuMemCreate(shoal_CUmemGenericAllocationHandle *h, size_t size,
                                    const shoal_CUmemAllocationProp *p, unsigned long long flags)
{
    (void)flags;
    if (fails("create"))
        return ERR_OOM;
    if (p->requestedHandleTypes != SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return ERR_INVALID;
    int fd = memfd_create("fake-cuda", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
        return ERR_OOM;
    *h = (shoal_CUmemGenericAllocationHandle)fd + 1;
    record("create", 0, size);
    return OK;
}
static shoal_CUresult f_cuMemRelease(shoal_CUmemGenericAllocationHandle h)
{
    return close((int)h - 1) == 0 ? OK : ERR_INVALID;
}
static shoal_CUresult f_cuMemMap(shoal_CUdeviceptr ptr, size_t size, size_t off,
                                 shoal_CUmemGenericAllocationHandle h, unsigned long long flags)
{
    (void)flags;
    void *p = mmap((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                   (int)h - 1, (off_t)off);
    if (p != MAP_FAILED)
        record("map", (uintptr_t)ptr, size);
    return p == MAP_FAILED ? ERR_INVALID : OK;
}
static shoal_CUresult f_cuMemUnmap(shoal_CUdeviceptr ptr, size_t size)
{
    void *p = mmap((void *)(uintptr_t)ptr, size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    record("unmap", (uintptr_t)ptr, size);
    return p == MAP_FAILED ? ERR_INVALID : OK;
}
static shoal_CUresult f_cuMemSetAccess(shoal_CUdeviceptr ptr, size_t size,
                                       const shoal_CUmemAccessDesc *d, size_t n)
{
    record("access", (uintptr_t)ptr, size);
    return n == 1 && d->location.type == SHOAL_CU_MEM_LOCATION_TYPE_DEVICE &&
                   d->flags == SHOAL_CU_MEM_ACCESS_FLAGS_PROT_READWRITE
               ? OK
               : ERR_INVALID;
}
static shoal_CUresult f_cuMemExportToShareableHandle(void *out,
                                                     shoal_CUmemGenericAllocationHandle h, int type,
                                                     unsigned long long flags)
{
    (void)flags;
    if (type != SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return ERR_INVALID;
    int fd = dup((int)h - 1);
    if (fd < 0)
        return ERR_INVALID;
    memcpy(out, &fd, sizeof(fd));
    return OK;
}
static shoal_CUresult f_cuMemImportFromShareableHandle(shoal_CUmemGenericAllocationHandle *h,
                                                       void *os_handle, int type)
{
    if (fails("import") || type != SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return ERR_INVALID;
    int fd = dup((int)(uintptr_t)os_handle);
    if (fd < 0)
        return ERR_INVALID;
    *h = (shoal_CUmemGenericAllocationHandle)fd + 1;
    return OK;
}

/* Host memory is the fake GPU's memory: registering it pins nothing and the
 * device address is the host address. The registered ranges are kept so
 * the rules of the real driver hold: a range may not overlap one that is
 * registered (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED), unregistering
 * takes the base of a registered range (..._NOT_REGISTERED), and only
 * registered memory has a device pointer. Logged as "register ADDR SIZE"
 * and "unregister ADDR SIZE". FAKE_CUDA_FAIL=register refuses. */
#define ERR_ALREADY_REGISTERED 712
#define ERR_NOT_REGISTERED 713
#define MAX_HOST_REGS 4096

static struct {
    uintptr_t base;
    size_t size;
} host_regs[MAX_HOST_REGS];
static int nhost_regs;
static pthread_mutex_t host_regs_lock = PTHREAD_MUTEX_INITIALIZER;

/* The index of the registered range that holds [p, p + n), or -1. */
static int host_reg_find(uintptr_t p, size_t n)
{
    for (int i = 0; i < nhost_regs; i++)
        if (p - host_regs[i].base < host_regs[i].size &&
            n <= host_regs[i].size - (p - host_regs[i].base))
            return i;
    return -1;
}

static shoal_CUresult f_cuMemHostRegister(void *p, size_t bytes, unsigned int flags)
{
    (void)flags;
    if (p == NULL || bytes == 0 || fails("register"))
        return ERR_INVALID;
    const uintptr_t a = (uintptr_t)p;
    shoal_CUresult r = OK;
    pthread_mutex_lock(&host_regs_lock);
    for (int i = 0; i < nhost_regs && r == OK; i++)
        if (a < host_regs[i].base + host_regs[i].size && host_regs[i].base < a + bytes)
            r = ERR_ALREADY_REGISTERED;
    if (r == OK && nhost_regs == MAX_HOST_REGS)
        r = ERR_OOM;
    if (r == OK) {
        host_regs[nhost_regs].base = a;
        host_regs[nhost_regs].size = bytes;
        nhost_regs++;
        record("register", a, bytes);
    }
    pthread_mutex_unlock(&host_regs_lock);
    return r;
}
static shoal_CUresult f_cuMemHostUnregister(void *p)
{
    if (p == NULL)
        return ERR_INVALID;
    shoal_CUresult r = ERR_NOT_REGISTERED;
    pthread_mutex_lock(&host_regs_lock);
    for (int i = 0; i < nhost_regs; i++) {
        if (host_regs[i].base != (uintptr_t)p)
            continue;
        record("unregister", host_regs[i].base, host_regs[i].size);
        host_regs[i] = host_regs[--nhost_regs];
        r = OK;
        break;
    }
    pthread_mutex_unlock(&host_regs_lock);
    return r;
}
static shoal_CUresult f_cuMemHostGetDevicePointer(shoal_CUdeviceptr *d, void *p, unsigned int flags)
{
    (void)flags;
    pthread_mutex_lock(&host_regs_lock);
    const int i = host_reg_find((uintptr_t)p, 1);
    pthread_mutex_unlock(&host_regs_lock);
    if (i < 0)
        return ERR_INVALID;
    *d = (shoal_CUdeviceptr)(uintptr_t)p;
    return OK;
}

/* Streams are synchronous here: a stream operation happens when it is
 * enqueued (a wait spins until its value comes, as a GPU stream would). */
static shoal_CUresult f_cuStreamWriteValue64(shoal_CUstream s, shoal_CUdeviceptr addr,
                                             uint64_t value, unsigned int flags)
{
    (void)s;
    (void)flags;
    if (mode_is("no64memops"))
        return ERR_NOT_SUPPORTED;
    __atomic_store_n((uint64_t *)(uintptr_t)addr, value, __ATOMIC_RELEASE);
    return OK;
}
static shoal_CUresult f_cuStreamWaitValue64(shoal_CUstream s, shoal_CUdeviceptr addr,
                                            uint64_t value, unsigned int flags)
{
    (void)s;
    if (mode_is("no64memops"))
        return ERR_NOT_SUPPORTED;
    for (;;) {
        uint64_t v = __atomic_load_n((uint64_t *)(uintptr_t)addr, __ATOMIC_ACQUIRE);
        if (flags == SHOAL_CU_STREAM_WAIT_VALUE_EQ ? v == value : (int64_t)(v - value) >= 0)
            return OK;
        usleep(20);
    }
}
static shoal_CUresult f_cuStreamWaitValue32(shoal_CUstream s, shoal_CUdeviceptr addr,
                                            uint32_t value, unsigned int flags)
{
    (void)s;
    for (;;) {
        uint32_t v = __atomic_load_n((uint32_t *)(uintptr_t)addr, __ATOMIC_ACQUIRE);
        if (flags == SHOAL_CU_STREAM_WAIT_VALUE_EQ ? v == value : (int32_t)(v - value) >= 0)
            return OK;
        usleep(20);
    }
}
/* CUDA forbids a host function that blocks; here one that runs longer than
 * FAKE_CUDA_HOSTFN_LIMIT_MS (when set) ends the process saying so. */
static shoal_CUresult f_cuLaunchHostFunc(shoal_CUstream s, shoal_CUhostFn fn, void *data)
{
    (void)s;
    const char *limit = getenv("FAKE_CUDA_HOSTFN_LIMIT_MS");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    fn(data);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    if (limit != NULL && ms > atol(limit)) {
        fprintf(stderr,
                "fake cuda: FAIL: a host function ran %ld ms (limit %s ms): host "
                "functions must not block\n",
                ms, limit);
        abort();
    }
    return OK;
}

EXPORT shoal_CUresult cuDriverGetVersion(int *v)
{
    *v = 12040;
    return OK;
}

EXPORT shoal_CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version,
                                          uint64_t flags, int *status)
{
    (void)flags;
    const char *m = getenv("FAKE_CUDA_MODE");
    if (status != NULL)
        *status = 0;
    *pfn = NULL;
    if (version != SHOAL_CU_ABI_VERSION)
        return ERR_INVALID; /* the loader asks for the ABI it declares */
    if (m != NULL && strcmp(m, "noproc") == 0 && strcmp(symbol, "cuMemCreate") == 0)
        return ERR_NOT_FOUND;
#define FAKE_ENTRY(name, params)                                                                   \
    if (strcmp(symbol, #name) == 0) {                                                              \
        *pfn = (void *)f_##name;                                                                   \
        return OK;                                                                                 \
    }
    SHOAL_CU_FUNCTIONS(FAKE_ENTRY)
#undef FAKE_ENTRY
    return ERR_NOT_FOUND;
}
