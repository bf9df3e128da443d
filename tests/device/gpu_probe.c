/*
 * Exit 0 when this machine has a CUDA driver with at least one device, else
 * 77 (ctest's "skipped"), saying why. It loads the driver the way libshoal
 * does (SHOAL_CUDA_LIBRARY, default libcuda.so.1) and links nothing of CUDA,
 * so it runs everywhere. tests/device/run_gpu.sh runs it before a GPU test.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    const char *name = getenv("SHOAL_CUDA_LIBRARY");
    if (name == NULL || name[0] == '\0')
        name = "libcuda.so.1";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("skipped: no CUDA driver (%s)\n", dlerror());
        return 77;
    }
    int (*init)(unsigned) = (int (*)(unsigned))dlsym(lib, "cuInit");
    int (*count)(int *) = (int (*)(int *))dlsym(lib, "cuDeviceGetCount");
    int n = 0, r = init != NULL ? init(0) : -1;
    if (r != 0 || count == NULL || count(&n) != 0 || n < 1) {
        printf("skipped: the CUDA driver in %s sees no device (cuInit %d, %d devices)\n", name, r,
               n);
        return 77;
    }
    printf("%d CUDA device(s) through %s\n", n, name);
    return 0;
}
