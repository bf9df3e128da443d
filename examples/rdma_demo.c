/* rdma_demo: pairs of PEs exchange data with put, get, atomics and
 * put-with-signal, check every value that crossed, and print latency and
 * bandwidth, in the spirit of the classic RDMA demo programs.
 *
 * Pairs: PE i talks to PE i^1 (0-1, 2-3, ...); with an odd PE count the last
 * PE pairs with itself.  i^1 rather than i + npes/2 because launchers that
 * place ranks round robin over two hosts (tests/netns/netns_job.sh puts rank
 * r on host r % HOSTS, as mpirun --map-by node does) then put the two PEs of
 * every pair on different hosts, so every measurement crosses the network;
 * with i + npes/2 and an even npes/2 both PEs of a pair would share a host.
 * The lower PE of each pair drives the timed operations; its peer is the
 * target, and checks what arrived.  PE 0 prints its pair's numbers.
 *
 * Uses only the standard OpenSHMEM API, so Open MPI's oshcc builds the same
 * source.  OpenSHMEM 1.5 put-with-signal is used when <shmem.h> has it
 * (SHMEM_SIGNAL_SET); otherwise (OSHMEM 4.1.4 implements 1.4) the signal is
 * emulated with put + fence + atomic set, and the output says so.
 *
 * Usage: rdma_demo [-n REPS] [-q]
 *   -n REPS   timed repetitions per row (default 100; the median is shown)
 *   -q        quick: 5 repetitions (tests; the numbers mean little)
 * Exit status 0 when every value was right; otherwise a PE prints what was
 * wrong and ends the job with shmem_global_exit(1). */
#include <shmem.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE (1u << 20)
#define DEFAULT_REPS 100
#define QUICK_REPS 5

/* 8 B, then powers of 4 times 8 up to 512 KiB, then 1 MiB. */
static const size_t sizes[] = {8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, MAX_SIZE};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static int me, npes, peer, driver;

/* Symmetric objects (shmem_malloc). */
static unsigned char *put_buf; /* 2 x MAX_SIZE: puts land here, alternating halves */
static unsigned char *get_buf; /* MAX_SIZE: the source of the peer's gets */
static long *fadd_ctr, *cswap_ctr, *verified_total;
static long *pp_data;
static uint64_t *pp_sig;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The data pattern: every 8-byte word depends on the seed and its index, so
 * a misplaced, stale or truncated transfer shows up. */
static uint64_t pattern_word(uint64_t seed, size_t k)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + k * 0xBF58476D1CE4E5B9ull + 1;
    x ^= x >> 31;
    return x * 0x94D049BB133111EBull;
}

static uint64_t seed_of(int kind, size_t size, int rep, int pe)
{
    return ((uint64_t)kind << 56) ^ ((uint64_t)size << 24) ^ ((uint64_t)rep << 12) ^ (uint64_t)pe;
}

static void fill(void *buf, size_t size, uint64_t seed)
{
    uint64_t *w = buf;
    for (size_t k = 0; k < size / 8; k++)
        w[k] = pattern_word(seed, k);
}

static void fail(const char *what, size_t size, int rep, const char *detail)
{
    fprintf(stderr, "rdma_demo: PE %d (peer PE %d): WRONG %s, size %zu B, rep %d: %s\n", me, peer,
            what, size, rep, detail);
    fflush(stderr);
    shmem_global_exit(1);
}

/* Checks a received buffer word by word; names the first bad word. */
static void check(const char *what, const void *buf, size_t size, int rep, uint64_t seed)
{
    const volatile uint64_t *w = buf;
    for (size_t k = 0; k < size / 8; k++) {
        uint64_t want = pattern_word(seed, k), got = w[k];
        if (got != want) {
            char detail[160];
            snprintf(detail, sizeof(detail),
                     "word %zu (byte offset %zu) is 0x%016" PRIx64 ", expected 0x%016" PRIx64, k,
                     k * 8, got, want);
            fail(what, size, rep, detail);
        }
    }
}

