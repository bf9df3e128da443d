/*
 * common.h: the SHMEM side of the benchmarks' method: start-up, handing a
 * value to every PE, timing a loop on all PEs, checks and output.  The parts
 * that need no SHMEM (clock, options, medians, the output line) are in
 * timing.h; which optional calls the implementation has is in features.h.
 *
 * The benchmarks use only the standard OpenSHMEM API, so the same source
 * builds with Shoal's shoalcc and with another implementation's compiler
 * wrapper (Open MPI's oshcc), and the two can be compared side by side.
 * Everything here is static (inline) so that each benchmark stays one file
 * plus these headers, with no library of its own to build.
 *
 * How a measurement is taken (bench_measure): every PE enters every timed
 * round together, PE 0 picks the iteration count and tells the others, each
 * PE runs its part of the loop, and PE 0 times its own part.  The count is
 * doubled until a round lasts a tenth of the target time, then scaled so a
 * round lasts about the target time; the calibration rounds double as
 * warm-up.  The reported figure is the median over several rounds of the
 * time per operation, which resists the noise of a shared machine better
 * than a mean.  Collectives are timed differently (bench_measure_inside):
 * each PE times only its own calls, and the slowest PE's mean counts.
 *
 * Output lines are described in timing.h; PE 0 prints them, except that a
 * failed correctness check is printed by whichever PE saw it.
 */
#ifndef SHOAL_BENCH_COMMON_H
#define SHOAL_BENCH_COMMON_H

#include "timing.h"

#include <shmem.h>

#include "features.h"

/* Symmetric slots: one through which PE 0 hands a value to every PE, one
 * double per PE for gathering a figure from every PE. */
static long *bench_bcast_slot;
static double *bench_gather_slot;
static int bench_failed;

static inline int bench_me(void)
{
    return shmem_my_pe();
}
static inline int bench_npes(void)
{
    return shmem_n_pes();
}

/* PE 0 measures against PE 1, or against itself when the job has one PE. */
static inline int bench_peer(void)
{
    return shmem_n_pes() > 1 ? 1 : 0;
}

/*
 * Records a failed correctness check of one measured op.  The PE that sees
 * the failure prints an error line for the op on stdout, so a comparison can
 * show "wrong result" instead of a number, and the detail on stderr; the
 * program then exits 1 at the end.  MEM is "heap", "global" or NULL.
 */
#define BENCH_CHECK_MEM(bench, op, mem, size, cond, ...)                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            bench_print_error((bench), (op), (mem), (size_t)(size), shmem_n_pes(),                 \
                              "wrong_result");                                                     \
            fprintf(stderr, "bench: PE %d: %s %s%s%s: check failed at %s:%d: ", shmem_my_pe(),     \
                    (bench), (op), (mem) ? " on " : "", (mem) ? (const char *)(mem) : "",          \
                    __FILE__, __LINE__);                                                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            bench_failed = 1;                                                                      \
        }                                                                                          \
    } while (0)
#define BENCH_CHECK(bench, op, size, cond, ...)                                                    \
    BENCH_CHECK_MEM(bench, op, NULL, size, cond, __VA_ARGS__)

/* Starts SHMEM and reads the options.  Every PE parses the same command line,
 * so all agree without talking; only PE 0 prints the usage text. */
