/*
 * pingpong.c: point-to-point synchronization latency between PE 0 and PE 1,
 * on the symmetric heap (mem=heap) and on global variables (mem=global).
 *
 * Ops, each reported as half a round trip (the time for one PE's write to
 * be seen by the PE waiting for it):
 *   p_wait_until              PE 0 writes i into PE 1's ping word with
 *                             shmem_long_p and waits with
 *                             shmem_long_wait_until for PE 1 to write i back
 *                             into its pong word; PE 1 does the mirror image.
 *   putmem_signal_wait_until  the same with an 8-byte payload sent by
 *                             shmem_putmem_signal (SHMEM_SIGNAL_SET) and
 *                             waited for with shmem_signal_wait_until
 *                             (OpenSHMEM 1.5; "unsupported" where shmem.h
 *                             lacks it).
 * No quiet is needed: the spec guarantees a put is eventually delivered,
 * and waiting is what is measured.  With one PE, PE 0 plays both sides.
 * Every value received, and every payload, is checked.
 */
#include "common.h"

#include <stdint.h>

enum pp_mode { PP_P, PP_SIGNAL };

/* The global words, each on its own cache line. */
static long global_ping __attribute__((aligned(64)));
static long global_pong __attribute__((aligned(64)));
#if BENCH_HAVE_SIGNAL
static uint64_t global_ping_sig __attribute__((aligned(64)));
static uint64_t global_pong_sig __attribute__((aligned(64)));
static long global_ping_data __attribute__((aligned(64)));
static long global_pong_data __attribute__((aligned(64)));
#endif

struct pp_ctx {
    enum pp_mode mode;
    long *ping;         /* symmetric: written by PE 0 on PE 1 */
    long *pong;         /* symmetric: written by PE 1 on PE 0 */
    uint64_t *ping_sig; /* symmetric: the signals, for PP_SIGNAL */
    uint64_t *pong_sig;
    long *ping_data; /* symmetric: the payloads, for PP_SIGNAL */
    long *pong_data;
    long next; /* the next value to send; carries on across rounds */
    int bad;   /* a received value was not the expected one */
};

/* The p / wait_until form: PE 0 pings, PE 1 echoes. */
static void p_loop(struct pp_ctx *c, long n)
{
    int me = bench_me();

    if (bench_npes() == 1) {
        for (long i = 0; i < n; i++) {
            long v = ++c->next;
            shmem_long_p(c->ping, v, 0);
            shmem_long_wait_until(c->ping, SHMEM_CMP_EQ, v);
            shmem_long_p(c->pong, v, 0);
            shmem_long_wait_until(c->pong, SHMEM_CMP_EQ, v);
        }
    } else if (me == 0) {
        for (long i = 0; i < n; i++) {
            long v = ++c->next;
            shmem_long_p(c->ping, v, 1);
            shmem_long_wait_until(c->pong, SHMEM_CMP_EQ, v);
        }
    } else if (me == 1) {
        for (long i = 0; i < n; i++) {
            long v = ++c->next;
            /* Waiting for "not the previous value" catches a wrong one. */
            shmem_long_wait_until(c->ping, SHMEM_CMP_NE, v - 1);
            long got = *(volatile long *)c->ping;
            if (got != v)
                c->bad = 1;
            shmem_long_p(c->pong, got, 0);
        }
    }
}