static void row(const char *op, size_t size, double usec, int with_bw)
{
    if (me != 0)
        return;
    if (with_bw)
        printf("%-14s %8zu %12.2f %12.1f\n", op, size, usec, size / usec);
    else
        printf("%-14s %8zu %12.2f %12s\n", op, size, usec, "-");
}

/* Put + quiet of each size; the peer checks every repetition's data.  The
 * puts alternate between the halves of put_buf (counting across sizes), so
 * the next put never overwrites the half the peer is still checking: one
 * barrier per repetition is enough. */
static long bench_put(size_t size, int reps, unsigned char *src, double *lat)
{
    static unsigned half;
    long verified = 0;
    for (int r = 0; r < reps; r++) {
        unsigned char *dst = put_buf + (size_t)(half++ % 2) * MAX_SIZE;
        if (driver) {
            fill(src, size, seed_of(1, size, r, me));
            double t0 = now_us();
            shmem_putmem(dst, src, size, peer);
            shmem_quiet();
            lat[r] = now_us() - t0;
        }
        shmem_barrier_all();
        if (!driver || peer == me) {
            check("put data (read by the target)", dst, size, r, seed_of(1, size, r, peer));
            verified++;
        }
    }
    return verified;
}

/* Get of each size from the peer's get_buf, which the peer filled with its
 * own pattern; every result is checked. */
static long bench_get(size_t size, int reps, unsigned char *dst, double *lat)
{
    long verified = 0;
    fill(get_buf, size, seed_of(2, size, 0, me));
    shmem_barrier_all();
    if (driver) {
        for (int r = 0; r < reps; r++) {
            memset(dst, 0, size);
            double t0 = now_us();
            shmem_getmem(dst, get_buf, size, peer);
            lat[r] = now_us() - t0;
            check("get result", dst, size, r, seed_of(2, size, 0, peer));
            verified++;
        }
    }
    shmem_barrier_all(); /* before the next size refills get_buf */
    return verified;
}

/* Fetch-add of 1, 2, 3, ... on the peer's counter: each returned value must
 * be the sum so far, and the target checks the total. */
static long bench_fadd(int reps, double *lat)
{
    long verified = 0;
    *fadd_ctr = 0;
    shmem_barrier_all();
    if (driver) {
        long expect = 0;
        for (int r = 0; r < reps; r++) {
            double t0 = now_us();
            long old = shmem_long_atomic_fetch_add(fadd_ctr, r + 1, peer);
            lat[r] = now_us() - t0;
            if (old != expect) {
                char detail[96];
                snprintf(detail, sizeof(detail), "returned %ld, expected %ld", old, expect);
                fail("fetch-add old value", 8, r, detail);
            }
            expect += r + 1;
            verified++;
        }
    }
    shmem_barrier_all();
    if (!driver || peer == me) {
        long total = shmem_long_atomic_fetch(fadd_ctr, me);
        long want = (long)reps * (reps + 1) / 2;
        if (total != want) {
            char detail[96];
            snprintf(detail, sizeof(detail), "counter is %ld, expected %ld", total, want);
            fail("fetch-add total (read by the target)", 8, reps, detail);
        }
        verified++;
    }
    return verified;
}

/* Compare-and-swap r -> r+1 on the peer's counter: every swap must succeed. */
static long bench_cswap(int reps, double *lat)
{
    long verified = 0;
    *cswap_ctr = 0;
    shmem_barrier_all();
    if (driver) {
        for (int r = 0; r < reps; r++) {
            double t0 = now_us();
            long old = shmem_long_atomic_compare_swap(cswap_ctr, r, r + 1, peer);
            lat[r] = now_us() - t0;
            if (old != r) {
                char detail[96];
                snprintf(detail, sizeof(detail), "returned %ld, expected %d", old, r);
                fail("compare-swap old value", 8, r, detail);
            }
            verified++;
        }
    }
    shmem_barrier_all();
    if (!driver || peer == me) {
        long final = shmem_long_atomic_fetch(cswap_ctr, me);
        if (final != reps) {
            char detail[96];
            snprintf(detail, sizeof(detail), "counter is %ld, expected %d", final, reps);
            fail("compare-swap final value (read by the target)", 8, reps, detail);
        }
        verified++;
    }
    return verified;
}

