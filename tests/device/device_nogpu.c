/*
 * A device allocation where the device side cannot work (no driver, no GPU,
 * a library that is not a driver, a device that does not exist, a build
 * without the device side) returns NULL on every PE and the job goes on:
 * host RMA is still right after it. tests/device/run_device_errors.sh runs
 * it in each situation and checks the one message it gives.
 * argv[1]: the device ordinal to ask for (default: SHMEMX_DEVICE_DEFAULT,
 * and then a shmem_malloc_with_hints(SHMEMX_MALLOC_DEVICE) as well, and
 * shmem_malloc_with_hints with every hint bit set, or all but one, which
 * must give host memory).
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdlib.h>

#include "../api/check.h"

#define N 1024

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const int device = argc > 1 ? atoi(argv[1]) : SHMEMX_DEVICE_DEFAULT;

    void *d = shmemx_malloc_device(1 << 20, device);
    CHECK(d == NULL, "shmemx_malloc_device returned %p where the device side cannot work", d);
    if (argc <= 1) { /* a named device may exist; the default one may work */
        d = shmem_malloc_with_hints(1 << 20, SHMEMX_MALLOC_DEVICE);
        CHECK(d == NULL, "shmem_malloc_with_hints(SHMEMX_MALLOC_DEVICE) returned %p", d);
    }
    if (argc <= 1) {
        /* SHMEMX_MALLOC_DEVICE among bits no hint defines (all bits, all but
         * one) is no device request: host memory, without a message. */
        const long words[2] = {~0L, ~0L & ~SHMEM_MALLOC_ATOMICS_REMOTE};
        for (int h = 0; h < 2; h++) {
            long *p = shmem_malloc_with_hints(64 * sizeof(long), words[h]);
            CHECK(p != NULL, "shmem_malloc_with_hints(0x%lx) returned NULL", words[h]);
            long v = 500L * h + me;
            shmem_long_put(&p[0], &v, 1, right);
            shmem_barrier_all();
            CHECK_VAL("all-bits-hint block put by the left PE", h, p[0], 500L * h + left);
            CHECK_VAL("all-bits-hint block got from the right PE", h, shmem_long_g(&p[0], right),
                      500L * h + me);
            shmem_free(p);
        }
    }
    if (argc <= 1) { /* the device view for kernels fails the same way, on every PE */
        shmemx_dev_t view;
        CHECK(shmemx_dev_create(&view) == -1,
              "shmemx_dev_create where the device side cannot work");
    }
    size_t total, used, backed;
    int dev;
    shmemx_device_heap_info(&total, &used, &backed, &dev);
    CHECK(dev == -1 && total == 0 && backed == 0, "no device heap (device %d, %zu bytes)", dev,
          total);
    shmem_free(NULL);

    long *x = shmem_malloc(N * sizeof(long));
    static long src[N];
    for (int i = 0; i < N; i++)
        src[i] = me * 100000L + i;
    shmem_putmem(x, src, sizeof(src), right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK_VAL("host heap after a failed device allocation", i, x[i], left * 100000L + i);
    shmem_barrier_all(); /* every PE has checked its x[0] before it changes */
    long v = shmem_long_atomic_fetch_add(&x[0], 1, right);
    CHECK_VAL("fetch-add after a failed device allocation", 0, v, me * 100000L);
    shmem_free(x);
    sht_pass("device_nogpu");
    shmem_finalize();
    return 0;
}
