/*
 * The few CUDA driver types, constants and entry-point signatures the
 * device side uses, declared here instead of taken from the toolkit's
 * cuda.h.
 *
 * Why not cuda.h: libshoal is built by the host compiler on machines that
 * may have no CUDA toolkit at all, and such a build must still drive a GPU
 * when the machine it runs on has a driver. The driver's C ABI is stable by
 * design (a changed signature gets a new versioned name, and
 * cuGetProcAddress hands out the variant of the CUDA version one asks for),
 * so these declarations are the CUDA 12.0 ABI, asked for as 12000. Where the
 * toolkit is present, tests/device/cuda_abi_check.c compiles them next to
 * cuda.h and asserts every size, offset and value here is the toolkit's.
 */
#ifndef SHOAL_DEVICE_CUDA_ABI_H
#define SHOAL_DEVICE_CUDA_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The CUDA version whose ABI these declarations are (cuGetProcAddress). */
#define SHOAL_CU_ABI_VERSION 12000

typedef int shoal_CUresult;
typedef int shoal_CUdevice;
typedef struct shoal_CUctx_st *shoal_CUcontext;
typedef struct shoal_CUstream_st *shoal_CUstream;
typedef unsigned long long shoal_CUdeviceptr;
typedef unsigned long long shoal_CUmemGenericAllocationHandle;

enum {
    SHOAL_CUDA_SUCCESS = 0,
    SHOAL_CUDA_ERROR_NOT_INITIALIZED = 3,
    SHOAL_CUDA_ERROR_NO_DEVICE = 100,
    SHOAL_CUDA_ERROR_NOT_SUPPORTED = 801,
};

enum {
    SHOAL_CU_MEM_ALLOCATION_TYPE_PINNED = 0x1,
    SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 0x1,
    SHOAL_CU_MEM_LOCATION_TYPE_DEVICE = 0x1,
    SHOAL_CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 0x3,
    SHOAL_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 0x1,
    SHOAL_CU_STREAM_NON_BLOCKING = 0x1,
    SHOAL_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    SHOAL_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    SHOAL_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    SHOAL_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
    SHOAL_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103,
    SHOAL_CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122,
    SHOAL_CU_GET_PROC_ADDRESS_DEFAULT = 0,
    SHOAL_CU_MEMHOSTREGISTER_PORTABLE = 0x01,
    SHOAL_CU_MEMHOSTREGISTER_DEVICEMAP = 0x02,
    SHOAL_CU_STREAM_WAIT_VALUE_GEQ = 0x0,
    SHOAL_CU_STREAM_WAIT_VALUE_EQ = 0x1,
    SHOAL_CU_STREAM_WRITE_VALUE_DEFAULT = 0x0,
};

typedef void (*shoal_CUhostFn)(void *user_data);

typedef struct {
    int type; /* CUmemLocationType */
    int id;   /* the device ordinal */
} shoal_CUmemLocation;

typedef struct {
    int type;                 /* CUmemAllocationType */
    int requestedHandleTypes; /* CUmemAllocationHandleType */
    shoal_CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} shoal_CUmemAllocationProp;

typedef struct {
    shoal_CUmemLocation location;
    int flags; /* CUmemAccess_flags */
} shoal_CUmemAccessDesc;

/* The entry points, one X row each: X(name, (parameter list)). The loader
 * (cuda.c) fills one pointer per row through cuGetProcAddress. */
