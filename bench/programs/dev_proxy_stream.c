/*
 * dev_proxy_stream: device put-with-signal to a PE of another host through
 * the device proxy, next to the host API's put_signal_nbi on the same path
 * in the same run. PE 0 streams N 8-byte put-with-signal operations (signal
 * ADD 1) to PE 1, then one quiet; K interleaved rounds of each way, the
 * median per operation kept:
 *   host      shmem_putmem_signal_nbi into PE 1's host heap
 *   dev.host  a "kernel" (a CPU thread over the stand-in CUDA driver) calls
 *             shmemx_dev_putmem_signal_nbi into PE 1's host heap: ring ->
 *             proxy thread -> the same transport call
 *   dev.dev   the same into PE 1's device heap: relayed through PE 1's
 *             inbox and carried out by PE 1's proxy with a copy
 * PE 1 checks after each round that its signal counted every operation.
 *
 * usage (2 PEs on 2 hosts, e.g. under tests/netns/netns_job.sh 2 1):
 *   dev_proxy_stream [N] [K]       (defaults 2000 and 5)
 * Each way counts on a signal word of its own.
 * Output: one line per way, "bench=dev_proxy_stream op=WAY usec=..." and
 * the ratios to the host way.
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS_MAX 51

enum { WAY_HOST, WAY_DEV_HOST, WAY_DEV_DEV, NWAYS };
static const char *const way_name[NWAYS] = {"host", "dev.host", "dev.dev"};

typedef struct {
    shmemx_dev_t d;
    uint64_t *data, *sig;
    const uint64_t *src;
    long n;
} kargs_t;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void *kernel(void *p)
{
    kargs_t *k = p;
    for (long i = 0; i < k->n; i++)
        shmemx_dev_putmem_signal_nbi(k->d, &k->data[i & 63], k->src, 8, k->sig, 1, SHMEM_SIGNAL_ADD,
                                     1);
    shmemx_dev_quiet(k->d);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const long n = argc > 1 ? atol(argv[1]) : 2000;
    const int k = argc > 2 ? atoi(argv[2]) : 5;
    shmem_init();
    const int me = shmem_my_pe();
    if (shmem_n_pes() != 2) {
        if (me == 0)
            fprintf(stderr, "dev_proxy_stream: run 2 PEs, on 2 hosts\n");
        shmem_global_exit(2);
    }
    shmemx_dev_t d;
    if (shmemx_dev_create(&d) != 0)
        shmem_global_exit(1);
    uint64_t *hdata = shmem_calloc(64 + NWAYS, sizeof(uint64_t));
    uint64_t *ddata = shmemx_malloc_device((64 + NWAYS) * sizeof(uint64_t), SHMEMX_DEVICE_DEFAULT);
    uint64_t *dsrc = shmemx_malloc_device(sizeof(uint64_t), SHMEMX_DEVICE_DEFAULT);
    uint64_t zero[64 + NWAYS] = {0}, one = 1;
    shmem_putmem(ddata, zero, sizeof(zero), me);
    shmem_putmem(dsrc, &one, sizeof(one), me);
    if (me == 0 && d.proxy == NULL) {
        fprintf(stderr, "dev_proxy_stream: PE 1 is on this host; run the PEs on 2 hosts\n");
        shmem_global_exit(2);
    }
    double t[NWAYS][ROUNDS_MAX];
    int bad = 0;
    for (int r = 0; r < k && r < ROUNDS_MAX; r++)
        for (int w = 0; w < NWAYS; w++) {
            uint64_t *data = w == WAY_DEV_DEV ? ddata : hdata;
            shmem_barrier_all();
            if (me == 0) {
                const double t0 = now_us();
                if (w == WAY_HOST) {
                    for (long i = 0; i < n; i++)
                        shmem_putmem_signal_nbi(&data[i & 63], &one, 8, &data[64 + w], 1,
                                                SHMEM_SIGNAL_ADD, 1);
                    shmem_quiet();
                } else {
                    kargs_t ka = {.d = d, .data = data, .sig = &data[64 + w], .src = dsrc, .n = n};
                    pthread_t th;
                    pthread_create(&th, NULL, kernel, &ka);
                    pthread_join(th, NULL);
                }
                t[w][r] = (now_us() - t0) / (double)n;
            }
            shmem_barrier_all();
            if (me == 1) {
                uint64_t s = 0;
                shmem_getmem(&s, &data[64 + w], 8, 1);
                if (s != (uint64_t)n * (uint64_t)(r + 1)) {
                    fprintf(stderr,
                            "dev_proxy_stream: %s round %d: the signal is %llu, want %llu\n",
                            way_name[w], r, (unsigned long long)s,
                            (unsigned long long)n * (unsigned long long)(r + 1));
                    bad = 1;
                }
            }
        }
    if (me == 0) {
        double med[NWAYS];
        for (int w = 0; w < NWAYS; w++) {
            qsort(t[w], (size_t)k, sizeof(double), cmp_double);
            med[w] = t[w][k / 2];
            printf("bench=dev_proxy_stream op=%s size=8 npes=2 n=%ld rounds=%d usec=%.2f\n",
                   way_name[w], n, k, med[w]);
        }
        printf("# ratio dev.host/host = %.2f, dev.dev/host = %.2f\n",
               med[WAY_DEV_HOST] / med[WAY_HOST], med[WAY_DEV_DEV] / med[WAY_HOST]);
    }
    shmem_barrier_all();
    shmem_finalize();
    return bad;
}
