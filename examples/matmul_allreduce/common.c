/*
 * matmul_allreduce: the parts every version shares (see common.h): argument
 * parsing, the inputs, the plain reference, the check and the report. No
 * OpenSHMEM calls here, so a CUDA version's host code links it unchanged.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void mm_usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [-m M] [-n N] [-k K] [-t TILE] [-d DEPTH] [-r REPS] [-x TILE_INDEX]\n"
            "  C (M x N) = sum over PEs of A_pe (M x K) x B (K x N), all-reduced tile by tile;\n"
            "  M and N are multiples of TILE; DEPTH tiles from each PE fit in an owner's\n"
            "  workspace (defaults: 512 512 512, tile 64, depth 2 (double-buffered), 5 reps).\n"
            "  -x adds 1 to one tile of the fused result, to show the check failing.\n",
            prog);
}

static int mm_parse_int(const char *text, const char *what, int min, int *out, int me)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < min || v > 1 << 20) {
        if (me == 0)
            fprintf(stderr, "matmul_allreduce: %s '%s' is not an integer in [%d, %d]\n", what, text,
                    min, 1 << 20);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int mm_args_parse(mm_args_t *args, int argc, char **argv, int me)
{
    *args = (mm_args_t){
        .m = 512, .n = 512, .k = 512, .tile = 64, .depth = 2, .reps = 5, .break_tile = -1};
    int opt, rc = 0;
    while (rc == 0 && (opt = getopt(argc, argv, "m:n:k:t:d:r:x:h")) != -1) {
        switch (opt) {
        case 'm':
            rc = mm_parse_int(optarg, "-m (rows of C)", 1, &args->m, me);
            break;
        case 'n':
            rc = mm_parse_int(optarg, "-n (columns of C)", 1, &args->n, me);
            break;
        case 'k':
            rc = mm_parse_int(optarg, "-k (inner dimension)", 1, &args->k, me);
            break;
        case 't':
            rc = mm_parse_int(optarg, "-t (tile edge)", 1, &args->tile, me);
            break;
        case 'd':
            rc = mm_parse_int(optarg, "-d (slots per source)", 1, &args->depth, me);
            break;
        case 'r':
            rc = mm_parse_int(optarg, "-r (repetitions)", 1, &args->reps, me);
            break;
        case 'x':
            rc = mm_parse_int(optarg, "-x (tile to break)", 0, &args->break_tile, me);
            break;
        default:
            rc = -1;
            break;
        }
    }
    if (rc == 0 && optind < argc) {
        if (me == 0)
            fprintf(stderr, "matmul_allreduce: unexpected argument '%s'\n", argv[optind]);
        rc = -1;
    }
    if (rc == 0 && (args->m % args->tile != 0 || args->n % args->tile != 0)) {
        if (me == 0)
            fprintf(stderr,
                    "matmul_allreduce: M=%d and N=%d must be multiples of the tile %d; "
                    "choose -t to divide both\n",
                    args->m, args->n, args->tile);
        rc = -1;
    }
    long long limit = 1LL << 30;
    if (rc == 0 && ((long long)args->m * args->n > limit || (long long)args->m * args->k > limit ||
                    (long long)args->k * args->n > limit)) {
        if (me == 0)
            fprintf(stderr,
                    "matmul_allreduce: a matrix of %d x %d x %d has more than 2^30 elements; "
                    "choose smaller -m/-n/-k\n",
                    args->m, args->n, args->k);
        rc = -1;
    }
    if (rc == 0 && args->break_tile >= mm_tiles(args)) {
        if (me == 0)
            fprintf(stderr, "matmul_allreduce: -x %d is past the last tile (%d tiles)\n",
                    args->break_tile, mm_tiles(args));
        rc = -1;
    }
    if (rc != 0 && me == 0)
        mm_usage(argv[0]);
    return rc;
}

double mm_a_value(int pe, int i, int k)
{
    return (double)((i * 7 + k * 3 + pe * 5) % 11 - 5);
}

double mm_b_value(int k, int j)
{
    return (double)((k * 5 + j * 3) % 13 - 6);
}

void mm_fill_a(double *a, const mm_args_t *args, int pe)
{
    for (int i = 0; i < args->m; i++)
        for (int k = 0; k < args->k; k++)
            a[(size_t)i * args->k + k] = mm_a_value(pe, i, k);
}

void mm_fill_b(double *b, const mm_args_t *args)
{
    for (int k = 0; k < args->k; k++)
        for (int j = 0; j < args->n; j++)
            b[(size_t)k * args->n + j] = mm_b_value(k, j);
}

double *mm_reference(const mm_args_t *args, int npes)
{
    size_t mk = (size_t)args->m * args->k, kn = (size_t)args->k * args->n;
    double *sum_a = calloc(mk, sizeof(double)), *a = malloc(mk * sizeof(double));
    double *b = malloc(kn * sizeof(double));
    double *c = calloc((size_t)args->m * args->n, sizeof(double));
    if (sum_a == NULL || a == NULL || b == NULL || c == NULL) {
        fprintf(stderr,
                "matmul_allreduce: no memory for the %d x %d reference; use smaller -m/-n\n",
                args->m, args->n);
        free(sum_a);
        free(a);
        free(b);
        free(c);
        return NULL;
    }
    /* Sum over PEs of A_pe x B = (sum of A_pe) x B, exactly, in integers. */
    for (int pe = 0; pe < npes; pe++) {
        mm_fill_a(a, args, pe);
        for (size_t i = 0; i < mk; i++)
            sum_a[i] += a[i];
    }
    mm_fill_b(b, args);
    for (int i = 0; i < args->m; i++)
        for (int j = 0; j < args->n; j++) {
            double s = 0;
            for (int k = 0; k < args->k; k++)
                s += sum_a[(size_t)i * args->k + k] * b[(size_t)k * args->n + j];
            c[(size_t)i * args->n + j] = s;
        }
    free(sum_a);
    free(a);
    free(b);
    return c;
}

