/*
 * common.h: the timing, option and reporting helpers shared by Shoal's
 * micro-benchmarks.
 *
 * The benchmarks use only the standard OpenSHMEM 1.4 API, so the same source
 * builds with Shoal's shoalcc and with another implementation's compiler
 * wrapper (Open MPI's oshcc), and the two can be compared side by side.
 * Everything here is static (inline) so that each benchmark stays one file
 * plus this header, with no library of its own to build.
 *
 * How a measurement is taken (bench_measure): every PE enters every timed
 * round together, PE 0 picks the iteration count and tells the others, each
 * PE runs its part of the loop, and PE 0 times its own part.  The count is
 * doubled until a round lasts a tenth of the target time, then scaled so a
 * round lasts about the target time; the calibration rounds double as
 * warm-up.  The reported figure is the median over several rounds of the
 * time per operation, which resists the noise of a shared machine better
 * than a mean.
 *
 * Output is one line per measurement, printed by PE 0:
 *   bench=<name> op=<op> size=<bytes> npes=<n> usec=<float> [mbps=<float>]
 * A failed correctness check adds, from whichever PE saw it:
 *   bench=<name> op=<op> size=<bytes> npes=<n> error=wrong_result
 * Lines starting with '#' are comments that parsers skip.
 */
#ifndef SHOAL_BENCH_COMMON_H
#define SHOAL_BENCH_COMMON_H

/* clock_gettime under a strict -std=c11 as well as under gnu11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_REPS 101

/* bench_init flags: options only some benchmarks take. */
#define BENCH_WANTS_WINDOW 0x1

struct bench_opts {
    int quick;          /* tiny sizes, fixed few iterations, one round */
    long iters;         /* fixed iterations per round; 0 means calibrate */
    int reps;           /* timed rounds per measurement; the median is kept */
    double target_ms;   /* how long a calibrated round should last */
    size_t max_size;    /* largest message for size sweeps */
    long window;        /* messages in flight per quiet (bw_put) */
};

/* What a benchmark's loop needs: its own state, plus the count to run. */
typedef void (*bench_loop_fn)(void *ctx, long n);

/* A symmetric slot through which PE 0 hands a value to every PE. */
static long *bench_bcast_slot;
static int bench_failed;

static inline double bench_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline int bench_me(void) { return shmem_my_pe(); }
static inline int bench_npes(void) { return shmem_n_pes(); }

/* PE 0 measures against PE 1, or against itself when the job has one PE. */
static inline int bench_peer(void) { return shmem_n_pes() > 1 ? 1 : 0; }

/*
 * Records a failed correctness check of one measured op.  The PE that sees
 * the failure prints an error line for the op on stdout, so a comparison can
 * show "wrong result" instead of a number, and the detail on stderr; the
 * program then exits 1 at the end.
 */
#define BENCH_CHECK(bench, op, size, cond, ...)                             \
    do {                                                                    \
        if (!(cond)) {                                                      \
            printf("bench=%s op=%s size=%zu npes=%d error=wrong_result\n",  \
                   (bench), (op), (size_t)(size), shmem_n_pes());           \
            fflush(stdout);                                                 \
            fprintf(stderr, "bench: PE %d: %s %s: check failed at %s:%d: ", \
                    shmem_my_pe(), (bench), (op), __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
            bench_failed = 1;                                               \
        }                                                                   \
    } while (0)

/* The defaults printed are the live ones, so the text cannot drift from them. */
static inline void bench_usage(const char *prog, int flags, const struct bench_opts *d)
{
    fprintf(stderr,
            "usage: %s [options]\n"
            "  -q, --quick         one round of a few iterations at tiny sizes (CI)\n"
            "  -i, --iters N       fixed iterations per round (default: calibrate)\n"
            "  -r, --reps N        timed rounds per measurement; median reported (default %d)\n"
            "  -t, --time-ms MS    target duration of a calibrated round (default %g)\n"
            "  -m, --max-size B    largest message size, suffix K or M allowed (default %zu)\n",
            prog, d->reps, d->target_ms, d->max_size);
    if (flags & BENCH_WANTS_WINDOW)
        fprintf(stderr, "  -w, --window N      puts in flight per quiet (default %ld)\n",
                d->window);
    fprintf(stderr, "  -h, --help          this text\n");
}

static inline int bench_parse_size(const char *s, size_t *out_p)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K') {
        v <<= 10;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v <<= 20;
        end++;
    }
    if (*end != '\0' || v == 0)
        return -1;
    *out_p = (size_t)v;
    return 0;
}

