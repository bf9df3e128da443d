/*
 * bw_put.c: put bandwidth and message rate from PE 0 to PE 1.
 *
 * One iteration issues a window of shmem_putmem_nbi calls (--window, default
 * 64) and then one shmem_quiet, so the time includes delivery.  All puts of
 * a window land on the same target buffer: the benchmark is about moving
 * bytes, and one buffer keeps the symmetric heap small at 4 MiB messages.
 * Reported per size: usec per message (1/usec is the message rate) and mbps,
 * megabytes (10^6 bytes) per second.  After timing, the target's buffer is
 * checked against the pattern the last window wrote.
 */
#include "common.h"

struct bw_ctx {
    size_t size;
    long window;
    int peer;
    char *dst;      /* symmetric */
    char *src;      /* private */
};

static void bw_loop(void *arg, long n)
{
    struct bw_ctx *c = arg;

    if (bench_me() != 0)
        return;
    for (long i = 0; i < n; i++) {
        for (long w = 0; w < c->window; w++)
            shmem_putmem_nbi(c->dst, c->src, c->size, c->peer);
        shmem_quiet();
    }
}

static unsigned char pattern(size_t i) { return (unsigned char)(i * 37 + 11); }

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct bw_ctx c;

    bench_init(argc, argv, &o, BENCH_WANTS_WINDOW);
    bench_header("bw_put", &o);

    memset(&c, 0, sizeof(c));
    c.peer = bench_peer();
    c.window = o.window;
    c.dst = bench_malloc(o.max_size);
    c.src = malloc(o.max_size);
    if (!c.src) {
        fprintf(stderr, "bench: malloc(%zu) failed\n", o.max_size);
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < o.max_size; i++)
        c.src[i] = (char)pattern(i);
    memset(c.dst, 0, o.max_size);
    shmem_barrier_all();

    for (size_t size = 1; size <= o.max_size; size *= 4) {
        c.size = size;
        double usec = bench_measure(&o, bw_loop, &c, c.window);
        bench_report_bw("bw_put", "putmem_nbi", size, usec);
    }

    /* The last window wrote the largest size swept; check it arrived. */
    shmem_barrier_all();
    if (bench_me() == c.peer) {
        for (size_t i = 0; i < c.size; i++) {
            if ((unsigned char)c.dst[i] != pattern(i)) {
                BENCH_CHECK("bw_put", "putmem_nbi", c.size, 0, "byte %zu is %u, expected %u",
                            i, (unsigned char)c.dst[i], pattern(i));
                break;
            }
        }
    }

    shmem_barrier_all();
    free(c.src);
    shmem_free(c.dst);
    return bench_finish();
}
