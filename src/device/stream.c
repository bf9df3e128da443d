/*
 * Stream-ordered transfers and signals (see stream.h), the waiter that
 * lets a stream wait on a host-memory word without blocking a host
 * function, and the stream barrier through host memory that PEs sharing a
 * GPU without MPS use instead of a spinning kernel.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <shmem.h>
#include <shmemx_device.h> /* the comparison and the pause a kernel's wait uses */

#include "device/cuda.h"
#include "device/device_heap.h"
#include "device/stream.h"
#include "util/cmp_names.h"
#include "util/log.h"
#include "util/thread.h"

/* The driver and its context for one call; 0, or an error in msg. */
static shoal_status_t enter(const char *fn, shoal_CUcontext *prev, char *msg, size_t msglen)
{
    shoal_status_t status = shoal_cuda_load(fn, msg, msglen);
    if (status == SHOAL_OK)
        *prev = shoal_device_ctx_enter();
    return status;
}

static shoal_status_t driver_result(const char *fn, const char *call, shoal_CUresult r,
                                    shoal_CUcontext prev, char *msg, size_t msglen)
{
    char err[200];
    shoal_device_ctx_leave(prev);
    if (r == SHOAL_CUDA_SUCCESS)
        return SHOAL_OK;
    snprintf(msg, msglen, "%s: %s", fn, shoal_cuda_strerror(call, r, err, sizeof(err)));
    return SHOAL_ERR_SYSTEM;
}

shoal_status_t shoal_device_stream_copy(const char *fn, void *dst, const void *src, size_t len,
                                        shoal_CUstream stream, char *msg, size_t msglen)
{
    shoal_CUcontext prev;
    shoal_status_t status = len == 0 ? SHOAL_OK : enter(fn, &prev, msg, msglen);
    if (status != SHOAL_OK || len == 0)
        return status;
    shoal_CUresult r = shoal_cu.cuMemcpyAsync((shoal_CUdeviceptr)(uintptr_t)dst,
                                              (shoal_CUdeviceptr)(uintptr_t)src, len, stream);
    return driver_result(fn, "cuMemcpyAsync", r, prev, msg, msglen);
}

/* ---- host-memory words: host functions run in stream order ---- */

typedef struct {
    uint64_t *sig;
    uint64_t value;
    int op; /* SHMEM_SIGNAL_* or, for a wait, the comparison */
} host_word_t;

static void host_signal(void *arg)
{
    host_word_t *w = arg;
    if (w->op == SHMEM_SIGNAL_ADD)
        __atomic_fetch_add(w->sig, w->value, __ATOMIC_RELEASE);
    else
        __atomic_store_n(w->sig, w->value, __ATOMIC_RELEASE);
    free(w);
}

static shoal_status_t host_func(const char *fn, void (*f)(void *), uint64_t *sig, uint64_t value,
                                int op, shoal_CUstream stream, char *msg, size_t msglen)
{
    shoal_CUcontext prev;
    shoal_status_t status = enter(fn, &prev, msg, msglen);
    if (status != SHOAL_OK)
        return status;
    host_word_t *w = malloc(sizeof(*w));
    if (w == NULL) {
        shoal_device_ctx_leave(prev);
        snprintf(msg, msglen, "%s: out of memory", fn);
        return SHOAL_ERR_NOMEM;
    }
    *w = (host_word_t){sig, value, op};
    shoal_CUresult r = shoal_cu.cuLaunchHostFunc(stream, f, w);
    if (r != SHOAL_CUDA_SUCCESS)
        free(w);
    return driver_result(fn, "cuLaunchHostFunc", r, prev, msg, msglen);
}

/* A stream write or wait on a device-memory word (same driver signature). */
typedef shoal_CUresult (*memop_t)(shoal_CUstream, shoal_CUdeviceptr, uint64_t, unsigned int);

static shoal_status_t stream_memop(const char *fn, const char *call, memop_t op, uint64_t *sig,
                                   uint64_t value, unsigned flags, shoal_CUstream stream, char *msg,
                                   size_t msglen)
{
    shoal_CUcontext prev;
    shoal_status_t status = enter(fn, &prev, msg, msglen);
    if (status != SHOAL_OK)
        return status;
    shoal_CUresult r = op(stream, (shoal_CUdeviceptr)(uintptr_t)sig, value, flags);
    return driver_result(fn, call, r, prev, msg, msglen);
}

/* ---- stream waits on host-memory words: the gate waiter -------------------
 * CUDA forbids a host function that blocks (it runs on the driver's one
 * callback thread; spinning there can deadlock the stream's own process).
 * So a wait on a host word is two stream operations: a host function that
 * only arms a gate (returns at once), then a 32-bit stream wait on that
 * gate, in a page of host memory registered for the GPU. This process's
 * waiter thread polls the armed words (with the CPU pause: yields, then
 * short sleeps) and opens a gate by storing its ticket. A gate's tickets
 * only grow, so a reused gate never releases an older wait early or late.
 * 32-bit stream waits need no 64-bit stream memory operations. */

