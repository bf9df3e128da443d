/*
 * Kernels that reach PEs of other hosts through the device proxy
 * (src/device/proxy.c), on the CPU stand-in driver: <shmemx_device.h>
 * compiled by the host compiler, each "kernel" a pthread of the PE (several
 * for the multi-producer step). Run across network-namespace hosts with
 * round-robin placement (tests/netns), so PE me ^ 1 is on another host.
 * Every step runs twice: into the partner's device heap (relayed by the
 * partner's proxy, which copies into its GPU memory) and into its host
 * heap (straight through the network transport). Values are checked on
 * the receiving PE, on the host, after a host barrier.
 *
 * Steps: every RMA, AMO and signal family (plus float/double atomic add);
 * put-with-signal ordering over many rounds (the consumer that sees the
 * signal sees every byte); quiet completing remote operations from four
 * producers at once. Run with SHOAL_DEVICE_PROXY_SLOTS=2 the same steps
 * prove that a full ring neither loses nor reorders requests.
 */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../api/check.h"

#define BULK 5000 /* more than an inbox slot carries: relayed in pieces */
#define SIGW 64
#define ROUNDS 100
#define QN 64       /* quiet step: puts per producer */
#define PRODUCERS 4 /* quiet step: threads filing at once */

typedef struct {
    unsigned char bulk[2][BULK + 8];
    long lp[4];
    int ip;
    short sp;
    double dp;
    float fp;
    uint64_t sigdata[SIGW];
    uint64_t sig, sig_add, order_sig, ack;
    uint64_t order_data[SIGW];
    long amo_l[12];
    int amo_i[12];
    unsigned long long bits[6];
    double fd;
    float ff;
    long pre[32]; /* read by the partner's gets */
    long q[PRODUCERS][QN];
    long qsum;
} area_t;

static unsigned char pattern(int pe, size_t i)
{
    return (unsigned char)(pe * 31 + i * 7 + 1);
}

typedef struct {
    shmemx_dev_t d;
    area_t *area; /* symmetric: the partner's copy is the target */
    area_t *mine; /* this PE's copy as the kernel addresses it */
    unsigned char *src;
    uint64_t *srcw;
    long *got; /* [40]: what the kernel fetched and read */
    int partner, producer;
    int errors;
} kargs_t;

/* ---- the kernels ---------------------------------------------------------- */

