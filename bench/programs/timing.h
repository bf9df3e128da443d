/*
 * timing.h: the parts of the benchmarks' method that need no SHMEM library:
 * the clock, options, medians, calibration of a loop run by one process, and
 * the output line.  common.h builds the SHMEM benchmarks on top of it; the
 * probes of the machine's limits (limit_memcpy.c, limit_line.c) use it alone,
 * so the limits and the benchmarks are measured and reported the same way.
 *
 * Output is one line per measurement:
 *   bench=<name> op=<op> [mem=heap|global] size=<bytes> npes=<n> usec=<float> [mbps=<float>]
 * A measurement that could not be taken says why instead of usec:
 *   error=wrong_result   the op's result was checked and found wrong
 *   error=unsupported    the implementation's shmem.h lacks the call
 * Lines starting with '#' are comments that parsers skip.
 */
#ifndef SHOAL_BENCH_TIMING_H
#define SHOAL_BENCH_TIMING_H

/* clock_gettime under a strict -std=c11 as well as under gnu11. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_REPS 101

/* Flags for options only some programs take. */
#define BENCH_WANTS_WINDOW 0x1

struct bench_opts {
    int quick;        /* tiny sizes, fixed few iterations, one round */
    long iters;       /* fixed iterations per round; 0 means calibrate */
    int reps;         /* timed rounds per measurement; the median is kept */
    double target_ms; /* how long a calibrated round should last */
    size_t max_size;  /* largest message for size sweeps */
    long window;      /* messages in flight per quiet (bw_rma) */
};

/* What a benchmark's loop needs: its own state, plus the count to run. */
typedef void (*bench_loop_fn)(void *ctx, long n);

static inline double bench_now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
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

static inline void bench_default_opts(struct bench_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->reps = 5;
    o->target_ms = 20.0;
    o->max_size = (size_t)4 << 20;
    o->window = 64;
}

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
        fprintf(stderr, "  -w, --window N      transfers in flight per quiet (default %ld)\n",
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
 * Reads the options into o (defaults first).  Returns 0 to go on, 1 when
 * --help was asked for, 2 on a bad option (after naming it when `loud`).
 * The usage text is printed for 1 and 2 when `loud`.
 */
static inline int bench_parse_opts(int argc, char **argv, struct bench_opts *o, int flags, int loud)
{
    int bad = 0, help = 0;
    long reps = 0;
    const char *bad_arg = NULL;

    bench_default_opts(o);
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
    if (bad && loud)
        fprintf(stderr, "%s: bad or incomplete option '%s'\n", argv[0], bad_arg);
    if ((bad || help) && loud)
        bench_usage(argv[0], flags, &defaults);
    return bad ? 2 : help ? 1 : 0;
}

/* The iteration count that makes one round of fn last about the target:
 * doubled until a round lasts a tenth of it, then scaled.  These rounds are
 * the warm-up.  For loops run by one process (the limit probes). */
static inline long bench_calibrate_local(const struct bench_opts *o, bench_loop_fn fn, void *ctx)
{
    const double target_us = o->target_ms * 1000.0;
    const long max_n = 1L << 30;
    long n = 1;

    if (o->iters) {
        fn(ctx, o->iters / 10 + 1);
        return o->iters;
    }
    for (;;) {
        double t0 = bench_now_us();
        fn(ctx, n);
        double t = bench_now_us() - t0;
        if (t >= target_us / 10 || n >= max_n) {
            double scaled = t > 0 ? (double)n * target_us / t : (double)max_n;
            return scaled < 1 ? 1 : scaled > max_n ? max_n : (long)scaled;
        }
        n *= 2;
    }
}

/* Median µs per iteration of fn, run by this process alone. */
static inline double bench_measure_local(const struct bench_opts *o, bench_loop_fn fn, void *ctx)
{
    double samples[BENCH_MAX_REPS];
    long n = bench_calibrate_local(o, fn, ctx);

    for (int r = 0; r < o->reps; r++) {
        double t0 = bench_now_us();
        fn(ctx, n);
        samples[r] = (bench_now_us() - t0) / (double)n;
    }
    return bench_median(samples, o->reps);
}

/* One result line.  mem is NULL for ops where it does not apply; mbps adds
 * the bandwidth (megabytes, 10^6 bytes, per second is bytes per µs). */
static inline void bench_print(const char *bench, const char *op, const char *mem, size_t size,
                               int npes, double usec, int with_mbps)
{
    printf("bench=%s op=%s%s%s size=%zu npes=%d usec=%.4f", bench, op, mem ? " mem=" : "",
           mem ? mem : "", size, npes, usec);
    if (with_mbps)
        printf(" mbps=%.1f", usec > 0 ? (double)size / usec : 0.0);
    putchar('\n');
    fflush(stdout);
}

/* A line saying why an op has no number (error=wrong_result, unsupported). */
static inline void bench_print_error(const char *bench, const char *op, const char *mem,
                                     size_t size, int npes, const char *error)
{
    printf("bench=%s op=%s%s%s size=%zu npes=%d error=%s\n", bench, op, mem ? " mem=" : "",
           mem ? mem : "", size, npes, error);
    fflush(stdout);
}

/* Keeps the compiler from dropping or merging accesses to p around it. */
static inline void bench_clobber(const void *p)
{
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif /* SHOAL_BENCH_TIMING_H */