static inline int bench_parse_long(const char *s, long *out_p)
{
    char *end;
    long v = strtol(s, &end, 10);

    if (end == s || *end != '\0' || v <= 0)
        return -1;
    *out_p = v;
    return 0;
}

/*
 * Starts SHMEM and reads the options.  Every PE parses the same command line,
 * so all agree without talking; only PE 0 prints the usage text.
 * flags turns on benchmark-specific options (BENCH_WANTS_WINDOW).
 */
static inline void bench_init(int argc, char **argv, struct bench_opts *o, int flags)
{
    int bad = 0, help = 0;
    long reps = 0;
    const char *bad_arg = NULL;

    shmem_init();
    bench_bcast_slot = shmem_malloc(sizeof(long));
    if (!bench_bcast_slot) {
        fprintf(stderr, "bench: shmem_malloc of %zu bytes failed\n", sizeof(long));
        shmem_global_exit(1);
    }

    memset(o, 0, sizeof(*o));
    o->reps = 5;
    o->target_ms = 20.0;
    o->max_size = (size_t)4 << 20;
    o->window = 64;

    struct bench_opts defaults = *o;

    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        bad_arg = a;

        if (!strcmp(a, "-q") || !strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help = 1;
        } else if ((!strcmp(a, "-i") || !strcmp(a, "--iters")) && v) {
            bad = bench_parse_long(v, &o->iters);
            i++;
        } else if ((!strcmp(a, "-r") || !strcmp(a, "--reps")) && v) {
            bad = bench_parse_long(v, &reps) || reps > BENCH_MAX_REPS;
            o->reps = (int)reps;
            i++;
        } else if ((!strcmp(a, "-t") || !strcmp(a, "--time-ms")) && v) {
            o->target_ms = strtod(v, NULL);
            bad = !(o->target_ms > 0);
            i++;
        } else if ((!strcmp(a, "-m") || !strcmp(a, "--max-size")) && v) {
            bad = bench_parse_size(v, &o->max_size);
            i++;
        } else if ((!strcmp(a, "-w") || !strcmp(a, "--window")) && v &&
                   (flags & BENCH_WANTS_WINDOW)) {
            bad = bench_parse_long(v, &o->window);
            i++;
        } else {
            bad = 1;
        }
    }

    if (bad && bench_me() == 0)
        fprintf(stderr, "%s: bad or incomplete option '%s'\n", argv[0], bad_arg);

    if (o->quick) {
        /* Quick mode proves the program runs; its numbers mean nothing. */
        if (!o->iters)
            o->iters = 10;
        o->reps = 1;
        if (o->max_size > 64)
            o->max_size = 64;
        if (o->window > 4)
            o->window = 4;
    }

    if (bad || help) {
        if (bench_me() == 0)
            bench_usage(argv[0], flags, &defaults);
        shmem_finalize();
        exit(bad ? 2 : 0);
    }
}

/*
 * PE 0 hands v to every PE.  The barrier after the puts makes them visible
 * (barrier_all completes outstanding puts); the barrier after the read keeps
 * the next call from overwriting the slot before everyone has read it.
 */
static inline long bench_bcast_long(long v)
{
    if (bench_me() == 0) {
        for (int pe = 1; pe < bench_npes(); pe++)
            shmem_long_p(bench_bcast_slot, v, pe);
        *bench_bcast_slot = v;
    }
    shmem_barrier_all();
    v = *(volatile long *)bench_bcast_slot;
    shmem_barrier_all();
    return v;
}