#define GATES 512

typedef struct {
    uint64_t *sig;
    uint64_t value;
    int cmp;
    int busy, armed;
    uint32_t ticket;
} gate_job_t;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int up, stop;
    pthread_t thread;
    uint32_t *gate; /* [GATES], host memory the GPU reads */
    size_t gate_bytes;
    shoal_CUdeviceptr gate_dev;
    gate_job_t job[GATES];
} waiter = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void *waiter_main(void *unused)
{
    (void)unused;
    shoal_thread_name("shoal-streamwait");
    unsigned spins = 0;
    pthread_mutex_lock(&waiter.lock);
    while (!waiter.stop) {
        int armed = 0;
        for (unsigned g = 0; g < GATES; g++) {
            gate_job_t *j = &waiter.job[g];
            if (!j->armed)
                continue;
            armed++;
            if (shmemx_dev__compare(j->cmp, 0, __atomic_load_n(j->sig, __ATOMIC_ACQUIRE),
                                    j->value)) {
                __atomic_store_n(&waiter.gate[g], j->ticket, __ATOMIC_RELEASE);
                j->armed = j->busy = 0;
                armed--;
                spins = 0;
            }
        }
        if (armed == 0) {
            pthread_cond_wait(&waiter.cond, &waiter.lock);
            spins = 0;
            continue;
        }
        pthread_mutex_unlock(&waiter.lock);
        shmemx_dev__pause(&spins); /* the CPU form: yields, then short sleeps */
        pthread_mutex_lock(&waiter.lock);
    }
    pthread_mutex_unlock(&waiter.lock);
    return NULL;
}

/* The gate page and the thread, once (called with the lock held and the
 * context current). */
static shoal_status_t waiter_start(const char *fn, char *msg, size_t msglen)
{
    char err[200];
    if (waiter.up)
        return SHOAL_OK;
    waiter.gate_bytes = ((GATES * sizeof(uint32_t) + 4095) / 4096) * 4096;
    void *page =
        mmap(NULL, waiter.gate_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) {
        snprintf(msg, msglen, "%s: cannot map the stream wait gates: %m", fn);
        return SHOAL_ERR_NOMEM;
    }
    shoal_CUresult r = shoal_cu.cuMemHostRegister(page, waiter.gate_bytes,
                                                  SHOAL_CU_MEMHOSTREGISTER_PORTABLE |
                                                      SHOAL_CU_MEMHOSTREGISTER_DEVICEMAP);
    const char *call = "cuMemHostRegister";
    if (r == SHOAL_CUDA_SUCCESS) {
        call = "cuMemHostGetDevicePointer";
        r = shoal_cu.cuMemHostGetDevicePointer(&waiter.gate_dev, page, 0);
        if (r != SHOAL_CUDA_SUCCESS)
            shoal_cu.cuMemHostUnregister(page);
    }
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen, "%s: cannot make the stream wait gates reachable from the GPU: %s",
                 fn, shoal_cuda_strerror(call, r, err, sizeof(err)));
        munmap(page, waiter.gate_bytes);
        return SHOAL_ERR_SYSTEM;
    }
    waiter.gate = page;
    waiter.stop = 0;
    if (pthread_create(&waiter.thread, NULL, waiter_main, NULL) != 0) {
        snprintf(msg, msglen,
                 "%s: cannot start the thread that serves stream waits on host "
                 "memory",
                 fn);
        shoal_cu.cuMemHostUnregister(page);
        munmap(page, waiter.gate_bytes);
        waiter.gate = NULL;
        return SHOAL_ERR_SYSTEM;
    }
    waiter.up = 1;
    return SHOAL_OK;
}

/* The host function: arms its gate's job and returns. */
static void gate_arm(void *arg)
{
    gate_job_t *j = arg;
    pthread_mutex_lock(&waiter.lock);
    j->armed = 1;
    pthread_cond_signal(&waiter.cond);
    pthread_mutex_unlock(&waiter.lock);
}

