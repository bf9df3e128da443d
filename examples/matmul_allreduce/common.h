/*
 * matmul_allreduce: what every version of the example shares (host.c, and
 * cuda.cu with one fused kernel): the command line, the inputs
 * (A_pe and B, integer-valued doubles derived from the PE number and the
 * indices), the tiling, the check of a gathered C against a plain
 * computation, and the timing report against the unfused baseline.
 *
 * C is M x N, split into T x T tiles numbered row by row (tile t covers rows
 * (t / (N/T)) * T.. and columns (t % (N/T)) * T..). Every version stores a
 * tile's T*T values contiguously, row-major inside the tile; tile t is owned
 * by PE t % npes (round robin).
 */
#ifndef MATMUL_ALLREDUCE_COMMON_H
#define MATMUL_ALLREDUCE_COMMON_H

#include <stddef.h>

typedef struct {
    int m, n, k;    /* C is m x n; A_pe is m x k; B is k x n */
    int tile;       /* tile edge T; m and n are multiples of it */
    int depth;      /* workspace slots per source PE on each owner (2: double-buffered) */
    int reps;       /* timed repetitions of each variant (after one warm-up) */
    int break_tile; /* >= 0: the fused path adds 1 to this tile (shows the check failing) */
} mm_args_t;

/* Parses -m M -n N -k K -t T -d DEPTH -r REPS -x TILE. On a bad argument PE 0 prints
 * what is wrong and the usage; returns 0 on success, -1 otherwise. */
int mm_args_parse(mm_args_t *args, int argc, char **argv, int me);

/* The inputs: A_pe[i][k] and B[k][j], small integers (|value| <= 6), so
 * every product, partial sum and total is an integer far below 2^53 and
 * exact in a double whatever the order of the additions. */
double mm_a_value(int pe, int i, int k);
double mm_b_value(int k, int j);
void mm_fill_a(double *a, const mm_args_t *args, int pe); /* m x k, row-major */
void mm_fill_b(double *b, const mm_args_t *args);         /* k x n, row-major */

static inline int mm_tiles(const mm_args_t *args)
{
    return (args->m / args->tile) * (args->n / args->tile);
}

static inline size_t mm_tile_elems(const mm_args_t *args)
{
    return (size_t)args->tile * (size_t)args->tile;
}

/* The all-reduced C = sum over every PE of A_pe x B, computed plainly
 * (sum the A_pe, then one row-major triple loop, no tiling); m x n. */
double *mm_reference(const mm_args_t *args, int npes);

/* Checks a C held as tiles against the reference. Tile t is stored at slot
 * (t % owners) * per_owner + t / owners (owners = 1, per_owner = tiles: plain
 * tile order; owners = npes: the order of a gather of round-robin owners).
 * On the first wrong value, prints the variant, this PE, the tile, its owner,
 * the element, and the value got and expected; returns 0 then, 1 if all match. */
int mm_check(const char *variant, const mm_args_t *args, const double *tiles, int owners,
             int per_owner, const double *ref, int me, int npes);

/* Seconds on a monotonic clock. */
double mm_now(void);

/* One variant's times, seconds per rep: the whole run (the slowest PE), and
 * its tail, from the end of the last PE's last tile computation to the end
 * (the communication that the overlap did not hide). */
typedef struct {
    double *total, *tail;
} mm_times_t;

/* Prints the median of each variant's total and tail, and the ratio unfused /
 * fused of the totals. */
void mm_report(const char *fused_name, const char *unfused_name, const mm_args_t *args, int npes,
               const mm_times_t *fused, const mm_times_t *unfused);

#endif