static void *k_families(void *p)
{
    kargs_t *k = p;
    shmemx_dev_t d = k->d;
    area_t *a = k->area;
    const int pe = k->partner, me = shmemx_dev_my_pe(d);
    shmemx_dev_putmem(d, a->bulk[0], k->src, BULK, pe);
    shmemx_dev_putmem_nbi_block(d, a->bulk[1], k->src, BULK, pe);
    for (int i = 0; i < 4; i++)
        shmemx_dev_long_p(d, &a->lp[i], 1000L * me + i, pe);
    shmemx_dev_int_p(d, &a->ip, -7 - me, pe);
    shmemx_dev_short_p(d, &a->sp, (short)(300 + me), pe);
    shmemx_dev_double_p(d, &a->dp, 2.5 + me, pe);
    shmemx_dev_float_p(d, &a->fp, -1.25f * (float)(me + 1), pe);
    for (int i = 0; i < SIGW; i++)
        k->srcw[i] = (uint64_t)me << 32 | (uint64_t)i;
    shmemx_dev_uint64_put_signal(d, a->sigdata, k->srcw, SIGW, &a->sig, 42, SHMEM_SIGNAL_SET, pe);
    shmemx_dev_putmem_signal_nbi(d, NULL, NULL, 0, &a->sig_add, 5, SHMEM_SIGNAL_ADD, pe);
    shmemx_dev_putmem_signal(d, NULL, NULL, 0, &a->sig_add, 6, SHMEM_SIGNAL_ADD, pe);

    /* Atomics: the owner preset amo_l[i] = 100 + i, amo_i the same,
     * bits[i] = 0xf0f0 << i. */
    long *g = k->got;
    shmemx_dev_long_atomic_set(d, &a->amo_l[0], 5 + me, pe);
    shmemx_dev_long_atomic_add(d, &a->amo_l[1], 3, pe);
    shmemx_dev_long_atomic_add(d, &a->amo_l[1], 3, pe);
    g[0] = shmemx_dev_long_atomic_fetch_add(d, &a->amo_l[2], 10, pe);
    shmemx_dev_long_atomic_inc(d, &a->amo_l[3], pe);
    g[1] = shmemx_dev_long_atomic_fetch_inc(d, &a->amo_l[4], pe);
    g[2] = shmemx_dev_long_atomic_swap(d, &a->amo_l[5], 77, pe);
    g[3] = shmemx_dev_long_atomic_compare_swap(d, &a->amo_l[6], 106, 99, pe);
    g[4] = shmemx_dev_long_atomic_compare_swap(d, &a->amo_l[7], 1, 55, pe); /* fails */
    g[5] = shmemx_dev_long_atomic_fetch(d, &a->amo_l[8], pe);
    g[6] = shmemx_dev_int_atomic_fetch_add(d, &a->amo_i[0], -4, pe);
    shmemx_dev_int_atomic_inc(d, &a->amo_i[1], pe);
    g[7] = shmemx_dev_int_atomic_swap(d, &a->amo_i[2], 1 << 20, pe);
    g[8] = (long)shmemx_dev_ulonglong_atomic_fetch_and(d, &a->bits[0], 0xff00ull, pe);
    shmemx_dev_ulonglong_atomic_or(d, &a->bits[1], 0x1ull, pe);
    g[9] = (long)shmemx_dev_ulonglong_atomic_fetch_xor(d, &a->bits[2], 0xffffull, pe);
    shmemx_dev_ulonglong_atomic_and(d, &a->bits[3], 0x3ull << 5, pe);
    g[10] = (long)shmemx_dev_ulonglong_atomic_fetch_or(d, &a->bits[4], 1ull << 40, pe);
    shmemx_dev_ulonglong_atomic_xor(d, &a->bits[5], ~0ull, pe);
    shmemx_dev_double_atomic_add(d, &a->fd, 0.5, pe);
    g[11] = (long)(4.0 * shmemx_dev_double_atomic_fetch_add(d, &a->fd, 0.25, pe));
    shmemx_dev_float_atomic_add(d, &a->ff, 1.5f, pe);
    g[12] = (long)(4.0f * shmemx_dev_float_atomic_fetch_add(d, &a->ff, -0.25f, pe));

    /* Gets of what the owner preset: pre[i] = owner * 1000 + i. */
    for (int i = 0; i < 4; i++)
        g[13 + i] = shmemx_dev_long_g(d, &a->pre[i], pe);
    shmemx_dev_long_get(d, &g[17], &a->pre[4], 20, pe);
    g[37] = shmemx_dev_int_g(d, &a->amo_i[11], pe);
    shmemx_dev_quiet(d);
    return NULL;
}

/* Producer: rounds of put-with-signal; the consumer acknowledges each, so
 * the source may be rewritten. Consumer: sees the signal, then checks
 * every word. */
static void *k_order(void *p)
{
    kargs_t *k = p;
    shmemx_dev_t d = k->d;
    const int pe = k->partner;
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (k->producer) {
            for (int i = 0; i < SIGW; i++)
                k->srcw[i] = r * 1000 + (uint64_t)i;
            shmemx_dev_putmem_signal_nbi(d, k->area->order_data, k->srcw, SIGW * sizeof(uint64_t),
                                         &k->area->order_sig, r, SHMEM_SIGNAL_SET, pe);
            shmemx_dev_signal_wait_until(d, &k->mine->ack, SHMEM_CMP_GE, r);
        } else {
            shmemx_dev_signal_wait_until(d, &k->mine->order_sig, SHMEM_CMP_GE, r);
            for (int i = 0; i < SIGW; i++)
                if (shmemx_dev_uint64_atomic_fetch(d, &k->mine->order_data[i], d.my_pe) !=
                    r * 1000 + (uint64_t)i)
                    k->errors++;
            shmemx_dev_uint64_atomic_set(d, &k->area->ack, r, pe);
        }
    }
    shmemx_dev_quiet(d);
    return NULL;
}

