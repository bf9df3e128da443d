/*
 * Loading the CUDA driver at run time (see cuda.h). The outcome, success or
 * the reason for failure, is decided once per process and kept: a missing
 * driver does not appear later, and retrying dlopen on every allocation
 * would only repeat the same message more slowly.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "device/cuda.h"
#include "util/env.h"
#include "util/log.h"

shoal_cuda_t shoal_cu;

static struct {
    pthread_mutex_t lock;
    int tried;
    shoal_status_t status;
    char why[400]; /* the reason, without the calling routine's name */
    void *lib;
} load = {.lock = PTHREAD_MUTEX_INITIALIZER};

const char *shoal_cuda_strerror(const char *call, shoal_CUresult r, char *buf, size_t len)
{
    const char *name = NULL, *text = NULL;
    if (shoal_cu.cuGetErrorName == NULL || shoal_cu.cuGetErrorName(r, &name) != 0)
        name = NULL;
    if (shoal_cu.cuGetErrorString == NULL || shoal_cu.cuGetErrorString(r, &text) != 0)
        text = NULL;
    if (name != NULL)
        snprintf(buf, len, "%s failed: %s (%s)", call, name, text != NULL ? text : "no text");
    else
        snprintf(buf, len, "%s failed: CUDA error %d", call, r);
    return buf;
}

/* Resolves every entry point of SHOAL_CU_FUNCTIONS through the driver's
 * cuGetProcAddress_v2, at the ABI of SHOAL_CU_ABI_VERSION. */
static shoal_status_t resolve(shoal_cuGetProcAddress_v2_t get_proc, const char *libname)
{
    shoal_CUresult r;
    int found;
#define SHOAL_CU_RESOLVE(name, params)                                                             \
    found = 0;                                                                                     \
    r = get_proc(#name, (void **)&shoal_cu.name, SHOAL_CU_ABI_VERSION,                             \
                 SHOAL_CU_GET_PROC_ADDRESS_DEFAULT, &found);                                       \
    if (r != SHOAL_CUDA_SUCCESS || shoal_cu.name == NULL) {                                        \
        snprintf(load.why, sizeof(load.why),                                                       \
                 "the CUDA driver %d.%d in %s has no " #name " (cuGetProcAddress returned %d); "   \
                 "Shoal needs a driver of CUDA 12.0 or later",                                     \
                 shoal_cu.driver_version / 1000, shoal_cu.driver_version % 1000 / 10, libname, r); \
        return SHOAL_ERR_UNSUPPORTED;                                                              \
    }
    SHOAL_CU_FUNCTIONS(SHOAL_CU_RESOLVE)
#undef SHOAL_CU_RESOLVE
    return SHOAL_OK;
}

static shoal_status_t load_once(void)
{
    const char *libname = shoal_env.cuda_library != NULL && shoal_env.cuda_library[0]
                              ? shoal_env.cuda_library
                              : "libcuda.so.1";
    load.lib = dlopen(libname, RTLD_NOW | RTLD_LOCAL);
    if (load.lib == NULL) {
        const char *e = dlerror();
        snprintf(load.why, sizeof(load.why),
                 "no CUDA driver (%s not found: %s); device memory needs the NVIDIA driver and "
                 "a GPU on this host (set SHOAL_CUDA_LIBRARY if the driver library is elsewhere)",
                 libname, e != NULL ? e : "dlopen failed");
        return SHOAL_ERR_NOT_FOUND;
    }
    shoal_cuDriverGetVersion_t get_version =
        (shoal_cuDriverGetVersion_t)dlsym(load.lib, "cuDriverGetVersion");
    shoal_cuGetProcAddress_v2_t get_proc =
        (shoal_cuGetProcAddress_v2_t)dlsym(load.lib, "cuGetProcAddress_v2");
    if (get_version == NULL || get_proc == NULL) {
        snprintf(load.why, sizeof(load.why),
                 "%s is not a CUDA driver of CUDA 12.0 or later (it has no %s); install a "
                 "current NVIDIA driver or point SHOAL_CUDA_LIBRARY at one",
                 libname, get_version == NULL ? "cuDriverGetVersion" : "cuGetProcAddress_v2");
        return SHOAL_ERR_UNSUPPORTED;
    }
    if (get_version(&shoal_cu.driver_version) != SHOAL_CUDA_SUCCESS)
        shoal_cu.driver_version = 0;
    shoal_status_t status = resolve(get_proc, libname);
    if (status != SHOAL_OK)
        return status;
    char err[200];
    shoal_CUresult r = shoal_cu.cuInit(0);
    if (r == SHOAL_CUDA_ERROR_NO_DEVICE) {
        snprintf(load.why, sizeof(load.why),
                 "no CUDA device (the driver %d.%d in %s is there, but %s); check nvidia-smi "
                 "and CUDA_VISIBLE_DEVICES",
                 shoal_cu.driver_version / 1000, shoal_cu.driver_version % 1000 / 10, libname,
                 shoal_cuda_strerror("cuInit", r, err, sizeof(err)));
        return SHOAL_ERR_NOT_FOUND;
    }
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(load.why, sizeof(load.why), "the CUDA driver in %s cannot start: %s", libname,
                 shoal_cuda_strerror("cuInit", r, err, sizeof(err)));
        return SHOAL_ERR_SYSTEM;
    }
    r = shoal_cu.cuDeviceGetCount(&shoal_cu.ndevices);
    if (r != SHOAL_CUDA_SUCCESS || shoal_cu.ndevices <= 0) {
        snprintf(load.why, sizeof(load.why),
                 "no CUDA device (the driver in %s sees none%s%s); check nvidia-smi and "
                 "CUDA_VISIBLE_DEVICES",
                 libname, r != SHOAL_CUDA_SUCCESS ? ": " : "",
                 r != SHOAL_CUDA_SUCCESS
                     ? shoal_cuda_strerror("cuDeviceGetCount", r, err, sizeof(err))
                     : "");
        return SHOAL_ERR_NOT_FOUND;
    }
    SHOAL_DEBUG("CUDA driver %d.%d loaded from %s: %d device(s)", shoal_cu.driver_version / 1000,
                shoal_cu.driver_version % 1000 / 10, libname, shoal_cu.ndevices);
    return SHOAL_OK;
}

shoal_status_t shoal_cuda_load(const char *fn, char *msg, size_t msglen)
{
    pthread_mutex_lock(&load.lock);
    if (!load.tried) {
        load.tried = 1;
        load.status = load_once();
        if (load.status != SHOAL_OK) {
            /* Nothing half-loaded stays callable. */
            memset(&shoal_cu, 0, sizeof(shoal_cu));
            if (load.lib != NULL)
                dlclose(load.lib);
            load.lib = NULL;
        }
    }
    shoal_status_t status = load.status;
    if (status != SHOAL_OK)
        snprintf(msg, msglen, "%s: %s", fn, load.why);
    pthread_mutex_unlock(&load.lock);
    return status;
}