int mm_check(const char *variant, const mm_args_t *args, const double *tiles, int owners,
             int per_owner, const double *ref, int me, int npes)
{
    int t_edge = args->tile, tiles_per_row = args->n / t_edge;
    for (int t = 0; t < mm_tiles(args); t++) {
        const double *tile =
            tiles + (size_t)((t % owners) * per_owner + t / owners) * mm_tile_elems(args);
        int r0 = (t / tiles_per_row) * t_edge, c0 = (t % tiles_per_row) * t_edge;
        for (int i = 0; i < t_edge; i++)
            for (int j = 0; j < t_edge; j++) {
                double got = tile[(size_t)i * t_edge + j];
                double want = ref[(size_t)(r0 + i) * args->n + c0 + j];
                if (got != want) {
                    fprintf(stderr,
                            "matmul_allreduce: PE %d: %s result wrong in tile %d (owner PE %d, "
                            "rows %d-%d, columns %d-%d) at C[%d][%d]: got %.17g, expected %.17g\n",
                            me, variant, t, t % npes, r0, r0 + t_edge - 1, c0, c0 + t_edge - 1,
                            r0 + i, c0 + j, got, want);
                    return 0;
                }
            }
    }
    return 1;
}

double mm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int mm_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double mm_median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof(double));
    if (s == NULL)
        return v[0];
    memcpy(s, v, (size_t)n * sizeof(double));
    qsort(s, (size_t)n, sizeof(double), mm_cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

void mm_report(const char *fused_name, const char *unfused_name, const mm_args_t *args, int npes,
               const mm_times_t *fused, const mm_times_t *unfused)
{
    double f = mm_median(fused->total, args->reps), u = mm_median(unfused->total, args->reps);
    printf("matmul_allreduce: %d PEs, C %d x %d, K %d, tile %d (%d tiles), depth %d, median of "
           "%d reps (slowest PE each; tail: after the last PE's last tile):\n",
           npes, args->m, args->n, args->k, args->tile, mm_tiles(args), args->depth, args->reps);
    printf("  fused (%s): %9.3f ms, tail %8.3f ms\n", fused_name, 1e3 * f,
           1e3 * mm_median(fused->tail, args->reps));
    printf("  unfused (%s): %9.3f ms, tail %8.3f ms\n", unfused_name, 1e3 * u,
           1e3 * mm_median(unfused->tail, args->reps));
    printf("  unfused / fused: %.2fx\n", f > 0 ? u / f : 0.0);
}
