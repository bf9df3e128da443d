/*
 * limit_memcpy.c: the machine's limit for moving bytes, single-threaded.
 * Plain C, no SHMEM: the floor that a put, get or collective of the same
 * size on one host can approach but not beat.
 *
 * Ops, each the median over rounds of µs per copy:
 *   memcpy        memcpy of `size` bytes from a private buffer into a shared
 *                 mapping (the kind of memory a symmetric heap is), the way
 *                 a put or get on one host moves its bytes
 *   memcpy_fence  the same copy followed by a sequentially consistent fence,
 *                 the least a put + quiet must do to make the bytes visible
 * Sizes are powers of two from 1 B to twice --max-size, so the limit of a
 * collective that moves a multiple of its size is measured too.  The copies
 * go through libc's memcpy, as the libraries' do, and repeat on the same
 * buffers, as the benchmarks' do (small sizes stay in cache for both).
 * The copied bytes are checked at the end.
 */
#define _GNU_SOURCE 1
#include "timing.h"

#include <sys/mman.h>

struct copy_ctx {
    char *dst;
    const char *src;
    size_t size;
    int fence;
};

/* Through a volatile pointer, so the compiler calls libc's memcpy for every
 * size instead of inlining a fixed-size copy the libraries could not use. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;

static void copy_loop(void *arg, long n)
{
    struct copy_ctx *c = arg;

    for (long i = 0; i < n; i++) {
        copy_fn(c->dst, c->src, c->size);
        if (c->fence)
            __atomic_thread_fence(__ATOMIC_SEQ_CST);
        bench_clobber(c->dst);
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int rc = bench_parse_opts(argc, argv, &o, 0, 1);

    if (rc)
        return rc == 1 ? 0 : 2;

    size_t bytes = o.max_size * 2;
    char *src = malloc(bytes);
    char *dst = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!src || dst == MAP_FAILED) {
        fprintf(stderr, "limit_memcpy: cannot get 2 x %zu bytes: %s\n", bytes,
                src ? "mmap failed" : "malloc failed");
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        src[i] = (char)(i * 131 + 7);
    memset(dst, 0, bytes);

    printf("# limit_memcpy: reps=%d iters=%ld target_ms=%g max_size=%zu%s\n", o.reps, o.iters,
           o.target_ms, bytes, o.quick ? " quick" : "");
    struct copy_ctx c = {dst, src, 0, 0};
    static const char *const names[] = {"memcpy", "memcpy_fence"};
    for (int fence = 0; fence <= 1; fence++) {
        for (size_t size = 1; size <= bytes; size *= 2) {
            c.size = size;
            c.fence = fence;
            bench_print("limit", names[fence], NULL, size, 1,
                        bench_measure_local(&o, copy_loop, &c), 1);
        }
    }

    int bad = memcmp(dst, src, bytes) != 0;
    if (bad)
        bench_print_error("limit", "memcpy", NULL, bytes, 1, "wrong_result");
    munmap(dst, bytes);
    free(src);
    return bad;
}
