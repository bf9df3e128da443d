/*
 * The device symmetric heap from host code, at any PE count on one host:
 * collective allocation (shmemx_malloc_device and shmem_malloc_with_hints),
 * host puts and gets into every PE's device heap with the values checked
 * after they crossed, strided puts, shmem_ptr of device memory, growth past
 * the first backing step, free and reuse, and host RMA still right after.
 * Device memory is never loaded or stored by the host here: every value is
 * read back through shmem_getmem (which copies with the driver).
 *
 * Runs against a real GPU (tests/device/run_gpu.sh skips it without one)
 * and against tests/device/fake_cuda.c (SHOAL_TEST_FAKE_CUDA=1), where it
 * also makes one PE fail an allocation and checks every PE gets NULL.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdlib.h>

#include "../api/check.h"

#define N 4096 /* longs per transfer */

static long src[N], dst[N];

static long pattern(int pe, int i, int round)
{
    return ((long)pe << 40) ^ ((long)round << 24) ^ (long)i * 2654435761L;
}

/* Ring: every PE puts its pattern into its right neighbour's block and
 * gets the left neighbour's back from its own, then from the right. */
static void ring_check(long *block, size_t n, int round)
{
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (size_t i = 0; i < n; i++)
        src[i] = pattern(me, (int)i, round);
    shmem_putmem(block, src, n * sizeof(long), right);
    shmem_barrier_all();
    memset(dst, 0, sizeof(dst));
    shmem_getmem(dst, block, n * sizeof(long), me);
    for (size_t i = 0; i < n; i++)
        CHECK_VAL("own device block (put by the left PE)", i, dst[i], pattern(left, (int)i, round));
    memset(dst, 0, sizeof(dst));
    shmem_getmem(dst, block, n * sizeof(long), right);
    for (size_t i = 0; i < n; i++)
        CHECK_VAL("right PE's device block (put by this PE)", i, dst[i],
                  pattern(me, (int)i, round));
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int right = (me + 1) % npes;
    const int fake = getenv("SHOAL_TEST_FAKE_CUDA") != NULL;

    size_t total, used, backed;
    int device;
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(device == -1 && total == 0, "no device heap before the first device allocation");

    long *a = shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    CHECK(a != NULL, "shmemx_malloc_device of %zu bytes returned NULL", N * sizeof(long));
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(device >= 0 && backed >= N * sizeof(long) && used >= N * sizeof(long) && total >= backed,
          "heap info after one block: device %d, total %zu, used %zu, backed %zu", device, total,
          used, backed);
    CHECK(((uintptr_t)a & 255) == 0, "device blocks are 256-byte aligned (%p)", (void *)a);

    long *b = shmem_malloc_with_hints(64 * sizeof(long), SHMEMX_MALLOC_DEVICE);
    CHECK(b != NULL && b != a, "shmem_malloc_with_hints(SHMEMX_MALLOC_DEVICE) gave %p", (void *)b);

    /* shmem_ptr: this PE's own block is itself; a local peer's is a view at
     * another address in this process (every PE here shares the host). */
    CHECK(shmem_ptr(a, me) == a, "shmem_ptr(a, me) = %p, a = %p", shmem_ptr(a, me), (void *)a);
    if (npes > 1) {
        void *pa = shmem_ptr(a, right);
        CHECK(pa != NULL && pa != a, "shmem_ptr of the right PE's device block: %p", pa);
        CHECK(shmem_addr_accessible(a, right), "a device block is accessible on a local PE");
    }

    ring_check(a, N, 1);
    ring_check(b, 64, 2);

    /* With the standard hints beside it, SHMEMX_MALLOC_DEVICE still asks for
     * the device heap. Among bits no hint defines (every bit, all but one)
     * it is no device request: those blocks are on the host heap, loaded
     * and stored by the host, and the device heap does not change. */
    size_t dev_used0, host_total, host_used0, host_used, largest;
    shmemx_device_heap_info(&total, &dev_used0, &backed, &device);
    long *e = shmem_malloc_with_hints(64 * sizeof(long), SHMEMX_MALLOC_DEVICE |
                                                             SHMEM_MALLOC_ATOMICS_REMOTE |
                                                             SHMEM_MALLOC_SIGNAL_REMOTE);
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(e != NULL && used > dev_used0,
          "SHMEMX_MALLOC_DEVICE with the standard hints: %p, device heap use %zu -> %zu", (void *)e,
          dev_used0, used);
    ring_check(e, 64, 9);
    shmem_free(e);
    const long words[2] = {~0L, ~0L & ~SHMEM_MALLOC_ATOMICS_REMOTE};
    for (int h = 0; h < 2; h++) {
        shmemx_device_heap_info(&total, &dev_used0, &backed, &device);
        shmemx_heap_info(&host_total, &host_used0, &largest);
        long *w = shmem_malloc_with_hints(64 * sizeof(long), words[h]);
        shmemx_device_heap_info(&total, &used, &backed, &device);
        shmemx_heap_info(&host_total, &host_used, &largest);
        CHECK(w != NULL && used == dev_used0 && host_used > host_used0,
              "hints 0x%lx: %p, device heap use %zu -> %zu, host heap use %zu -> %zu", words[h],
              (void *)w, dev_used0, used, host_used0, host_used);
        w[0] = -1; /* host memory: the host may store to it */
        shmem_barrier_all();
        long v = 700L * h + me;
        shmem_long_put(&w[0], &v, 1, right);
        shmem_barrier_all();
        CHECK_VAL("all-bits-hint block put by the left PE", h, w[0],
                  700L * h + (me + npes - 1) % npes);
        shmem_barrier_all();
        shmem_free(w);
    }

    /* Strided: every second long of the right PE's block. */
    for (int i = 0; i < N; i++)
        src[i] = pattern(me, i, 3);
    shmem_long_iput(a, src, 2, 1, N / 2, right);
    shmem_barrier_all();
    shmem_getmem(dst, a, N * sizeof(long), me);
    const int left = (me + npes - 1) % npes;
    for (int i = 0; i < N; i += 2)
        CHECK_VAL("iput into a device block", i, dst[i], pattern(left, i / 2, 3));
    for (int i = 1; i < N; i += 2)
        CHECK_VAL("longs iput skipped", i, dst[i], pattern(left, i, 1));
    shmem_barrier_all();

    /* Past the first backing step (32 MiB): the heap grows on every PE and
     * the new piece is passed to every local peer. */
    const size_t big = (size_t)40 << 20;
    char *c = shmemx_malloc_device(big, SHMEMX_DEVICE_DEFAULT);
    CHECK(c != NULL, "a %zu-byte device block", big);
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(backed >= big, "backed %zu after a %zu-byte block", backed, big);
    ring_check((long *)(c + big - N * sizeof(long)), N, 4);

    if (fake && npes > 1) {
        /* One PE cannot add GPU memory: every PE gets NULL, the job goes on. */
        if (me == 1)
            setenv("FAKE_CUDA_FAIL", "create", 1);
        void *d = shmemx_malloc_device(big, SHMEMX_DEVICE_DEFAULT);
        CHECK(d == NULL, "an allocation that failed on PE 1 returned %p here", d);
        unsetenv("FAKE_CUDA_FAIL");
        /* One PE cannot import a peer's piece: the same. */
        if (me == 0)
            setenv("FAKE_CUDA_FAIL", "import", 1);
        d = shmemx_malloc_device(big, SHMEMX_DEVICE_DEFAULT);
        CHECK(d == NULL, "an allocation whose import failed on PE 0 returned %p here", d);
        unsetenv("FAKE_CUDA_FAIL");
        /* Another device than the heap's: refused on every PE. */
        d = shmemx_malloc_device(64, me == 0 ? 3 : SHMEMX_DEVICE_DEFAULT);
        CHECK(d == NULL, "a call naming another device returned %p", d);
        ring_check(a, N, 5); /* what was there still works */
    }

    /* More than the heap holds: NULL on every PE, and the job goes on. */
    void *huge = shmemx_malloc_device(total + 1, SHMEMX_DEVICE_DEFAULT);
    CHECK(huge == NULL, "a block larger than the %zu-byte device heap returned %p", total, huge);

    shmem_free(c);
    shmem_free(b);
    shmem_free(a);
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(used == 0, "%zu bytes in use after every device block was freed", used);
    long *again = shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    CHECK(again == a, "the freed block is reused (%p, first %p)", (void *)again, (void *)a);
    ring_check(again, N, 6);
    shmem_free(again);

    /* Host symmetric memory is untouched by all this. */
    long *h = shmem_malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        src[i] = pattern(me, i, 7);
    shmem_putmem(h, src, N * sizeof(long), right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK_VAL("host heap after device use", i, h[i], pattern(left, i, 7));
    shmem_free(h);

    /* A device block alive at finalize goes with it; a new initialization
     * makes a new device heap (OpenSHMEM 1.6 re-initialization). */
    long *alive = shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    CHECK(alive != NULL, "a device block before finalize");
    shmem_finalize();
    shmem_init();
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(device == -1 && total == 0, "no device heap after re-initialization (device %d)", device);
    long *fresh = shmemx_malloc_device(N * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    CHECK(fresh != NULL, "a device block after re-initialization");
    ring_check(fresh, N, 8);
    shmem_free(fresh);

    sht_pass(fake ? "device_heap (fake CUDA driver)" : "device_heap");
    shmem_finalize();
    return 0;
}
