/*
 * The CUDA loader of a build configured with -DSHOAL_WITH_CUDA=OFF: there
 * is no device side, and asking for device memory says how to get one.
 */
#include <stdio.h>

#include "device/cuda.h"

shoal_cuda_t shoal_cu;

shoal_status_t shoal_cuda_load(const char *fn, char *msg, size_t msglen)
{
    snprintf(msg, msglen,
             "%s: this Shoal was built without its device side (configured with "
             "-DSHOAL_WITH_CUDA=OFF); reconfigure with -DSHOAL_WITH_CUDA=AUTO or ON to use GPU "
             "memory",
             fn);
    return SHOAL_ERR_UNSUPPORTED;
}

const char *shoal_cuda_strerror(const char *call, shoal_CUresult r, char *buf, size_t len)
{
    snprintf(buf, len, "%s failed: CUDA error %d", call, r);
    return buf;
}
