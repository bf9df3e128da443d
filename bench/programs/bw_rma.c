/*
 * bw_rma.c: put and get bandwidth and message rate from PE 0 to PE 1.
 *
 * One iteration issues a window of nonblocking transfers (--window, default
 * 64) and then one shmem_quiet, so the time includes completion:
 *   putmem_nbi  shmem_putmem_nbi from a private buffer into PE 1's heap
 *   getmem_nbi  shmem_getmem_nbi from PE 1's heap into a private buffer
 * All transfers of a window use the same buffers: the benchmark is about
 * moving bytes, and one buffer keeps the symmetric heap small at 4 MiB
 * messages.  Reported per size: usec per message (1/usec is the message
 * rate) and mbps, megabytes (10^6 bytes) per second.  After timing, the
 * target's buffer is checked against the pattern the puts wrote, and the
 * private buffer against what the gets brought back.
 */
#include "common.h"

enum bw_op { OP_PUT, OP_GET };

struct bw_ctx {
    enum bw_op op;
    size_t size;
    long window;
    int peer;
    char *remote; /* symmetric */
    char *local;  /* private */
};

static void bw_loop(void *arg, long n)
{
    struct bw_ctx *c = arg;

    if (bench_me() != 0)
        return;
    if (c->op == OP_PUT) {
        for (long i = 0; i < n; i++) {
            for (long w = 0; w < c->window; w++)
                shmem_putmem_nbi(c->remote, c->local, c->size, c->peer);
            shmem_quiet();
        }
    } else {
        for (long i = 0; i < n; i++) {
            for (long w = 0; w < c->window; w++)
                shmem_getmem_nbi(c->local, c->remote, c->size, c->peer);
            shmem_quiet();
        }
    }
}

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 37 + 11);
}

static size_t first_mismatch(const char *p, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if ((unsigned char)p[i] != pattern(i))
            return i;
    return size;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct bw_ctx c;
    static const char *const names[] = {"putmem_nbi", "getmem_nbi"};

    bench_init(argc, argv, &o, BENCH_WANTS_WINDOW);
    bench_header("bw_rma", &o);

    memset(&c, 0, sizeof(c));
    c.peer = bench_peer();
    c.window = o.window;
    c.remote = bench_malloc(o.max_size);
    c.local = bench_private(o.max_size);
    for (size_t i = 0; i < o.max_size; i++)
        c.local[i] = (char)pattern(i);
    memset(c.remote, 0, o.max_size);
    shmem_barrier_all();

    size_t last = 0;
    for (enum bw_op op = OP_PUT; op <= OP_GET; op++) {
        c.op = op;
        for (size_t size = 1; size <= o.max_size; size *= 4) {
            c.size = last = size;
            double usec = bench_measure(&o, bw_loop, &c, c.window);
            bench_report_bw("bw_rma", names[op], "heap", size, usec);
        }
        if (op == OP_PUT) {
            /* The last window wrote the largest size swept; check it arrived,
             * then clear the private buffer so the gets must refill it. */
            shmem_barrier_all();
            if (bench_me() == c.peer) {
                size_t i = first_mismatch(c.remote, last);
                BENCH_CHECK_MEM("bw_rma", "putmem_nbi", "heap", last, i == last,
                                "byte %zu is %u, expected %u", i,
                                (unsigned char)c.remote[i < last ? i : 0], pattern(i));
            }
            memset(c.local, 0, o.max_size);
            shmem_barrier_all();
        }
    }
    if (bench_me() == 0) {
        size_t i = first_mismatch(c.local, last);
        BENCH_CHECK_MEM("bw_rma", "getmem_nbi", "heap", last, i == last,
                        "byte %zu is %u, expected %u", i, (unsigned char)c.local[i < last ? i : 0],
                        pattern(i));
    }

    shmem_barrier_all();
    free(c.local);
    shmem_free(c.remote);
    return bench_finish();
}