/* An 8-byte payload with a signal: OpenSHMEM 1.5 put-with-signal when the
 * header has it, otherwise the 1.4 equivalent (the fence orders the data
 * before the signal). */
static void put_signal(long value, uint64_t sig)
{
#ifdef SHMEM_SIGNAL_SET
    shmem_putmem_signal(pp_data, &value, sizeof(value), pp_sig, sig, SHMEM_SIGNAL_SET, peer);
#else
    shmem_putmem(pp_data, &value, sizeof(value), peer);
    shmem_fence();
    shmem_ulong_atomic_set((unsigned long *)pp_sig, (unsigned long)sig, peer);
#endif
}

static uint64_t wait_signal(uint64_t at_least)
{
#ifdef SHMEM_SIGNAL_SET
    return shmem_signal_wait_until(pp_sig, SHMEM_CMP_GE, at_least);
#else
    shmem_uint64_wait_until(pp_sig, SHMEM_CMP_GE, at_least);
    return shmem_ulong_atomic_fetch((unsigned long *)pp_sig, me);
#endif
}

static long pp_value(int rep, int from)
{
    return (long)(pattern_word(seed_of(3, 8, rep, from), 0) >> 1);
}

/* The signal and payload that PE `peer` sent in round `rep` arrived. */
static void check_pingpong(uint64_t got, int rep, int peer, const char *dir)
{
    char what[64], detail[96];
    if (got != (uint64_t)rep) {
        snprintf(what, sizeof(what), "put_signal signal (%s)", dir);
        snprintf(detail, sizeof(detail), "signal is %" PRIu64 ", expected %d", got, rep);
        fail(what, 8, rep, detail);
    }
    long want = pp_value(rep, peer), seen = *(volatile long *)pp_data;
    if (seen != want) {
        snprintf(what, sizeof(what), "put_signal payload (%s)", dir);
        snprintf(detail, sizeof(detail), "payload is %ld, expected %ld", seen, want);
        fail(what, 8, rep, detail);
    }
}

/* Ping-pong: the driver sends payload + signal r, the peer waits for it,
 * checks both and answers with its own; half the round trip is reported.
 * A PE paired with itself just signals itself (a full one-way trip). */
static long bench_pingpong(int reps, double *lat)
{
    long verified = 0;
    *pp_sig = 0;
    *pp_data = 0;
    shmem_barrier_all();
    for (int r = 1; r <= reps; r++) {
        if (driver) {
            double t0 = now_us();
            put_signal(pp_value(r, me), (uint64_t)r);
            uint64_t got = wait_signal((uint64_t)r);
            double t = now_us() - t0;
            lat[r - 1] = peer == me ? t : t / 2;
            check_pingpong(got, r, peer, "pong");
            verified += 2;
        } else {
            uint64_t got = wait_signal((uint64_t)r);
            check_pingpong(got, r, peer, "ping");
            put_signal(pp_value(r, me), (uint64_t)r);
            verified += 2;
        }
    }
    shmem_barrier_all();
    return verified;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rdma_demo [-n REPS] [-q]\n"
            "  -n REPS  timed repetitions per row (default %d; the median is shown)\n"
            "  -q       quick: %d repetitions (tests)\n",
            DEFAULT_REPS, QUICK_REPS);
}