/* Several producers at once: puts and adds that nobody waits for, then
 * quiet; the host barrier after the kernels is the consumer's cue. */
static void *k_quiet(void *p)
{
    kargs_t *k = p;
    shmemx_dev_t d = k->d;
    for (int i = 0; i < QN; i++) {
        shmemx_dev_long_p(d, &k->area->q[k->producer][i], 7L * i + k->producer, k->partner);
        shmemx_dev_long_atomic_add(d, &k->area->qsum, i + 1, k->partner);
    }
    shmemx_dev_quiet(d);
    return NULL;
}

static int run(void *(*fn)(void *), kargs_t *k, int threads)
{
    pthread_t t[PRODUCERS];
    kargs_t ks[PRODUCERS];
    int errors = 0;
    for (int i = 0; i < threads; i++) {
        ks[i] = *k;
        if (threads > 1)
            ks[i].producer = i;
        CHECK(pthread_create(&t[i], NULL, fn, &ks[i]) == 0, "a kernel thread");
    }
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        errors += ks[i].errors;
    }
    return errors;
}

/* ---- the host side -------------------------------------------------------- */

static void readback(void *host, const void *dev, size_t n)
{
    shmem_getmem(host, dev, n, shmem_my_pe());
}

static void writeto(void *dev, const void *host, size_t n)
{
    shmem_putmem(dev, host, n, shmem_my_pe());
    shmem_quiet();
}

static void preset(area_t *sym, int me)
{
    area_t *h = calloc(1, sizeof(*h));
    CHECK(h != NULL, "memory");
    for (int i = 0; i < 12; i++) {
        h->amo_l[i] = 100 + i;
        h->amo_i[i] = 100 + i;
    }
    for (int i = 0; i < 6; i++)
        h->bits[i] = 0xf0f0ull << i;
    h->fd = 1.0;
    h->ff = 2.0f;
    for (int i = 0; i < 32; i++)
        h->pre[i] = me * 1000L + i;
    writeto(sym, h, sizeof(*h));
    free(h);
}

