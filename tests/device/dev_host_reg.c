/*
 * Host memory registered for kernels only where it is used (device/view.c):
 * checked against the stand-in driver's record of its calls
 * (tests/device/fake_cuda.c, FAKE_CUDA_LOG "register ADDR SIZE" and
 * "unregister ADDR SIZE"; it also refuses overlapping registrations and
 * device pointers of unregistered memory, as the real driver does).
 *
 * - shmemx_dev_create registers each local PE's host heap from its base to
 *   the 64 MiB step above its allocations, not the whole heap;
 * - a large shmem_malloc extends every local PE's registration by one
 *   range right after the first, just far enough to cover the block;
 * - a kernel (here a CPU thread running <shmemx_device.h>) writes and reads
 *   the new block on its neighbours through the view, at addresses the
 *   record shows registered, and the values arrive;
 * - an allocation below the mark registers nothing; shmem_finalize
 *   unregisters every range it registered;
 * - with argv[1] "refuse", the driver refuses the extension: kernels lose
 *   the local heaps cleanly (lookups give NULL) and the job goes on.
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/check.h"
#include "fake_cuda_log.h"

#define STEP ((size_t)64 << 20) /* view.c's HEAP_REG_STEP */
#define BIG ((size_t)200 << 20)
#define NBIG (BIG / sizeof(long))
#define NSMALL 512
#define MAX_LINES 4096
#define PROBES 5

static fake_cuda_call_t calls[MAX_LINES];
static int me, npes;

/* This process's record of registrations so far (lines with an address);
 * how many lines. */
static int read_log(void)
{
    const int n = fake_cuda_read_log(calls, MAX_LINES, 1);
    CHECK(n >= -1, "the stand-in driver's record (FAKE_CUDA_LOG) has a bad line");
    return n < 0 ? 0 : n;
}

/* The registration among lines [from, n) that holds [p, p + len), or -1. */
static int registered_at(int from, int n, const void *p, size_t len)
{
    const uintptr_t a = (uintptr_t)p;
    for (int i = from; i < n; i++)
        if (strcmp(calls[i].what, "register") == 0 && a - calls[i].addr < calls[i].size &&
            len <= calls[i].size - (a - calls[i].addr))
            return i;
    return -1;
}

static size_t registered_bytes(int from, int n)
{
    size_t sum = 0;
    for (int i = from; i < n; i++)
        if (strcmp(calls[i].what, "register") == 0)
            sum += calls[i].size;
    return sum;
}

static long value(int pe, size_t i)
{
    return ((long)pe << 48) ^ (long)(i * 2654435761u) ^ 0x5a5a;
}

/* Where the kernel writes in the big block: its start, inside the first
 * registered step, past it, and its last long. */
static size_t probe(int k)
{
    static const size_t at[PROBES] = {0, 1, STEP / sizeof(long) + 7, NBIG / 2, NBIG - 1};
    return at[k];
}

static int unregistered_all(void);

static struct {
    shmemx_dev_t d;
    long *big, *small;
} kjob;

/* The "kernel": puts its values into the right neighbour's big block
 * (one by one, and its last 64 longs as one put), then, after a device
 * barrier, reads the left neighbour's copies of what it received into its
 * own small block. */
static void *kernel(void *unused)
{
    (void)unused;
    const shmemx_dev_t d = kjob.d;
    const int pe = shmemx_dev_my_pe(d), n = shmemx_dev_n_pes(d);
    const int right = (pe + 1) % n, left = (pe + n - 1) % n;
    for (int k = 0; k < PROBES; k++)
        shmemx_dev_long_p(d, &kjob.big[probe(k)], value(pe, probe(k)), right);
    long tail[64];
    for (int i = 0; i < 64; i++)
        tail[i] = value(pe, NBIG - 128 + (size_t)i);
    shmemx_dev_long_put(d, &kjob.big[NBIG - 128], tail, 64, right);
    shmemx_dev_barrier_all(d);
    for (int k = 0; k < PROBES; k++)
        kjob.small[k] = shmemx_dev_long_g(d, &kjob.big[probe(k)], left);
    shmemx_dev_quiet(d);
    return NULL;
}