int main(int argc, char **argv)
{
    int reps = DEFAULT_REPS, quick = 0, opt;
    while ((opt = getopt(argc, argv, "n:qh")) != -1) {
        switch (opt) {
        case 'n':
            reps = atoi(optarg);
            if (reps < 1) {
                fprintf(stderr, "rdma_demo: -n needs a positive count, not '%s'\n", optarg);
                return 2;
            }
            break;
        case 'q':
            quick = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "rdma_demo: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (quick && reps == DEFAULT_REPS)
        reps = QUICK_REPS;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    peer = (me ^ 1) < npes ? (me ^ 1) : me;
    driver = me <= peer;

    put_buf = shmem_malloc(2 * (size_t)MAX_SIZE);
    get_buf = shmem_malloc(MAX_SIZE);
    fadd_ctr = shmem_malloc(sizeof(long));
    cswap_ctr = shmem_malloc(sizeof(long));
    verified_total = shmem_malloc(sizeof(long));
    pp_data = shmem_malloc(sizeof(long));
    pp_sig = shmem_malloc(sizeof(uint64_t));
    unsigned char *local = malloc(MAX_SIZE);
    double *lat = calloc((size_t)reps, sizeof(double));
    if (!put_buf || !get_buf || !fadd_ctr || !cswap_ctr || !verified_total || !pp_data || !pp_sig ||
        !local || !lat) {
        fprintf(stderr, "rdma_demo: PE %d: out of memory (symmetric or private)\n", me);
        shmem_global_exit(1);
    }
    *verified_total = 0;
    shmem_barrier_all();

    if (me == 0) {
        printf("rdma_demo: %d PEs; pairs PE i <-> PE i^1%s\n", npes,
               npes % 2 ? " (the last PE pairs with itself)" : "");
        printf("rdma_demo: PE 0 <-> PE %d: %s\n", peer,
               peer == me                         ? "itself"
               : shmem_ptr(put_buf, peer) == NULL ? "peer memory not mapped (shmem_ptr is NULL): "
                                                    "over the network"
                                                  : "peer memory mapped (shmem_ptr): same host");
#ifdef SHMEM_SIGNAL_SET
        printf("rdma_demo: put_signal: shmem_putmem_signal (OpenSHMEM 1.5)\n");
#else
        printf("rdma_demo: put_signal: emulated with putmem + fence + ulong_atomic_set "
               "(this shmem.h has no shmem_putmem_signal)\n");
#endif
        printf("rdma_demo: %d reps per row; latency is the median of one operation "
               "(put: putmem + quiet; ping-pong: half the round trip); MB/s = 10^6 B/s = "
               "size / latency\n\n",
               reps);
        printf("%-14s %8s %12s %12s\n", "op", "bytes", "latency_us", "MB/s");
        fflush(stdout);
    }

    long verified = 0;
    for (size_t i = 0; i < NSIZES; i++) {
        verified += bench_put(sizes[i], reps, local, lat);
        row("put", sizes[i], driver ? median(lat, reps) : 0, 1);
    }
    for (size_t i = 0; i < NSIZES; i++) {
        verified += bench_get(sizes[i], reps, local, lat);
        row("get", sizes[i], driver ? median(lat, reps) : 0, 1);
    }
    verified += bench_fadd(reps, lat);
    row("fetch_add", 8, driver ? median(lat, reps) : 0, 0);
    verified += bench_cswap(reps, lat);
    row("compare_swap", 8, driver ? median(lat, reps) : 0, 0);
    verified += bench_pingpong(reps, lat);
    row("put_signal_pp", 8, driver ? median(lat, reps) : 0, 0);

    /* The totals travel as atomics too, to PE 0. */
    shmem_long_atomic_add(verified_total, verified, 0);
    shmem_barrier_all();
    if (me == 0) {
        printf("\nrdma_demo: OK: %ld transfers and atomics verified on %d PEs\n",
               shmem_long_atomic_fetch(verified_total, 0), npes);
        fflush(stdout);
    }

    free(lat);
    free(local);
    shmem_free(pp_sig);
    shmem_free(pp_data);
    shmem_free(verified_total);
    shmem_free(cswap_ctr);
    shmem_free(fadd_ctr);
    shmem_free(get_buf);
    shmem_free(put_buf);
    shmem_finalize();
    return 0;
}