static shoal_status_t host_wait(const char *fn, uint64_t *sig, int cmp, uint64_t value,
                                shoal_CUstream stream, char *msg, size_t msglen)
{
    shoal_CUcontext prev;
    shoal_status_t status = enter(fn, &prev, msg, msglen);
    if (status != SHOAL_OK)
        return status;
    pthread_mutex_lock(&waiter.lock);
    status = waiter_start(fn, msg, msglen);
    unsigned g = 0;
    while (status == SHOAL_OK && g < GATES && waiter.job[g].busy)
        g++;
    if (status == SHOAL_OK && g == GATES) {
        snprintf(msg, msglen,
                 "%s: %d stream waits on host memory are pending already, the most there can be",
                 fn, GATES);
        status = SHOAL_ERR_NOMEM;
    }
    gate_job_t *j = status == SHOAL_OK ? &waiter.job[g] : NULL;
    if (j != NULL) {
        uint32_t ticket = j->ticket + 1;
        *j = (gate_job_t){sig, value, cmp, 1, 0, ticket};
    }
    pthread_mutex_unlock(&waiter.lock);
    if (status != SHOAL_OK) {
        shoal_device_ctx_leave(prev);
        return status;
    }
    shoal_CUresult r = shoal_cu.cuLaunchHostFunc(stream, gate_arm, j);
    if (r != SHOAL_CUDA_SUCCESS) { /* never armed: give the gate back */
        pthread_mutex_lock(&waiter.lock);
        j->busy = 0;
        pthread_mutex_unlock(&waiter.lock);
        return driver_result(fn, "cuLaunchHostFunc", r, prev, msg, msglen);
    }
    r = shoal_cu.cuStreamWaitValue32(stream, waiter.gate_dev + g * sizeof(uint32_t), j->ticket,
                                     SHOAL_CU_STREAM_WAIT_VALUE_GEQ);
    return driver_result(fn, "cuStreamWaitValue32", r, prev, msg, msglen);
}

/* ---- a barrier on the stream through host memory ----------------------------
 * A host function adds 1 to each peer's counter (release adds into their
 * mappings: no wait), then the stream waits through a gate until this PE's
 * counter holds every peer's add of this round. Neither the GPU nor a host
 * function spins, so PEs that the driver time-slices on one GPU do not pay
 * a slice per hand-off. */

static struct {
    int on_host; /* -1: no device view yet; else the view's choice */
    uint64_t host_barriers;
} sync_path = {.on_host = -1};

static void host_add_all(void *arg)
{
    const shoal_device_stream_peers_t *p = arg;
    for (int i = 0; i < p->n; i++)
        __atomic_fetch_add(p->counter[i], 1, __ATOMIC_RELEASE);
}

shoal_status_t shoal_device_stream_barrier(const char *fn, const shoal_device_stream_peers_t *peers,
                                           uint64_t *mine, uint64_t target, shoal_CUstream stream,
                                           char *msg, size_t msglen)
{
    shoal_CUcontext prev;
    shoal_status_t status = enter(fn, &prev, msg, msglen);
    if (status != SHOAL_OK)
        return status;
    shoal_CUresult r = shoal_cu.cuLaunchHostFunc(stream, host_add_all, (void *)peers);
    status = driver_result(fn, "cuLaunchHostFunc", r, prev, msg, msglen);
    if (status != SHOAL_OK)
        return status;
    status = host_wait(fn, mine, SHMEM_CMP_GE, target, stream, msg, msglen);
    if (status == SHOAL_OK)
        __atomic_fetch_add(&sync_path.host_barriers, 1, __ATOMIC_RELAXED);
    return status;
}

void shoal_device_stream_set_sync(const char *fn, int my_pe, int on_host, const char *why)
{
    sync_path.on_host = on_host;
    if (my_pe == 0)
        SHOAL_INFO("%s: device barriers on a stream (shmemx_dev_barrier_all_on_stream): %s (%s)",
                   fn,
                   on_host ? "through host memory (shmemx_barrier_all_on_stream), no spinning "
                             "kernel"
                           : "a device-side kernel",
                   why);
}

int shoal_device_stream_sync_on_host(void)
{
    return sync_path.on_host;
}

void shoal_device_stream_finalize(void)
{
    if (sync_path.host_barriers > 0)
        SHOAL_DEBUG("stream barriers through host memory: %llu",
                    (unsigned long long)sync_path.host_barriers);
    sync_path.on_host = -1;
    sync_path.host_barriers = 0;
    pthread_mutex_lock(&waiter.lock);
    if (!waiter.up) {
        pthread_mutex_unlock(&waiter.lock);
        return;
    }
    waiter.stop = 1;
    pthread_cond_signal(&waiter.cond);
    pthread_mutex_unlock(&waiter.lock);
    pthread_join(waiter.thread, NULL);
    shoal_CUcontext prev = shoal_device_ctx_enter();
    shoal_cu.cuMemHostUnregister(waiter.gate);
    shoal_device_ctx_leave(prev);
    munmap(waiter.gate, waiter.gate_bytes);
    waiter.gate = NULL;
    memset(waiter.job, 0, sizeof(waiter.job));
    waiter.up = 0;
}

