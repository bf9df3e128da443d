/*
 * Exit 0 when this machine has a CUDA driver with at least one device, else
 * 77 (ctest's "skipped"), saying why. It loads the driver the way libshoal
 * does (SHOAL_CUDA_LIBRARY, default libcuda.so.1) and links nothing of CUDA,
 * so it runs everywhere. tests/device/run_gpu.sh runs it before a GPU test.
 *
 * `gpu_probe hold`: after a successful probe, keeps device 0's primary
 * context until killed, so that the GPU stays initialized between the short
 * processes of scripts/gpu-check.sh (where persistence mode cannot be set).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
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
    if (argc > 1 && strcmp(argv[1], "hold") == 0) {
        int (*get)(int *, int) = (int (*)(int *, int))dlsym(lib, "cuDeviceGet");
        int (*retain)(void **, int) = (int (*)(void **, int))dlsym(lib, "cuDevicePrimaryCtxRetain");
        int dev = 0;
        void *ctx = NULL;
        if (get == NULL || retain == NULL || get(&dev, 0) != 0 || retain(&ctx, dev) != 0) {
            printf("cannot hold device 0's context\n");
            return 1;
        }
        fflush(stdout);
        for (;;)
            pause();
    }
    return 0;
}
