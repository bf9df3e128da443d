/*
 * pingpong.c: point-to-point synchronization latency between PE 0 and PE 1.
 *
 * PE 0 writes i into PE 1's ping word with shmem_long_p and waits with
 * shmem_long_wait_until for PE 1 to write i back into its pong word; PE 1
 * does the mirror image.  The reported figure is half a round trip: the time
 * for one p to be seen by a waiting PE.  No quiet is needed, since the spec
 * guarantees a put is eventually delivered, and waiting is what is measured.
 * With one PE, PE 0 plays both sides against itself.
 * Every value received is checked against the one expected.
 */
#include "common.h"

struct pp_ctx {
    long *ping;     /* symmetric: written by PE 0 on PE 1 */
    long *pong;     /* symmetric: written by PE 1 on PE 0 */
    long next;      /* the next value to send; carries on across rounds */
    int bad;        /* a received value was not the expected one */
};

static void pp_loop(void *arg, long n)
{
    struct pp_ctx *c = arg;
    int me = bench_me();

    if (bench_npes() == 1) {
        for (long i = 0; i < n; i++) {
            long v = ++c->next;
            shmem_long_p(c->ping, v, 0);
            shmem_long_wait_until(c->ping, SHMEM_CMP_EQ, v);
            shmem_long_p(c->pong, v, 0);
            shmem_long_wait_until(c->pong, SHMEM_CMP_EQ, v);
        }
        return;
    }
    if (me == 0) {
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

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct pp_ctx c;

    bench_init(argc, argv, &o, 0);
    bench_header("pingpong", &o);

    memset(&c, 0, sizeof(c));
    c.ping = bench_malloc(sizeof(long));
    c.pong = bench_malloc(sizeof(long));
    *c.ping = 0;
    *c.pong = 0;
    shmem_barrier_all();

    /* Each iteration is a round trip; half of it is the latency we report. */
    double rtt = bench_measure(&o, pp_loop, &c, 1);
    bench_report("pingpong", "p_wait_until", sizeof(long), rtt / 2);

    shmem_barrier_all();
    if (bench_me() == 0 && bench_npes() > 1) {
        long last = *(volatile long *)c.pong;
        BENCH_CHECK("pingpong", "p_wait_until", sizeof(long), last == c.next,
                    "last pong was %ld, expected %ld", last, c.next);
    }
    BENCH_CHECK("pingpong", "p_wait_until", sizeof(long), !c.bad,
                "a ping arrived with an unexpected value");

    shmem_barrier_all();
    shmem_free(c.pong);
    shmem_free(c.ping);
    return bench_finish();
}