static inline void bench_init(int argc, char **argv, struct bench_opts *o, int flags)
{
    shmem_init();
    bench_bcast_slot = shmem_malloc(sizeof(long));
    bench_gather_slot = shmem_malloc(sizeof(double) * (size_t)shmem_n_pes());
    if (!bench_bcast_slot || !bench_gather_slot) {
        fprintf(stderr, "bench: shmem_malloc of the benchmark's slots failed\n");
        shmem_global_exit(1);
    }
    int rc = bench_parse_opts(argc, argv, o, flags, shmem_my_pe() == 0);
    if (rc) {
        shmem_finalize();
        exit(rc == 1 ? 0 : 2);
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

/* The largest v over all PEs, on PE 0 (other PEs get their own v back). */
static inline double bench_max_over_pes(double v)
{
    double m = v;

    shmem_double_p(&bench_gather_slot[bench_me()], v, 0);
    shmem_barrier_all();
    if (bench_me() == 0)
        for (int pe = 0; pe < bench_npes(); pe++)
            if (((volatile double *)bench_gather_slot)[pe] > m)
                m = ((volatile double *)bench_gather_slot)[pe];
    shmem_barrier_all();
    return m;
}

/* Runs one round of n iterations on every PE; PE 0's duration in µs. */
static inline double bench_round(bench_loop_fn fn, void *ctx, long n)
{
    double t0 = bench_now_us();

    fn(ctx, n);
    return bench_now_us() - t0;
}

/* The iteration count for the timed rounds, agreed by every PE: calibrated
 * on PE 0's wall time as timing.h describes, or the fixed --iters. */
static inline long bench_calibrate(const struct bench_opts *o, bench_loop_fn fn, void *ctx)
{
    const double target_us = o->target_ms * 1000.0;
    const long max_n = 1L << 30;
    long n = o->iters ? o->iters : 1;

    if (o->iters) {
        /* A fixed count still gets one untimed warm-up round. */
        bench_bcast_long(0);
        bench_round(fn, ctx, n / 10 + 1);
        return n;
    }
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
    return bench_bcast_long(n);
}

/*
 * Measures fn on all PEs (collective: every PE must call it with the same
 * options).  Returns, on PE 0, the median µs per iteration; other PEs get 0.
 * ops_per_iter divides the time further (a window of puts counts each put).
 */
static inline double bench_measure(const struct bench_opts *o, bench_loop_fn fn, void *ctx,
                                   long ops_per_iter)
{
    double samples[BENCH_MAX_REPS];
    long n = bench_calibrate(o, fn, ctx);

    for (int r = 0; r < o->reps; r++) {
        bench_bcast_long(0); /* start every round together */
        samples[r] = bench_round(fn, ctx, n) / ((double)n * (double)ops_per_iter);
    }
    return bench_me() == 0 ? bench_median(samples, o->reps) : 0.0;
}

/*
 * For collectives: fn runs n iterations and adds to *inside_us the time this
 * PE spent inside the measured calls only (each iteration ends with a
 * barrier that is not timed, so every call starts with all PEs ready and
 * nothing of one call spills into the next).  A round's figure is the mean
 * time per call of the slowest PE; the median over rounds is returned on
 * PE 0.  The iteration count is calibrated on wall time, barriers included.
 */
static inline double bench_measure_inside(const struct bench_opts *o, bench_loop_fn fn, void *ctx,
                                          double *inside_us)
{
    double samples[BENCH_MAX_REPS];
    long n = bench_calibrate(o, fn, ctx);

    for (int r = 0; r < o->reps; r++) {
        bench_bcast_long(0);
        *inside_us = 0;
        fn(ctx, n);
        samples[r] = bench_max_over_pes(*inside_us / (double)n);
    }
    return bench_me() == 0 ? bench_median(samples, o->reps) : 0.0;
}

static inline void bench_report_mem(const char *bench, const char *op, const char *mem, size_t size,
                                    double usec)
{
    if (bench_me() == 0)
        bench_print(bench, op, mem, size, bench_npes(), usec, 0);
}

static inline void bench_report(const char *bench, const char *op, size_t size, double usec)
{
    bench_report_mem(bench, op, NULL, size, usec);
}

/* Bandwidth in MB/s (10^6 bytes per second) is bytes per microsecond. */
static inline void bench_report_bw(const char *bench, const char *op, const char *mem, size_t size,
                                   double usec)
{
    if (bench_me() == 0)
        bench_print(bench, op, mem, size, bench_npes(), usec, 1);
}

/* For an op the implementation's shmem.h lacks (see features.h). */
static inline void bench_report_unsupported(const char *bench, const char *op, const char *mem,
                                            size_t size)
{
    if (bench_me() == 0)
        bench_print_error(bench, op, mem, size, bench_npes(), "unsupported");
}

static inline void bench_header(const char *bench, const struct bench_opts *o)
{
    if (bench_me() == 0) {
        char iters[32] = "auto";

        if (o->iters)
            snprintf(iters, sizeof(iters), "%ld", o->iters);
        printf("# %s: npes=%d reps=%d iters=%s target_ms=%g max_size=%zu spec=%d.%d%s\n", bench,
               bench_npes(), o->reps, iters, o->target_ms, o->max_size, SHMEM_MAJOR_VERSION,
               SHMEM_MINOR_VERSION, o->quick ? " quick" : "");
        fflush(stdout);
    }
}

/* Allocates symmetric memory or stops the whole job with a clear message. */
static inline void *bench_malloc(size_t bytes)
{
    void *p = shmem_malloc(bytes);

    if (!p) {
        fprintf(stderr,
                "bench: PE %d: shmem_malloc(%zu) failed; raise the "
                "implementation's symmetric heap size or lower --max-size\n",
                bench_me(), bytes);
        shmem_global_exit(1);
    }
    return p;
}

/* Private memory, or the whole job stops with a clear message. */
static inline void *bench_private(size_t bytes)
{
    void *p = malloc(bytes);

    if (!p) {
        fprintf(stderr, "bench: PE %d: malloc(%zu) failed\n", bench_me(), bytes);
        shmem_global_exit(1);
    }
    return p;
}

/* Ends the job; a failed check anywhere makes that PE exit 1. */
static inline int bench_finish(void)
{
    shmem_barrier_all();
    shmem_free(bench_gather_slot);
    shmem_free(bench_bcast_slot);
    shmem_finalize();
    return bench_failed ? 1 : 0;
}

#endif /* SHOAL_BENCH_COMMON_H */
