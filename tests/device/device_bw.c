/*
 * Host put/get into a local peer's device heap: latency and bandwidth of
 * shmem_putmem and shmem_getmem (copies through the CUDA driver) from PE 0
 * to PE 1, at 8 B, 4 KiB, 1 MiB and 64 MiB, for scripts/gpu-check.sh's
 * record. The last transfer's bytes are checked on PE 1, so a wrong copy
 * fails it. At least 2 PEs.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../api/check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const size_t max = (size_t)64 << 20;
    char *d = shmemx_malloc_device(max, SHMEMX_DEVICE_DEFAULT);
    CHECK(d != NULL, "a %zu-byte device block", max);
    unsigned char *buf = malloc(max), *back = malloc(max);
    CHECK(buf != NULL && back != NULL, "host buffers");
    for (size_t i = 0; i < max; i++)
        buf[i] = (unsigned char)(i * 131 + 7);
    const size_t sizes[] = {8, 4096, (size_t)1 << 20, max};
    const int iters[] = {2000, 1000, 50, 5};
    const int peer = npes > 1 ? 1 : 0;
    shmem_barrier_all();
    if (me == 0) {
        for (unsigned k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
            double t = now_s();
            for (int i = 0; i < iters[k]; i++)
                shmem_putmem(d, buf, sizes[k], peer);
            double put = (now_s() - t) / iters[k];
            t = now_s();
            for (int i = 0; i < iters[k]; i++)
                shmem_getmem(back, d, sizes[k], peer);
            double get = (now_s() - t) / iters[k];
            printf("host -> PE %d device heap %9zu B: putmem %9.2f us %7.2f GB/s | getmem %9.2f "
                   "us %7.2f GB/s\n",
                   peer, sizes[k], put * 1e6, (double)sizes[k] / put / 1e9, get * 1e6,
                   (double)sizes[k] / get / 1e9);
        }
        fflush(stdout);
    }
    shmem_barrier_all();
    if (me == peer) {
        shmem_getmem(back, d, max, me);
        for (size_t i = 0; i < max; i++)
            CHECK_VAL("device block after the puts", i, back[i], buf[i]);
    }
    shmem_free(d);
    free(buf);
    free(back);
    sht_pass("device_bw");
    shmem_finalize();
    return 0;
}