#if BENCH_HAVE_SIGNAL
/* The put-with-signal form: the same exchange, with a payload. */
static void signal_loop(struct pp_ctx *c, long n)
{
    int me = bench_me();
    int solo = bench_npes() == 1;

    if (me == 0) {
        for (long i = 0; i < n; i++) {
            long v = ++c->next;
            shmem_putmem_signal(c->ping_data, &v, sizeof(v), c->ping_sig, (uint64_t)v,
                                SHMEM_SIGNAL_SET, solo ? 0 : 1);
            if (solo) {
                shmem_signal_wait_until(c->ping_sig, SHMEM_CMP_EQ, (uint64_t)v);
                shmem_putmem_signal(c->pong_data, &v, sizeof(v), c->pong_sig, (uint64_t)v,
                                    SHMEM_SIGNAL_SET, 0);
            }
            shmem_signal_wait_until(c->pong_sig, SHMEM_CMP_EQ, (uint64_t)v);
            if (*(volatile long *)c->pong_data != v)
                c->bad = 1;
        }
    } else if (me == 1) {
        for (long i = 0; i < n; i++) {
            long v = ++c->next;
            uint64_t got = shmem_signal_wait_until(c->ping_sig, SHMEM_CMP_NE, (uint64_t)(v - 1));
            /* The payload is delivered before the signal that announces it. */
            long data = *(volatile long *)c->ping_data;
            if (got != (uint64_t)v || data != v)
                c->bad = 1;
            shmem_putmem_signal(c->pong_data, &data, sizeof(data), c->pong_sig, got,
                                SHMEM_SIGNAL_SET, 0);
        }
    }
}
#endif

static void pp_loop(void *arg, long n)
{
    struct pp_ctx *c = arg;

    if (c->mode == PP_P)
        p_loop(c, n);
#if BENCH_HAVE_SIGNAL
    else
        signal_loop(c, n);
#endif
}

/* Runs one ping-pong and checks how it ended; all words start at 0. */
static void pp_run(const struct bench_opts *o, struct pp_ctx *c, const char *op, const char *mem)
{
    c->next = 0;
    c->bad = 0;
    shmem_barrier_all();

    /* Each iteration is a round trip; half of it is the latency we report. */
    double rtt = bench_measure(o, pp_loop, c, 1);
    bench_report_mem("pingpong", op, mem, sizeof(long), rtt / 2);

    shmem_barrier_all();
    if (bench_me() == 0 && bench_npes() > 1) {
        long last =
            c->mode == PP_P ? *(volatile long *)c->pong : (long)*(volatile uint64_t *)c->pong_sig;
        BENCH_CHECK_MEM("pingpong", op, mem, sizeof(long), last == c->next,
                        "last pong was %ld, expected %ld", last, c->next);
    }
    BENCH_CHECK_MEM("pingpong", op, mem, sizeof(long), !c->bad,
                    "a ping or pong arrived with an unexpected value");
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct pp_ctx heap, global;

    bench_init(argc, argv, &o, 0);
    bench_header("pingpong", &o);

    memset(&heap, 0, sizeof(heap));
    heap.ping = bench_malloc(sizeof(long));
    heap.pong = bench_malloc(sizeof(long));
    *heap.ping = *heap.pong = 0;
    memset(&global, 0, sizeof(global));
    global.ping = &global_ping;
    global.pong = &global_pong;
    pp_run(&o, &heap, "p_wait_until", "heap");
    pp_run(&o, &global, "p_wait_until", "global");

#if BENCH_HAVE_SIGNAL
    heap.mode = global.mode = PP_SIGNAL;
    heap.ping_sig = bench_malloc(sizeof(uint64_t));
    heap.pong_sig = bench_malloc(sizeof(uint64_t));
    heap.ping_data = bench_malloc(sizeof(long));
    heap.pong_data = bench_malloc(sizeof(long));
    *heap.ping_sig = *heap.pong_sig = 0;
    *heap.ping_data = *heap.pong_data = 0;
    global.ping_sig = &global_ping_sig;
    global.pong_sig = &global_pong_sig;
    global.ping_data = &global_ping_data;
    global.pong_data = &global_pong_data;
    pp_run(&o, &heap, "putmem_signal_wait_until", "heap");
    pp_run(&o, &global, "putmem_signal_wait_until", "global");
    shmem_free(heap.pong_data);
    shmem_free(heap.ping_data);
    shmem_free(heap.pong_sig);
    shmem_free(heap.ping_sig);
#else
    bench_report_unsupported("pingpong", "putmem_signal_wait_until", "heap", sizeof(long));
    bench_report_unsupported("pingpong", "putmem_signal_wait_until", "global", sizeof(long));
#endif

    shmem_free(heap.pong);
    shmem_free(heap.ping);
    return bench_finish();
}