#define SHOAL_CU_FUNCTIONS(X)                                                                      \
    X(cuInit, (unsigned int flags))                                                                \
    X(cuGetErrorString, (shoal_CUresult error, const char **str))                                  \
    X(cuGetErrorName, (shoal_CUresult error, const char **str))                                    \
    X(cuDeviceGetCount, (int *count))                                                              \
    X(cuDeviceGet, (shoal_CUdevice * dev, int ordinal))                                            \
    X(cuDeviceGetName, (char *name, int len, shoal_CUdevice dev))                                  \
    X(cuDeviceGetAttribute, (int *value, int attrib, shoal_CUdevice dev))                          \
    X(cuDevicePrimaryCtxRetain, (shoal_CUcontext * ctx, shoal_CUdevice dev))                       \
    X(cuDevicePrimaryCtxRelease, (shoal_CUdevice dev))                                             \
    X(cuCtxSetCurrent, (shoal_CUcontext ctx))                                                      \
    X(cuCtxGetCurrent, (shoal_CUcontext * ctx))                                                    \
    X(cuStreamCreate, (shoal_CUstream * stream, unsigned int flags))                               \
    X(cuStreamDestroy, (shoal_CUstream stream))                                                    \
    X(cuStreamSynchronize, (shoal_CUstream stream))                                                \
    X(cuMemcpyAsync,                                                                               \
      (shoal_CUdeviceptr dst, shoal_CUdeviceptr src, size_t bytes, shoal_CUstream stream))         \
    X(cuMemGetAllocationGranularity,                                                               \
      (size_t * granularity, const shoal_CUmemAllocationProp *prop, int option))                   \
    X(cuMemAddressReserve, (shoal_CUdeviceptr * ptr, size_t size, size_t alignment,                \
                            shoal_CUdeviceptr addr, unsigned long long flags))                     \
    X(cuMemAddressFree, (shoal_CUdeviceptr ptr, size_t size))                                      \
    X(cuMemCreate, (shoal_CUmemGenericAllocationHandle * handle, size_t size,                      \
                    const shoal_CUmemAllocationProp *prop, unsigned long long flags))              \
    X(cuMemRelease, (shoal_CUmemGenericAllocationHandle handle))                                   \
    X(cuMemMap, (shoal_CUdeviceptr ptr, size_t size, size_t offset,                                \
                 shoal_CUmemGenericAllocationHandle handle, unsigned long long flags))             \
    X(cuMemUnmap, (shoal_CUdeviceptr ptr, size_t size))                                            \
    X(cuMemSetAccess,                                                                              \
      (shoal_CUdeviceptr ptr, size_t size, const shoal_CUmemAccessDesc *desc, size_t count))       \
    X(cuMemExportToShareableHandle, (void *shareable, shoal_CUmemGenericAllocationHandle handle,   \
                                     int handle_type, unsigned long long flags))                   \
    X(cuMemImportFromShareableHandle,                                                              \
      (shoal_CUmemGenericAllocationHandle * handle, void *os_handle, int handle_type))             \
    X(cuMemHostRegister, (void *p, size_t bytes, unsigned int flags))                              \
    X(cuMemHostUnregister, (void *p))                                                              \
    X(cuMemHostGetDevicePointer, (shoal_CUdeviceptr * dptr, void *p, unsigned int flags))          \
    X(cuStreamWriteValue64,                                                                        \
      (shoal_CUstream stream, shoal_CUdeviceptr addr, uint64_t value, unsigned int flags))         \
    X(cuStreamWaitValue64,                                                                         \
      (shoal_CUstream stream, shoal_CUdeviceptr addr, uint64_t value, unsigned int flags))         \
    X(cuStreamWaitValue32,                                                                         \
      (shoal_CUstream stream, shoal_CUdeviceptr addr, uint32_t value, unsigned int flags))         \
    X(cuLaunchHostFunc, (shoal_CUstream stream, shoal_CUhostFn fn, void *user_data))

/* Found with dlsym, before any other: cuGetProcAddress_v2 (CUDA 12.0 and
 * later; CUDA 13's cuda.h maps cuGetProcAddress to it), and the driver's
 * version. */
typedef shoal_CUresult (*shoal_cuGetProcAddress_v2_t)(const char *symbol, void **pfn,
                                                      int cuda_version, uint64_t flags,
                                                      int *symbol_status);
typedef shoal_CUresult (*shoal_cuDriverGetVersion_t)(int *version);

#endif
