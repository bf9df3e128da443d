/*
 * The CUDA driver, loaded at run time. libshoal never links libcuda: the
 * first request for device memory dlopen()s the driver library
 * (SHOAL_CUDA_LIBRARY, default libcuda.so.1), finds cuGetProcAddress_v2
 * with dlsym and every other entry point through it (cuda_abi.h lists
 * them), and calls cuInit. A program that never asks for device memory
 * never loads it, and a machine without a driver or a GPU gets an error
 * naming the call and what is missing instead of a program that cannot
 * start.
 *
 * A build configured with -DSHOAL_WITH_CUDA=OFF compiles cuda_none.c
 * instead, whose loader always fails and says so.
 */
#ifndef SHOAL_DEVICE_CUDA_H
#define SHOAL_DEVICE_CUDA_H

#include "device/cuda_abi.h"
#include "util/status.h"

/* One pointer per entry point of SHOAL_CU_FUNCTIONS, named as the driver
 * names it: shoal_cu.cuMemCreate(...). Valid once shoal_cuda_load
 * succeeded. */
typedef struct {
#define SHOAL_CU_POINTER(name, params) shoal_CUresult(*name) params;
    SHOAL_CU_FUNCTIONS(SHOAL_CU_POINTER)
#undef SHOAL_CU_POINTER
    int driver_version; /* e.g. 13000 */
    int ndevices;
} shoal_cuda_t;

extern shoal_cuda_t shoal_cu;

/* Loads and initializes the driver once per process (thread-safe). On
 * failure returns an error and writes why into msg (msglen bytes, starting
 * with `fn`: "shmemx_malloc_device: no CUDA driver (libcuda.so.1 not found:
 * ...)"); every later call fails the same way without trying again. */
shoal_status_t shoal_cuda_load(const char *fn, char *msg, size_t msglen);

/* "cuMemCreate failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for a
 * driver result, into buf; returns buf. */
const char *shoal_cuda_strerror(const char *call, shoal_CUresult r, char *buf, size_t len);

#endif
