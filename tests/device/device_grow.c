/*
 * The device heap grows inside one reservation (issue 32), checked against
 * the stand-in driver's record of its calls (tests/device/fake_cuda.c,
 * FAKE_CUDA_LOG): each PE reserves GPU address space once, for its own slot
 * and a view of each local peer's; every growth maps one more piece right
 * after the last in every slot (cuMemCreate, cuMemMap, cuMemSetAccess), so
 * a block allocated first keeps its address and its data while the heap
 * grows past it; shmem_finalize unmaps every piece and frees the
 * reservation once. On a real GPU (gpu_device_grow, no record) only the
 * data is checked.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../api/check.h"
#include "fake_cuda_log.h"

#define N 4096 /* longs checked per block */
#define MAX_LINES 4096

static long src[N], dst[N];
static int me, npes;

static fake_cuda_call_t calls[MAX_LINES];

/* This process's record of driver calls; returns how many. */
static int read_log(void)
{
    const int n = fake_cuda_read_log(calls, MAX_LINES, 0);
    CHECK(n != -1, "the stand-in driver wrote no record (FAKE_CUDA_LOG)");
    CHECK(n >= 0, "the stand-in driver's record (FAKE_CUDA_LOG) has a bad line");
    return n;
}

static int count(int n, const char *what)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += strcmp(calls[i].what, what) == 0;
    return k;
}

static long pattern(int pe, int i, int round)
{
    return ((long)pe << 40) ^ ((long)round << 24) ^ (long)i * 2654435761L;
}

/* Every PE puts its pattern into its right neighbour's block; each checks
 * its own through the driver. */
static void ring(long *block, int round)
{
    const int right = (me + 1) % npes;
    for (int i = 0; i < N; i++)
        src[i] = pattern(me, i, round);
    shmem_putmem(block, src, sizeof(src), right);
    shmem_barrier_all();
}

static void check_block(const long *block, int round, const char *what)
{
    const int left = (me + npes - 1) % npes;
    memset(dst, 0, sizeof(dst));
    shmem_getmem(dst, block, sizeof(dst), me);
    for (int i = 0; i < N; i++)
        CHECK_VAL(what, i, dst[i], pattern(left, i, round));
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    /* The record exists only under the stand-in driver; on a GPU the data
     * checks run alone. */
    const int recorded = getenv("FAKE_CUDA_LOG") != NULL;
    if (recorded) {
        char stale[512]; /* a record of an earlier process with this pid */
        snprintf(stale, sizeof(stale), "%s.%d", getenv("FAKE_CUDA_LOG"), (int)getpid());
        unlink(stale);
    }

    long *first = shmemx_malloc_device(1 << 20, SHMEMX_DEVICE_DEFAULT);
    CHECK(first != NULL, "the first device block");
    ring(first, 1);
    check_block(first, 1, "first block");
    static const size_t steps[] = {(size_t)40 << 20, (size_t)8 << 20, (size_t)100 << 20};
    long *blocks[3];
    for (int k = 0; k < 3; k++) {
        blocks[k] = shmemx_malloc_device(steps[k], SHMEMX_DEVICE_DEFAULT);
        CHECK(blocks[k] != NULL, "device block %d of %zu bytes", k, steps[k]);
        ring(blocks[k], 10 + k);
        check_block(blocks[k], 10 + k, "new block");
        check_block(first, 1, "first block after the heap grew"); /* same address, same data */
    }
    size_t total, used, backed;
    int device;
    shmemx_device_heap_info(&total, &used, &backed, &device);
    CHECK(backed >= ((size_t)149 << 20) && backed <= total, "backed %zu of %zu", backed, total);

    if (!recorded) {
        for (int k = 2; k >= 0; k--)
            shmem_free(blocks[k]);
        shmem_free(first);
        sht_pass("device_grow (no driver record: data checks only)");
        shmem_finalize();
        return 0;
    }
    /* The record: one reservation; each growth one piece per slot. */
    int n = read_log();
    CHECK(count(n, "reserve") == 1, "%d reservations, expected 1", count(n, "reserve"));
    uintptr_t va = 0;
    size_t va_size = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(calls[i].what, "reserve") == 0) {
            va = calls[i].addr;
            va_size = calls[i].size;
        }
    CHECK(va_size % (size_t)npes == 0, "reserved %zu bytes for %d slots", va_size, npes);
    const size_t slot = va_size / (size_t)npes;
    CHECK(slot >= total && (uintptr_t)first >= va && ((uintptr_t)first - va) % slot == 0,
          "the first block %p is not at the start of a %zu-byte slot of [%#lx, +%zu)",
          (void *)first, slot, (unsigned long)va, va_size);
    int own = 0, maps = 0;
    size_t own_bytes = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(calls[i].what, "map") != 0)
            continue;
        maps++;
        CHECK(calls[i].addr >= va && calls[i].addr + calls[i].size <= va + va_size,
              "a map at %#lx (+%zu) outside the reservation", (unsigned long)calls[i].addr,
              calls[i].size);
        if (calls[i].addr - (uintptr_t)first < slot) { /* this PE's own slot */
            CHECK(calls[i].addr == (uintptr_t)first + own_bytes,
                  "piece %d of this PE's heap at %#lx, expected right after the last (%#lx)", own,
                  (unsigned long)calls[i].addr, (unsigned long)((uintptr_t)first + own_bytes));
            own++;
            own_bytes += calls[i].size;
        }
    }
    CHECK(own >= 3 && own_bytes == backed, "%d pieces of %zu bytes mapped for %zu backed", own,
          own_bytes, backed);
    CHECK(count(n, "create") == own, "%d cuMemCreate for %d own pieces", count(n, "create"), own);
    CHECK(maps == own * npes, "%d maps: expected %d pieces x %d slots", maps, own, npes);
    CHECK(count(n, "access") == maps, "%d cuMemSetAccess for %d maps", count(n, "access"), maps);
    CHECK(count(n, "unmap") == 0 && count(n, "free") == 0, "unmapped before finalize");
    shmem_barrier_all();
    if (me == 0)
        printf("device heap: one reservation of %zu bytes, %d pieces (%zu bytes) in each of %d "
               "slots\n",
               va_size, own, own_bytes, npes);
    for (int k = 2; k >= 0; k--)
        shmem_free(blocks[k]);
    shmem_free(first);
    sht_pass("device_grow");
    shmem_finalize();

    n = read_log();
    CHECK(count(n, "unmap") == maps && count(n, "free") == 1,
          "after finalize: %d unmaps for %d maps, %d frees of the reservation", count(n, "unmap"),
          maps, count(n, "free"));
    return 0;
}
