/*
 * lat_rma.c: latency of remote memory access from PE 0 to PE 1, on the
 * symmetric heap and on global (static) symmetric variables.
 *
 * Ops, each timed as the median over rounds of µs per operation:
 *   putmem_quiet      shmem_putmem + shmem_quiet, sizes 1 B .. --max-size by 4x
 *   getmem            shmem_getmem, same sizes
 *   putmem_nbi_quiet  shmem_putmem_nbi + shmem_quiet, same sizes (heap only)
 *   getmem_nbi_quiet  shmem_getmem_nbi + shmem_quiet, same sizes (heap only)
 *   long_p_quiet      shmem_long_p + shmem_quiet (8 bytes)
 *   long_g            shmem_long_g (8 bytes)
 * Each line says mem=heap (shmem_malloc'd) or mem=global (a static array
 * and a global long, which the spec makes symmetric too).  A put is followed
 * by quiet so that the time covers delivery, not only issue.  PE 1 (the
 * target) does nothing but wait in the rounds' barriers.  After timing, a put
 * and a get of the largest size are checked byte by byte on both ends, for
 * heap and globals.
 */
#include "common.h"

/* The global target: a static array (zero, so in .bss) and a global long. */
#define GLOBAL_BYTES ((size_t)4 << 20)
static char global_buf[GLOBAL_BYTES];
long global_var;

enum rma_op { OP_PUT, OP_GET, OP_PUT_NBI, OP_GET_NBI, OP_P, OP_G };

static const char *const rma_names[] = {
    [OP_PUT] = "putmem_quiet",         [OP_GET] = "getmem",     [OP_PUT_NBI] = "putmem_nbi_quiet",
    [OP_GET_NBI] = "getmem_nbi_quiet", [OP_P] = "long_p_quiet", [OP_G] = "long_g",
};

struct rma_ctx {
    enum rma_op op;
    size_t size;
    int peer;
    char *remote; /* symmetric: the target of puts, the source of gets */
    char *local;  /* private: the source of puts, the target of gets */
    long *var;    /* symmetric: the target of p and g */
};

static void rma_loop(void *arg, long n)
{
    struct rma_ctx *c = arg;
    volatile long sink = 0;

    if (bench_me() != 0)
        return;
    switch (c->op) {
    case OP_PUT:
        for (long i = 0; i < n; i++) {
            shmem_putmem(c->remote, c->local, c->size, c->peer);
            shmem_quiet();
        }
        break;
    case OP_GET:
        for (long i = 0; i < n; i++)
            shmem_getmem(c->local, c->remote, c->size, c->peer);
        break;
    case OP_PUT_NBI:
        for (long i = 0; i < n; i++) {
            shmem_putmem_nbi(c->remote, c->local, c->size, c->peer);
            shmem_quiet();
        }
        break;
    case OP_GET_NBI:
        for (long i = 0; i < n; i++) {
            shmem_getmem_nbi(c->local, c->remote, c->size, c->peer);
            shmem_quiet();
        }
        break;
    case OP_P:
        for (long i = 0; i < n; i++) {
            shmem_long_p(c->var, i, c->peer);
            shmem_quiet();
        }
        break;
    case OP_G:
        for (long i = 0; i < n; i++)
            sink += shmem_long_g(c->var, c->peer);
        break;
    }
    (void)sink;
}

static unsigned char pattern(size_t i, int salt)
{
    return (unsigned char)(i * 131 + 7 + salt);
}

/* Puts a pattern, checks it at the target, then gets it back and checks. */
static void rma_verify(struct rma_ctx *c, size_t size, const char *mem, int salt)
{
    int me = bench_me();

    if (me == 0) {
        for (size_t i = 0; i < size; i++)
            c->local[i] = (char)pattern(i, salt);
        shmem_putmem(c->remote, c->local, size, c->peer);
        shmem_quiet();
        shmem_long_p(c->var, 42 + salt, c->peer);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == c->peer) {
        for (size_t i = 0; i < size; i++) {
            if ((unsigned char)c->remote[i] != pattern(i, salt)) {
                BENCH_CHECK_MEM("lat_rma", "putmem_quiet", mem, size, 0,
                                "byte %zu is %u, expected %u", i, (unsigned char)c->remote[i],
                                pattern(i, salt));
                break;
            }
        }
        BENCH_CHECK_MEM("lat_rma", "long_p_quiet", mem, sizeof(long), *c->var == 42 + salt,
                        "target holds %ld, expected %d", *c->var, 42 + salt);
    }
    shmem_barrier_all();
    if (me == 0) {
        memset(c->local, 0, size);
        shmem_getmem(c->local, c->remote, size, c->peer);
        for (size_t i = 0; i < size; i++) {
            if ((unsigned char)c->local[i] != pattern(i, salt)) {
                BENCH_CHECK_MEM("lat_rma", "getmem", mem, size, 0, "byte %zu is %u, expected %u", i,
                                (unsigned char)c->local[i], pattern(i, salt));
                break;
            }
        }
        long g = shmem_long_g(c->var, c->peer);
        BENCH_CHECK_MEM("lat_rma", "long_g", mem, sizeof(long), g == 42 + salt,
                        "got %ld, expected %d", g, 42 + salt);
    }
    shmem_barrier_all();
}

static void sweep(const struct bench_opts *o, struct rma_ctx *c, enum rma_op op, const char *mem,
                  size_t max)
{
    for (size_t size = 1; size <= max; size *= 4) {
        c->op = op;
        c->size = size;
        bench_report_mem("lat_rma", rma_names[op], mem, size, bench_measure(o, rma_loop, c, 1));
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct rma_ctx heap, global;

    bench_init(argc, argv, &o, 0);
    bench_header("lat_rma", &o);

    memset(&heap, 0, sizeof(heap));
    heap.peer = bench_peer();
    heap.remote = bench_malloc(o.max_size);
    heap.var = bench_malloc(sizeof(long));
    heap.local = bench_private(o.max_size);
    memset(heap.local, 1, o.max_size);
    memset(heap.remote, 0, o.max_size);
    *heap.var = 0;

    global = heap;
    global.remote = global_buf;
    global.var = &global_var;
    size_t global_max = o.max_size < GLOBAL_BYTES ? o.max_size : GLOBAL_BYTES;
    shmem_barrier_all();

    static const enum rma_op heap_sweeps[] = {OP_PUT, OP_GET, OP_PUT_NBI, OP_GET_NBI};
    for (size_t s = 0; s < sizeof(heap_sweeps) / sizeof(heap_sweeps[0]); s++)
        sweep(&o, &heap, heap_sweeps[s], "heap", o.max_size);
    sweep(&o, &global, OP_PUT, "global", global_max);
    sweep(&o, &global, OP_GET, "global", global_max);
    for (enum rma_op op = OP_P; op <= OP_G; op++) {
        heap.op = global.op = op;
        bench_report_mem("lat_rma", rma_names[op], "heap", sizeof(long),
                         bench_measure(&o, rma_loop, &heap, 1));
        bench_report_mem("lat_rma", rma_names[op], "global", sizeof(long),
                         bench_measure(&o, rma_loop, &global, 1));
    }

    shmem_barrier_all();
    rma_verify(&heap, o.max_size, "heap", 0);
    rma_verify(&global, global_max, "global", 1);

    free(heap.local);
    shmem_free(heap.var);
    shmem_free(heap.remote);
    return bench_finish();
}