/* Runs one round of n iterations on every PE; PE 0's duration in µs. */
static inline double bench_round(bench_loop_fn fn, void *ctx, long n)
{
    double t0 = bench_now_us();

    fn(ctx, n);
    return bench_now_us() - t0;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * Measures fn on all PEs (collective: every PE must call it with the same
 * options).  Returns, on PE 0, the median µs per iteration; other PEs get 0.
 * ops_per_iter divides the time further (a window of puts counts each put).
 */
static inline double bench_measure(const struct bench_opts *o, bench_loop_fn fn,
                                   void *ctx, long ops_per_iter)
{
    const double target_us = o->target_ms * 1000.0;
    const long max_n = 1L << 30;
    double samples[BENCH_MAX_REPS];
    long n = o->iters ? o->iters : 1;

    if (o->iters) {
        /* A fixed count still gets one untimed warm-up round. */
        bench_bcast_long(0);
        bench_round(fn, ctx, n / 10 + 1);
    } else {
        for (;;) {
            long next = 0;

            n = bench_bcast_long(n);
            double t = bench_round(fn, ctx, n);
            if (bench_me() == 0) {
                if (t >= target_us / 10 || n >= max_n) {
                    double scaled = t > 0 ? (double)n * target_us / t : (double)max_n;
                    n = scaled < 1 ? 1 : scaled > max_n ? max_n : (long)scaled;
                } else {
                    next = n * 2;
                }
            }
            if (!bench_bcast_long(next))
                break;
            n = next;
        }
        n = bench_bcast_long(n);
    }

    for (int r = 0; r < o->reps; r++) {
        bench_bcast_long(0); /* start every round together */
        samples[r] = bench_round(fn, ctx, n) / ((double)n * (double)ops_per_iter);
    }
    return bench_me() == 0 ? bench_median(samples, o->reps) : 0.0;
}

static inline void bench_report(const char *bench, const char *op, size_t size, double usec)
{
    if (bench_me() == 0) {
        printf("bench=%s op=%s size=%zu npes=%d usec=%.4f\n",
               bench, op, size, bench_npes(), usec);
        fflush(stdout);
    }
}

/* Bandwidth in MB/s (10^6 bytes per second) is bytes per microsecond. */
static inline void bench_report_bw(const char *bench, const char *op, size_t size, double usec)
{
    if (bench_me() == 0) {
        printf("bench=%s op=%s size=%zu npes=%d usec=%.4f mbps=%.1f\n",
               bench, op, size, bench_npes(), usec, usec > 0 ? (double)size / usec : 0.0);
        fflush(stdout);
    }
}

static inline void bench_header(const char *bench, const struct bench_opts *o)
{
    if (bench_me() == 0) {
        char iters[32] = "auto";

        if (o->iters)
            snprintf(iters, sizeof(iters), "%ld", o->iters);
        printf("# %s: npes=%d reps=%d iters=%s target_ms=%g max_size=%zu%s\n",
               bench, bench_npes(), o->reps, iters, o->target_ms, o->max_size,
               o->quick ? " quick" : "");
        fflush(stdout);
    }
}

/* Allocates symmetric memory or stops the whole job with a clear message. */
static inline void *bench_malloc(size_t bytes)
{
    void *p = shmem_malloc(bytes);

    if (!p) {
        fprintf(stderr, "bench: PE %d: shmem_malloc(%zu) failed; raise the "
                "implementation's symmetric heap size or lower --max-size\n",
                bench_me(), bytes);
        shmem_global_exit(1);
    }
    return p;
}

/* Ends the job; a failed check anywhere makes that PE exit 1. */
static inline int bench_finish(void)
{
    shmem_barrier_all();
    shmem_free(bench_bcast_slot);
    shmem_finalize();
    return bench_failed ? 1 : 0;
}

#endif /* SHOAL_BENCH_COMMON_H */
