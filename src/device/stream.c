/*
 * Stream-ordered transfers and signals (see stream.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>
#include <shmemx_device.h> /* the comparison and the pause a kernel's wait uses */

#include "device/cuda.h"
#include "device/device_heap.h"
#include "device/stream.h"
#include "util/cmp_names.h"

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

static void host_wait(void *arg)
{
    host_word_t *w = arg;
    unsigned spins = 0;
    while (!shmemx_dev__compare(w->op, 0, __atomic_load_n(w->sig, __ATOMIC_ACQUIRE), w->value))
        shmemx_dev__pause(&spins); /* the CPU form: yields, then short sleeps */
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
        return host_func(fn, host_wait, sig, value, cmp, stream, msg, msglen);
    if (cmp != SHMEM_CMP_GE && cmp != SHMEM_CMP_EQ) {
        snprintf(msg, msglen,
                 "%s: a stream can wait on a word in device memory (%p) only for SHMEM_CMP_GE "
                 "or SHMEM_CMP_EQ (cuStreamWaitValue64); wait in a kernel "
                 "(shmemx_dev_signal_wait_until) or keep the signal in host symmetric memory",
                 fn, (void *)sig);
        return SHOAL_ERR_UNSUPPORTED;
    }
    return stream_memop(fn, "cuStreamWaitValue64", shoal_cu.cuStreamWaitValue64, sig, value,
                        cmp == SHMEM_CMP_EQ ? SHOAL_CU_STREAM_WAIT_VALUE_EQ
                                            : SHOAL_CU_STREAM_WAIT_VALUE_GEQ,
                        stream, msg, msglen);
}