/* argv[1] "refuse": the driver refuses the registration a large block
 * needs (FAKE_CUDA_FAIL=register from then on): every PE's kernels lose
 * the local heaps (their table entries become 0, so a lookup gives NULL and
 * a kernel reports instead of faulting), nothing is left registered twice,
 * and the job goes on. */
static void refused(shmemx_dev_t d, long *small, int n0)
{
    setenv("FAKE_CUDA_FAIL", "register", 1);
    long *big = shmem_malloc(BIG);
    unsetenv("FAKE_CUDA_FAIL");
    CHECK(big != NULL, "a block of %zu MiB (the allocation itself does not fail)", BIG >> 20);
    CHECK(read_log() == n0, "a refused registration was recorded");
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmemx_dev_ptr(d, small, pe) == NULL && shmemx_dev_ptr(d, big, pe) == NULL,
              "kernels still see PE %d's heap after its registration failed", pe);
    shmem_free(big);
    shmem_barrier_all();
    if (me == 0)
        printf("refused registration: every local heap unreachable to kernels, job goes on\n");
}

int main(int argc, char **argv)
{
    const int refuse = argc > 1 && strcmp(argv[1], "refuse") == 0;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(getenv("FAKE_CUDA_LOG") != NULL, "run with FAKE_CUDA_LOG (the stand-in's record)");
    char stale[512]; /* a record of an earlier process with this pid */
    snprintf(stale, sizeof(stale), "%s.%d", getenv("FAKE_CUDA_LOG"), (int)getpid());
    unlink(stale);
    size_t heap, used, largest;
    shmemx_heap_info(&heap, &used, &largest);
    CHECK(heap > BIG + 2 * STEP, "a heap larger than %zu MiB (SHMEM_SYMMETRIC_SIZE); it is %zu",
          (BIG + 2 * STEP) >> 20, heap);

    /* Made before the view: the view starts from this mark. */
    long *small = shmem_malloc(NSMALL * sizeof(long));
    CHECK(small != NULL, "a small block");
    shmemx_dev_t d;
    CHECK(shmemx_dev_create(&d) == 0, "shmemx_dev_create");

    /* At create: one step of each local PE's heap, from its base. */
    int n0 = read_log();
    size_t heap_pinned = 0;
    uintptr_t first_base[64], first_end[64];
    CHECK(npes <= 64, "at most 64 PEs");
    for (int pe = 0; pe < npes; pe++) {
        const void *there = shmem_ptr(small, pe);
        CHECK(there != NULL, "PE %d's heap is mapped here", pe);
        const int i = registered_at(0, n0, there, NSMALL * sizeof(long));
        CHECK(i >= 0, "PE %d's small block (%p here) lies in a registered range", pe, there);
        CHECK(calls[i].size == STEP,
              "PE %d's heap is registered %zu bytes at create, not one step (%zu) of its %zu", pe,
              calls[i].size, STEP, heap);
        first_base[pe] = calls[i].addr;
        first_end[pe] = calls[i].addr + calls[i].size;
        heap_pinned += calls[i].size;
    }
    const size_t pinned_create = registered_bytes(0, n0);
    CHECK(pinned_create < heap_pinned + STEP,
          "%zu bytes registered at create; the heaps' part is %zu, the rest (globals, the "
          "mailbox) should be small",
          pinned_create, heap_pinned);

    if (refuse) {
        refused(d, small, n0);
        shmem_free(small);
        shmem_finalize();
        return unregistered_all();
    }

    /* A large block raises the mark: one more range per local PE, right
     * after the first, covering the block and less than a step beyond it. */
    long *big = shmem_malloc(BIG);
    CHECK(big != NULL, "a block of %zu MiB", BIG >> 20);
    CHECK((uintptr_t)big - (uintptr_t)small < heap, "the big block is in the first heap segment");
    const int n1 = read_log();
    for (int pe = 0; pe < npes; pe++) {
        const char *there = shmem_ptr(big, pe);
        CHECK(there != NULL, "PE %d's big block is mapped here", pe);
        const int i = registered_at(n0, n1, (const void *)first_end[pe], 1);
        CHECK(i >= 0 && calls[i].addr == first_end[pe],
              "PE %d's heap has a new range starting right after the first (at 0x%lx)", pe,
              (unsigned long)first_end[pe]);
        const uintptr_t block_end = (uintptr_t)there + BIG, reg_end = calls[i].addr + calls[i].size;
        CHECK(reg_end >= block_end && reg_end < block_end + STEP &&
                  (reg_end - first_base[pe]) % STEP == 0,
              "PE %d: registered to 0x%lx for a block ending at 0x%lx (whole steps from 0x%lx)", pe,
              (unsigned long)reg_end, (unsigned long)block_end, (unsigned long)first_base[pe]);
    }
    const size_t pinned_grow = registered_bytes(n0, n1);
    CHECK(n1 - n0 == npes, "%d registrations for the big block; one per local PE (%d)", n1 - n0,
          npes);

    /* The kernel reaches the new memory: its targets are registered, and
     * the values arrive. */
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int k = 0; k < PROBES; k++) {
        const void *target = shmemx_dev_ptr(d, &big[probe(k)], right);
        CHECK(target != NULL && registered_at(0, n1, target, sizeof(long)) >= 0,
              "the kernel's target %p (element %zu on PE %d) is registered", target, probe(k),
              right);
    }
    for (size_t i = 0; i < NSMALL; i++)
        small[i] = -1;
    shmem_barrier_all();
    kjob.d = d;
    kjob.big = big;
    kjob.small = small;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, kernel, NULL) == 0, "starting the kernel thread");
    pthread_join(t, NULL);
    shmem_barrier_all();
    for (int k = 0; k < PROBES; k++) {
        CHECK_VAL("big (written by the left PE's kernel)", probe(k), big[probe(k)],
                  value(left, probe(k)));
        CHECK_VAL("small (read by the kernel from the left PE)", k, small[k],
                  value((left + npes - 1) % npes, probe(k)));
    }
    for (size_t i = 0; i < 64; i++)
        CHECK_VAL("big's tail", NBIG - 128 + i, big[NBIG - 128 + i], value(left, NBIG - 128 + i));

    /* Below the mark: nothing more to register. */
    shmem_free(big);
    long *again = shmem_malloc((size_t)16 << 20);
    CHECK(again != NULL, "a block in the freed room");
    CHECK(read_log() == n1, "an allocation below the mark registered more memory");
    shmem_free(again);
    shmem_free(small);
    shmem_barrier_all();
    if (me == 0)
        printf("pinned for kernels per PE: %zu MiB at create (heaps %d x %zu MiB of %zu MiB each), "
               "+%zu MiB after a %zu MiB shmem_malloc; the whole heaps would be %zu MiB\n",
               pinned_create >> 20, npes, STEP >> 20, heap >> 20, pinned_grow >> 20, BIG >> 20,
               (size_t)npes * heap >> 20);
    shmem_finalize();
    return unregistered_all();
}

/* After shmem_finalize: every range registered was unregistered once. */
static int unregistered_all(void)
{
    const int n2 = read_log();
    int regs = 0, unregs = 0;
    for (int i = 0; i < n2; i++) {
        if (strcmp(calls[i].what, "register") == 0) {
            regs++;
            int found = 0;
            for (int j = i + 1; j < n2; j++)
                found += strcmp(calls[j].what, "unregister") == 0 && calls[j].addr == calls[i].addr;
            if (found != 1) {
                fprintf(stderr, "FAIL PE %d: the range at 0x%lx was unregistered %d times\n", me,
                        (unsigned long)calls[i].addr, found);
                return 1;
            }
        }
        unregs += strcmp(calls[i].what, "unregister") == 0;
    }
    if (regs != unregs) {
        fprintf(stderr, "FAIL PE %d: %d registrations, %d unregistrations\n", me, regs, unregs);
        return 1;
    }
    printf("PASS dev_host_reg PE %d: %d ranges registered and unregistered\n", me, regs);
    return 0;
}
