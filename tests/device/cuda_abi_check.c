/*
 * src/device/cuda_abi.h declares the driver types and constants instead of
 * including cuda.h (so libshoal builds without the toolkit). Built only
 * where the toolkit is: every size, field offset and value there must be
 * cuda.h's, or this file does not compile.
 */
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>

#include "device/cuda_abi.h"

#define SAME_SIZE(ours, theirs)                                                                    \
    _Static_assert(sizeof(ours) == sizeof(theirs), #ours " differs in size from " #theirs)
#define SAME_FIELD(ours, theirs, field)                                                            \
    _Static_assert(offsetof(ours, field) == offsetof(theirs, field),                               \
                   #ours "." #field " is not where cuda.h has it")
#define SAME_VALUE(name) _Static_assert(SHOAL_##name == name, "SHOAL_" #name " differs from " #name)

SAME_SIZE(shoal_CUresult, CUresult);
SAME_SIZE(shoal_CUdevice, CUdevice);
SAME_SIZE(shoal_CUcontext, CUcontext);
SAME_SIZE(shoal_CUstream, CUstream);
SAME_SIZE(shoal_CUdeviceptr, CUdeviceptr);
SAME_SIZE(shoal_CUmemGenericAllocationHandle, CUmemGenericAllocationHandle);
SAME_SIZE(shoal_CUmemLocation, CUmemLocation);
SAME_FIELD(shoal_CUmemLocation, CUmemLocation, type);
SAME_FIELD(shoal_CUmemLocation, CUmemLocation, id);
SAME_SIZE(shoal_CUmemAllocationProp, CUmemAllocationProp);
SAME_FIELD(shoal_CUmemAllocationProp, CUmemAllocationProp, type);
SAME_FIELD(shoal_CUmemAllocationProp, CUmemAllocationProp, requestedHandleTypes);
SAME_FIELD(shoal_CUmemAllocationProp, CUmemAllocationProp, location);
SAME_FIELD(shoal_CUmemAllocationProp, CUmemAllocationProp, win32HandleMetaData);
SAME_FIELD(shoal_CUmemAllocationProp, CUmemAllocationProp, allocFlags);
SAME_FIELD(shoal_CUmemAllocationProp, CUmemAllocationProp, allocFlags.usage);
SAME_SIZE(shoal_CUmemAccessDesc, CUmemAccessDesc);
SAME_FIELD(shoal_CUmemAccessDesc, CUmemAccessDesc, location);
SAME_FIELD(shoal_CUmemAccessDesc, CUmemAccessDesc, flags);
SAME_SIZE(int, CUmemAllocationHandleType); /* enums passed as int */
SAME_SIZE(int, CUdevice_attribute);

SAME_VALUE(CUDA_SUCCESS);
SAME_VALUE(CUDA_ERROR_NOT_INITIALIZED);
SAME_VALUE(CUDA_ERROR_NO_DEVICE);
SAME_VALUE(CUDA_ERROR_NOT_SUPPORTED);
SAME_VALUE(CU_MEM_ALLOCATION_TYPE_PINNED);
SAME_VALUE(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
SAME_VALUE(CU_MEM_LOCATION_TYPE_DEVICE);
SAME_VALUE(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
SAME_VALUE(CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
SAME_VALUE(CU_STREAM_NON_BLOCKING);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS);
SAME_VALUE(CU_GET_PROC_ADDRESS_DEFAULT);
SAME_VALUE(CU_MEMHOSTREGISTER_PORTABLE);
SAME_VALUE(CU_MEMHOSTREGISTER_DEVICEMAP);
SAME_VALUE(CU_STREAM_WAIT_VALUE_GEQ);
SAME_VALUE(CU_STREAM_WAIT_VALUE_EQ);
SAME_VALUE(CU_STREAM_WRITE_VALUE_DEFAULT);

/* cuda.h's cuGetProcAddress is the _v2 the loader looks up by name. */
_Static_assert(sizeof(&cuGetProcAddress_v2) == sizeof(shoal_cuGetProcAddress_v2_t),
               "cuGetProcAddress_v2");

int main(void)
{
    printf("cuda_abi.h agrees with cuda.h of CUDA %d.%d\n", CUDA_VERSION / 1000,
           CUDA_VERSION % 1000 / 10);
    return 0;
}
