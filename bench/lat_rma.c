/*
 * lat_rma.c: latency of blocking remote memory access from PE 0 to PE 1.
 *
 * Ops, each timed as the median over rounds of µs per operation:
 *   putmem_quiet  shmem_putmem + shmem_quiet, sizes 1 B .. --max-size by 4x
 *   getmem        shmem_getmem, same sizes
 *   long_p_quiet  shmem_long_p + shmem_quiet (8 bytes)
 *   long_g        shmem_long_g (8 bytes)
 * A put is followed by quiet so that the time covers delivery, not only
 * issue.  PE 1 (the target) does nothing but wait in the rounds' barriers.
 * After timing, a put and a get of the largest size are checked byte by
 * byte on both ends.
 */
#include "common.h"

enum rma_op { OP_PUT, OP_GET, OP_P, OP_G };

struct rma_ctx {
    enum rma_op op;
    size_t size;
    int peer;
    char *remote;   /* symmetric: the target of puts, the source of gets */
    char *local;    /* private: the source of puts, the target of gets */
    long *var;      /* symmetric: the target of p and g */
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

static unsigned char pattern(size_t i) { return (unsigned char)(i * 131 + 7); }

/* Puts a pattern, checks it at the target, then gets it back and checks. */
static void rma_verify(struct rma_ctx *c, size_t size)
{
    int me = bench_me();

    if (me == 0) {
        for (size_t i = 0; i < size; i++)
            c->local[i] = (char)pattern(i);
        shmem_putmem(c->remote, c->local, size, c->peer);
        shmem_quiet();
        shmem_long_p(c->var, 42, c->peer);
        shmem_quiet();
    }
    shmem_barrier_all();
    if (me == c->peer) {
        for (size_t i = 0; i < size; i++) {
            if ((unsigned char)c->remote[i] != pattern(i)) {
                BENCH_CHECK("lat_rma", "putmem_quiet", size, 0, "byte %zu is %u, expected %u",
                            i, (unsigned char)c->remote[i], pattern(i));
                break;
            }
        }
        BENCH_CHECK("lat_rma", "long_p_quiet", sizeof(long), *c->var == 42,
                    "target holds %ld, expected 42", *c->var);
    }
    shmem_barrier_all();
    if (me == 0) {
        memset(c->local, 0, size);
        shmem_getmem(c->local, c->remote, size, c->peer);
        for (size_t i = 0; i < size; i++) {
            if ((unsigned char)c->local[i] != pattern(i)) {
                BENCH_CHECK("lat_rma", "getmem", size, 0, "byte %zu is %u, expected %u",
                            i, (unsigned char)c->local[i], pattern(i));
                break;
            }
        }
        long g = shmem_long_g(c->var, c->peer);
        BENCH_CHECK("lat_rma", "long_g", sizeof(long), g == 42, "got %ld, expected 42", g);
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct rma_ctx c;
    static const struct { enum rma_op op; const char *name; } sweeps[] = {
        { OP_PUT, "putmem_quiet" },
        { OP_GET, "getmem" },
    };

    bench_init(argc, argv, &o, 0);
    bench_header("lat_rma", &o);

    memset(&c, 0, sizeof(c));
    c.peer = bench_peer();
    c.remote = bench_malloc(o.max_size);
    c.var = bench_malloc(sizeof(long));
    c.local = malloc(o.max_size);
    if (!c.local) {
        fprintf(stderr, "bench: malloc(%zu) failed\n", o.max_size);
        shmem_global_exit(1);
    }
    memset(c.local, 1, o.max_size);
    memset(c.remote, 0, o.max_size);
    *c.var = 0;
    shmem_barrier_all();

    for (size_t s = 0; s < sizeof(sweeps) / sizeof(sweeps[0]); s++) {
        for (size_t size = 1; size <= o.max_size; size *= 4) {
            c.op = sweeps[s].op;
            c.size = size;
            bench_report("lat_rma", sweeps[s].name, size, bench_measure(&o, rma_loop, &c, 1));
        }
    }
    c.op = OP_P;
    bench_report("lat_rma", "long_p_quiet", sizeof(long), bench_measure(&o, rma_loop, &c, 1));
    c.op = OP_G;
    bench_report("lat_rma", "long_g", sizeof(long), bench_measure(&o, rma_loop, &c, 1));

    shmem_barrier_all();
    rma_verify(&c, o.max_size);

    shmem_barrier_all();
    free(c.local);
    shmem_free(c.var);
    shmem_free(c.remote);
    return bench_finish();
}