/* ---- words in device memory: 64-bit stream memory operations ---------------
 * Not every device or driver has them (CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_
 * STREAM_MEM_OPS); without them a signal in device memory cannot be written
 * or waited for by a stream, and the call says so instead of failing in the
 * driver. Asked once per process. */
static shoal_status_t mem64_check(const char *fn, const char *what, char *msg, size_t msglen)
{
    static int known, ok;
    char err[200];
    if (!known) {
        size_t total, used, backed;
        int ordinal = -1, v = 0;
        shoal_device_heap_info(&total, &used, &backed, &ordinal);
        shoal_CUdevice dev;
        shoal_CUresult r = shoal_cu.cuDeviceGet(&dev, ordinal < 0 ? 0 : ordinal);
        if (r == SHOAL_CUDA_SUCCESS)
            r = shoal_cu.cuDeviceGetAttribute(
                &v, SHOAL_CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev);
        if (r != SHOAL_CUDA_SUCCESS) {
            snprintf(msg, msglen, "%s: %s", fn,
                     shoal_cuda_strerror("cuDeviceGetAttribute", r, err, sizeof(err)));
            return SHOAL_ERR_SYSTEM;
        }
        ok = v != 0;
        known = 1;
    }
    if (ok)
        return SHOAL_OK;
    snprintf(msg, msglen,
             "%s: this GPU or driver cannot do 64-bit stream memory operations "
             "(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 0), so a stream cannot %s a "
             "signal in device memory; keep the signal in host symmetric memory, or signal and "
             "wait from a kernel (shmemx_dev_putmem_signal, shmemx_dev_signal_wait_until)",
             fn, what);
    return SHOAL_ERR_UNSUPPORTED;
}

shoal_status_t shoal_device_stream_signal(const char *fn, uint64_t *sig, uint64_t value, int op,
                                          shoal_CUstream stream, char *msg, size_t msglen)
{
    if (op != SHMEM_SIGNAL_SET && op != SHMEM_SIGNAL_ADD) {
        snprintf(msg, msglen, "%s: sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", fn,
                 op);
        return SHOAL_ERR_INVALID;
    }
    if (!shoal_device_owns(sig))
        return host_func(fn, host_signal, sig, value, op, stream, msg, msglen);
    if (op == SHMEM_SIGNAL_ADD) {
        snprintf(msg, msglen,
                 "%s: SHMEM_SIGNAL_ADD on a signal in device memory (%p) cannot be done by a "
                 "stream (streams can write a value, not add one); use SHMEM_SIGNAL_SET, keep "
                 "the signal in host symmetric memory, or add from a kernel "
                 "(shmemx_dev_putmem_signal)",
                 fn, (void *)sig);
        return SHOAL_ERR_UNSUPPORTED;
    }
    shoal_status_t status = shoal_cuda_load(fn, msg, msglen);
    if (status == SHOAL_OK)
        status = mem64_check(fn, "write", msg, msglen);
    if (status != SHOAL_OK)
        return status;
    return stream_memop(fn, "cuStreamWriteValue64", shoal_cu.cuStreamWriteValue64, sig, value,
                        SHOAL_CU_STREAM_WRITE_VALUE_DEFAULT, stream, msg, msglen);
}

shoal_status_t shoal_device_stream_wait(const char *fn, uint64_t *sig, int cmp, uint64_t value,
                                        shoal_CUstream stream, char *msg, size_t msglen)
{
    if (!shoal_cmp_valid(cmp)) {
        snprintf(msg, msglen, "%s: cmp %d is not a SHMEM_CMP_* comparison", fn, cmp);
        return SHOAL_ERR_INVALID;
    }
    if (!shoal_device_owns(sig))
        return host_wait(fn, sig, cmp, value, stream, msg, msglen);
    if (cmp != SHMEM_CMP_GE && cmp != SHMEM_CMP_EQ) {
        snprintf(msg, msglen,
                 "%s: a stream can wait on a word in device memory (%p) only for SHMEM_CMP_GE "
                 "or SHMEM_CMP_EQ (cuStreamWaitValue64); wait in a kernel "
                 "(shmemx_dev_signal_wait_until) or keep the signal in host symmetric memory",
                 fn, (void *)sig);
        return SHOAL_ERR_UNSUPPORTED;
    }
    shoal_status_t status = shoal_cuda_load(fn, msg, msglen);
    if (status == SHOAL_OK)
        status = mem64_check(fn, "wait for", msg, msglen);
    if (status != SHOAL_OK)
        return status;
    return stream_memop(fn, "cuStreamWaitValue64", shoal_cu.cuStreamWaitValue64, sig, value,
                        cmp == SHMEM_CMP_EQ ? SHOAL_CU_STREAM_WAIT_VALUE_EQ
                                            : SHOAL_CU_STREAM_WAIT_VALUE_GEQ,
                        stream, msg, msglen);
}