static void check_families(area_t *sym, const long *got, int me, int partner, const char *where)
{
    area_t *h = calloc(1, sizeof(*h));
    CHECK(h != NULL, "memory");
    readback(h, sym, sizeof(*h));
    for (size_t i = 0; i < BULK; i++) {
        CHECK(h->bulk[0][i] == pattern(partner, i), "%s: putmem byte %zu", where, i);
        CHECK(h->bulk[1][i] == pattern(partner, i), "%s: putmem_nbi_block byte %zu", where, i);
    }
    for (int i = 0; i < 4; i++)
        CHECK_VAL("long_p", i, h->lp[i], 1000L * partner + i);
    CHECK_EQ("int_p", h->ip, -7 - partner);
    CHECK_EQ("short_p", h->sp, (short)(300 + partner));
    CHECK_EQ("double_p", h->dp, 2.5 + partner);
    CHECK_EQ("float_p", h->fp, -1.25f * (float)(partner + 1));
    for (int i = 0; i < SIGW; i++)
        CHECK_VAL("put_signal data", i, h->sigdata[i], (uint64_t)partner << 32 | (uint64_t)i);
    CHECK_EQ("put_signal SET", h->sig, (uint64_t)42);
    CHECK_EQ("two signal ADDs", h->sig_add, (uint64_t)11);
    CHECK_EQ("atomic_set", h->amo_l[0], 5 + partner);
    CHECK_EQ("atomic_add x2", h->amo_l[1], 107);
    CHECK_EQ("atomic_fetch_add", h->amo_l[2], 112);
    CHECK_EQ("atomic_inc", h->amo_l[3], 104);
    CHECK_EQ("atomic_fetch_inc", h->amo_l[4], 105);
    CHECK_EQ("atomic_swap", h->amo_l[5], 77);
    CHECK_EQ("compare_swap (succeeds)", h->amo_l[6], 99);
    CHECK_EQ("compare_swap (fails)", h->amo_l[7], 107);
    CHECK_EQ("int fetch_add", h->amo_i[0], 96);
    CHECK_EQ("int inc", h->amo_i[1], 102);
    CHECK_EQ("int swap", h->amo_i[2], 1 << 20);
    CHECK_EQ("fetch_and", h->bits[0], 0xf0f0ull & 0xff00ull);
    CHECK_EQ("or", h->bits[1], (0xf0f0ull << 1) | 1);
    CHECK_EQ("fetch_xor", h->bits[2], (0xf0f0ull << 2) ^ 0xffffull);
    CHECK_EQ("and", h->bits[3], (0xf0f0ull << 3) & (0x3ull << 5));
    CHECK_EQ("fetch_or", h->bits[4], (0xf0f0ull << 4) | 1ull << 40);
    CHECK_EQ("xor", h->bits[5], ~(0xf0f0ull << 5));
    CHECK_EQ("double atomic add", h->fd, 1.75);
    CHECK_EQ("float atomic add", h->ff, 3.25f);
    /* What this PE's kernel fetched from the partner (preset alike). */
    CHECK_EQ("fetched by fetch_add", got[0], 102);
    CHECK_EQ("fetched by fetch_inc", got[1], 104);
    CHECK_EQ("fetched by swap", got[2], 105);
    CHECK_EQ("fetched by compare_swap", got[3], 106);
    CHECK_EQ("fetched by failed compare_swap", got[4], 107);
    CHECK_EQ("atomic_fetch", got[5], 108);
    CHECK_EQ("int fetch_add fetched", got[6], 100);
    CHECK_EQ("int swap fetched", got[7], 102);
    CHECK_EQ("fetch_and fetched", got[8], 0xf0f0L);
    CHECK_EQ("fetch_xor fetched", got[9], (long)(0xf0f0ull << 2));
    CHECK_EQ("fetch_or fetched", got[10], (long)(0xf0f0ull << 4));
    CHECK_EQ("double fetch_add fetched x4", got[11], 6);
    CHECK_EQ("float fetch_add fetched x4", got[12], 14);
    for (int i = 0; i < 24; i++)
        CHECK_VAL("g / get of the partner's preset", i, got[13 + i], partner * 1000L + i);
    CHECK_EQ("int_g", got[37], 111);
    (void)me;
    free(h);
}

