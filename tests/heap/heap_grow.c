/*
 * The symmetric heap grows and gives memory back (issue 32). Run with a small
 * SHMEM_SYMMETRIC_SIZE (ctest: 4M).
 *
 *   heap_grow grow   allocations in steps of various sizes until the heap is
 *                    8x its initial size; put/get, AMOs, put-with-signal, a
 *                    reduction and a broadcast on the oldest allocation (first
 *                    segment), the newest (last segment) and between them,
 *                    values checked; realloc across segments keeps the data;
 *                    freeing everything gives the heap back its initial size.
 *   heap_grow loop   allocate, touch, free in a loop (with realloc): the heap's
 *                    later segments come and go, this process maps none of
 *                    them after each free (/proc/self/maps) and its resident
 *                    size stays bounded.
 */
#include "check.h"

#include <shmemx.h>

#define MAX_BLOCKS 64

static int me, npes;

static size_t heap_total(void)
{
    size_t total, used, largest;
    shmemx_heap_info(&total, &used, &largest);
    return total;
}

/* Mappings of the heap's later segments ("memfd:shoal-heap-N") in this
 * process: its own and its local peers'. */
static int later_segment_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "cannot read /proc/self/maps");
    char line[512];
    int n = 0;
    while (fgets(line, sizeof(line), f) != NULL)
        n += strstr(line, "memfd:shoal-heap-") != NULL;
    fclose(f);
    return n;
}

static long vm_rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL, "cannot read /proc/self/status");
    char line[256];
    long kib = -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

static long pattern(int pe, int block, size_t i)
{
    return (long)pe * 1000003L + (long)block * 7919L + (long)i;
}

/* RMA, AMO, signal and collectives on block b (n longs), then a barrier. */
static void exercise(long *blk, size_t n, int b, uint64_t *sig)
{
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const size_t m = n < 512 ? n : 512; /* words put at the start and at the end */
    long src[512];
    /* put: the first and the last m words of the right neighbour's block */
    for (size_t i = 0; i < m; i++)
        src[i] = pattern(me, b, i);
    shmem_long_put(blk, src, m, right);
    shmem_long_put(blk + n - m, src, m, right);
    shmem_barrier_all();
    for (size_t i = 0; i < m; i++) {
        CHECK_VAL("put start", i, blk[i], pattern(left, b, i));
        CHECK_VAL("put end", i, blk[n - m + i], pattern(left, b, i));
    }
    /* get */
    CHECK_EQ("get", shmem_long_g(blk + n - 1, right), pattern(me, b, m - 1));
    shmem_barrier_all();
    /* AMOs: every PE adds to word 0 of PE 0 and fetch-adds word 1 of its right neighbour */
    if (me == 0)
        blk[0] = 0;
    blk[1] = 100;
    shmem_barrier_all();
    shmem_long_atomic_add(blk, me + 1, 0);
    long old = shmem_long_atomic_fetch_add(blk + 1, 5, right);
    CHECK_EQ("fetch_add old", old, 100L);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ("atomic_add sum", blk[0], (long)npes * (npes + 1) / 2);
    CHECK_EQ("fetch_add result", blk[1], 105L);
    /* put with signal into this block, the signal word in the newest block */
    *sig = 0;
    shmem_barrier_all();
    for (size_t i = 0; i < m; i++)
        src[i] = -pattern(me, b, i);
    shmem_long_put_signal(blk + 2, src, m - 2, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    for (size_t i = 0; i < m - 2; i++)
        CHECK_VAL("put_signal", i, blk[2 + i], -pattern(left, b, i));
    shmem_barrier_all();
    /* a reduction from this block's end into its start, and a broadcast */
    for (size_t i = 0; i < 8; i++)
        blk[n - 8 + i] = me + (long)i;
    shmem_barrier_all();
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, blk, blk + n - 8, 8) == 0, "reduce failed");
    for (size_t i = 0; i < 8; i++)
        CHECK_VAL("sum_reduce", i, blk[i], (long)npes * (npes - 1) / 2 + (long)npes * (long)i);
    blk[16] = me == npes - 1 ? 4242 + b : -1;
    shmem_barrier_all();
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, blk + 17, blk + 16, 1, npes - 1) == 0,
          "broadcast failed");
    CHECK_EQ("broadcast", blk[17], 4242L + b);
    shmem_barrier_all();
}