static void check_quiet(area_t *sym, int partner, const char *where)
{
    area_t *h = calloc(1, sizeof(*h));
    CHECK(h != NULL, "memory");
    readback(h, sym, sizeof(*h));
    long sum = 0;
    for (int t = 0; t < PRODUCERS; t++)
        for (int i = 0; i < QN; i++) {
            CHECK(h->q[t][i] == 7L * i + t, "%s: producer %d's put %d: %ld (from PE %d)", where, t,
                  i, h->q[t][i], partner);
            sum += i + 1;
        }
    CHECK(h->qsum == sum, "%s: the adds of %d producers: %ld, want %ld", where, PRODUCERS, h->qsum,
          sum);
    free(h);
}

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes % 2 != 0) {
        if (me == 0)
            printf("SKIP dev_proxy: needs an even number of PEs\n");
        shmem_finalize();
        return 77;
    }
    const int partner = me ^ 1;
    shmemx_dev_t d;
    CHECK(shmemx_dev_create(&d) == 0, "shmemx_dev_create");
    CHECK(d.proxy != NULL, "the view has a proxy ring (PEs on other hosts)");

    area_t *dev = shmemx_malloc_device(sizeof(area_t), SHMEMX_DEVICE_DEFAULT);
    area_t *host = shmem_calloc(1, sizeof(area_t));
    unsigned char *src = shmemx_malloc_device(BULK + 8, SHMEMX_DEVICE_DEFAULT);
    uint64_t *srcw = shmemx_malloc_device(SIGW * sizeof(uint64_t), SHMEMX_DEVICE_DEFAULT);
    CHECK(dev != NULL && host != NULL && src != NULL && srcw != NULL, "allocations");
    unsigned char *pat = malloc(BULK);
    for (size_t i = 0; i < BULK; i++)
        pat[i] = pattern(me, i);
    writeto(src, pat, BULK);
    free(pat);
    CHECK(shmemx_dev_ptr(d, &dev->ip, partner) == NULL,
          "PE %d is on another host: the GPU does not map its device heap", partner);

    area_t *areas[2] = {dev, host};
    const char *names[2] = {"device heap", "host heap"};
    for (int w = 0; w < 2; w++) {
        preset(areas[w], me);
        shmem_barrier_all();
        long got[40] = {0};
        kargs_t k = {.d = d,
                     .area = areas[w],
                     .mine = areas[w],
                     .src = src,
                     .srcw = srcw,
                     .got = got,
                     .partner = partner};
        run(k_families, &k, 1);
        shmem_barrier_all();
        check_families(areas[w], got, me, partner, names[w]);
        if (me == 0)
            printf("PASS every RMA, AMO and signal family to another host's %s\n", names[w]);

        k.producer = me % 2 == 0;
        const int errors = run(k_order, &k, 1);
        CHECK(errors == 0, "%s: the consumer saw %d stale words after a signal", names[w], errors);
        shmem_barrier_all();
        if (me == 0)
            printf("PASS %d rounds of put-with-signal into another host's %s: every byte "
                   "before its signal\n",
                   ROUNDS, names[w]);

        run(k_quiet, &k, PRODUCERS);
        shmem_barrier_all();
        check_quiet(areas[w], partner, names[w]);
        if (me == 0)
            printf("PASS quiet from %d producers completes their puts and adds in another "
                   "host's %s\n",
                   PRODUCERS, names[w]);
    }
    /* The host's floating atomic add (shmemx_), to the other host and to itself. */
    double *hd = shmem_calloc(2, sizeof(double));
    float *hf = shmem_calloc(2, sizeof(float));
    CHECK(hd != NULL && hf != NULL, "allocations");
    shmemx_double_atomic_add(&hd[0], 0.25 * (me + 1), partner);
    const double dold = shmemx_double_atomic_fetch_add(&hd[0], 1.0, partner);
    shmemx_float_atomic_add(&hf[1], 1.5f, me);
    const float fold = shmemx_float_atomic_fetch_add(&hf[0], -2.0f, partner);
    CHECK_EQ("shmemx_double_atomic_fetch_add's old value", dold, 0.25 * (me + 1));
    CHECK_EQ("shmemx_float_atomic_fetch_add's old value", fold, 0.0f);
    shmem_barrier_all();
    CHECK_EQ("shmemx_double_atomic_add from the other host", hd[0], 0.25 * (partner + 1) + 1.0);
    CHECK_EQ("shmemx_float_atomic_fetch_add from the other host", hf[0], -2.0f);
    CHECK_EQ("shmemx_float_atomic_add to itself", hf[1], 1.5f);
    if (me == 0)
        printf("PASS shmemx_float/double_atomic_add on the host, to another host\n");
    shmem_barrier_all();
    if (me == 0)
        printf("PASS dev_proxy (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