static void grow(void)
{
    const size_t initial = heap_total();
    static const size_t steps[] = {8 << 10, 1 << 20,  64,      3 << 20, 100000 * 8,
                                   9 << 20, 5000 * 8, 2 << 20, 640,     17 << 20};
    long *blk[MAX_BLOCKS];
    size_t len[MAX_BLOCKS], allocated = 0;
    int nb = 0;
    while (allocated < 8 * initial && nb < MAX_BLOCKS) {
        size_t bytes = steps[nb % (sizeof(steps) / sizeof(steps[0]))];
        if (bytes < 4096)
            bytes = 4096; /* room for the words exercise() uses */
        blk[nb] = shmem_malloc(bytes);
        CHECK(blk[nb] != NULL, "shmem_malloc(%zu) failed after %zu bytes (initial heap %zu)", bytes,
              allocated, initial);
        len[nb] = bytes / sizeof(long);
        blk[nb][len[nb] - 1] = pattern(me, nb, 0); /* touched, kept till the end */
        allocated += bytes;
        nb++;
    }
    const size_t total = heap_total();
    CHECK(total >= 8 * initial && total <= 64 * initial,
          "the heap is %zu bytes after %zu allocated (initial %zu)", total, allocated, initial);
    uint64_t *sig = shmem_malloc(sizeof(*sig)); /* in a free block somewhere, or a new segment */
    CHECK(sig != NULL, "signal word allocation failed");
    const int pick[] = {0, nb / 2, nb - 1};
    for (int k = 0; k < 3; k++)
        exercise(blk[pick[k]], len[pick[k]], pick[k], sig);
    /* Every block still holds this PE's mark in its last word (exercise
     * rewrote the last words of the three it used). */
    for (int b = 0; b < nb; b++)
        if (b != pick[0] && b != pick[1] && b != pick[2])
            CHECK_VAL("mark", b, blk[b][len[b] - 1], pattern(me, b, 0));
    /* realloc the oldest block past everything there is: a new segment */
    for (size_t i = 0; i < 64; i++)
        blk[0][i] = pattern(me, 99, i);
    const size_t big = total + (1 << 20);
    long *moved = shmem_realloc(blk[0], big);
    CHECK(moved != NULL, "shmem_realloc to %zu bytes failed", big);
    for (size_t i = 0; i < 64; i++)
        CHECK_VAL("realloc kept", i, moved[i], pattern(me, 99, i));
    moved[big / sizeof(long) - 1] = 7;
    shmem_barrier_all();
    CHECK_EQ("realloc'd block, last word of the right neighbour",
             shmem_long_g(moved + big / sizeof(long) - 1, (me + 1) % npes), 7L);
    blk[0] = moved;
    shmem_barrier_all();
    /* Free everything, newest first: the heap is back to its first segment. */
    shmem_free(sig);
    for (int b = nb - 1; b >= 0; b--)
        shmem_free(blk[b]);
    CHECK(heap_total() == initial, "after freeing everything the heap is %zu bytes, not %zu",
          heap_total(), initial);
    CHECK(later_segment_maps() == 0, "%d mappings of later heap segments left after the frees",
          later_segment_maps());
    /* and it still works */
    long *w = shmem_calloc(1, sizeof(long));
    shmem_long_atomic_inc(w, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ("after shrinking", *w, (long)npes);
    shmem_free(w);
    if (me == 0)
        printf("grew to %zu bytes (%.1fx the initial %zu) in %d allocations\n", total,
               (double)total / (double)initial, initial, nb);
}

static void loop(void)
{
    const size_t initial = heap_total();
    long rss0 = -1, peak = 0;
    for (int it = 0; it < 8; it++) {
        const size_t bytes = initial * (size_t)(2 + it % 3); /* never fits the first segment */
        char *p = shmem_malloc(bytes);
        CHECK(p != NULL, "iteration %d: shmem_malloc(%zu) failed", it, bytes);
        memset(p, it, bytes);
        if (it % 2) { /* and realloc it bigger: another segment, the old one given back */
            p = shmem_realloc(p, bytes + initial);
            CHECK(p != NULL, "iteration %d: shmem_realloc failed", it);
            CHECK_VAL("realloc kept", it, p[bytes - 1], (char)it);
            memset(p + bytes, it, initial);
        }
        shmem_barrier_all(); /* every PE wrote its own block before the neighbour's put lands */
        shmem_char_p(p, (char)(me + 1), (me + 1) % npes);
        shmem_barrier_all();
        CHECK_VAL("p", it, p[0], (char)((me + npes - 1) % npes + 1));
        long rss = vm_rss_kib();
        if (rss > peak)
            peak = rss;
        shmem_free(p);
        CHECK_VAL("heap size after free", it, heap_total(), initial);
        CHECK_VAL("later segments mapped after free", it, later_segment_maps(), 0);
        if (it == 0)
            rss0 = vm_rss_kib();
    }
    const long rss_end = vm_rss_kib();
    /* Without giving back, each PE would hold every segment it touched. */
    CHECK(rss_end < rss0 + (long)(initial / 1024),
          "resident size grew from %ld kB to %ld kB over the loop (peak %ld kB)", rss0, rss_end,
          peak);
    if (me == 0)
        printf("resident: %ld kB after the first free, %ld kB at the end, peak %ld kB\n", rss0,
               rss_end, peak);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *mode = argc > 1 ? argv[1] : "grow";
    if (strcmp(mode, "grow") == 0)
        grow();
    else if (strcmp(mode, "loop") == 0)
        loop();
    else
        CHECK(0, "unknown mode %s", mode);
    sht_pass(mode);
    shmem_finalize();
    return 0;
}
