/*
 * memory: the symmetric heap and the symmetric data segment.
 *
 *  - shmem_malloc / calloc (zeroed even after the memory was dirtied) /
 *    align (alignment honoured, 8 B .. 64 KiB) / realloc (contents kept when
 *    growing and shrinking) / free (including free(NULL));
 *  - (1.5) shmem_malloc_with_hints with 0, SHMEM_MALLOC_ATOMICS_REMOTE and
 *    SHMEM_MALLOC_SIGNAL_REMOTE, used as AMO targets, and with a hint value
 *    the library does not know, which allocates as shmem_malloc does;
 *  - shmem_align with alignment 0 or a non-power of two returns NULL on
 *    every PE and the heap stays usable and symmetric afterwards;
 *  - many allocations of varied sizes, written through the neighbour with
 *    per-block patterns, then half freed and reallocated: no two blocks may
 *    overlap and every block must be reachable remotely;
 *  - zero-size shmem_malloc returns NULL;
 *  - shmem_ptr on heap and globals (non-NULL for every PE on one host, the
 *    caller's own pointer for itself; stores through it land on the peer);
 *  - shmem_addr_accessible and shmem_pe_accessible;
 *  - when SHMEM_SYMMETRIC_SIZE is set (ctest sets it; the heap is then kept
 *    from growing), a request larger than the heap returns NULL on every PE
 *    and the heap stays usable.
 */
#include "check.h"

#include <ctype.h>
#include <stdint.h>

static long g_word;
static int g_array[1000];

/* ---- malloc, calloc, align, realloc, free -------------------------------- */

static void basics(void)
{
    int me = shmem_my_pe(), right = sht_right(), left = sht_left();

    /* A dirty block, freed, then calloc of the same size must be zeroed. */
    size_t n = 10000;
    unsigned char *dirty = shmem_malloc(n);
    CHECK(dirty, "shmem_malloc(%zu) returned NULL", n);
    memset(dirty, 0xAB, n);
    shmem_barrier_all();
    shmem_free(dirty);
    unsigned char *z = shmem_calloc(n / 4, 4);
    CHECK(z, "shmem_calloc(%zu, 4) returned NULL", n / 4);
    for (size_t i = 0; i < n; i++)
        CHECK_VAL("shmem_calloc byte", i, (unsigned)z[i], 0u);
        /* Remote view of the neighbour's block is zero too: calloc ends with a
         * barrier, so the neighbour has zeroed its block by the time mine returns.
         * (OSHMEM 4.1 zeroes after its barrier; wait for it there.) */
#ifdef SHT_OSHMEM_QUIRKS
    shmem_barrier_all();
#endif
    unsigned char buf[256];
    shmem_getmem(buf, z + n - sizeof buf, sizeof buf, right);
    for (size_t i = 0; i < sizeof buf; i++)
        CHECK_VAL("shmem_calloc byte seen remotely", i, (unsigned)buf[i], 0u);
    shmem_barrier_all();
    shmem_free(z);

#if SHOAL_TEST_HAVE_15
    /* calloc with a count of zero or size zero returns NULL. */
    CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) did not return NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) did not return NULL");
#endif

    /* count * size overflowing size_t must fail, not wrap to a small block.
     * (OSHMEM 4.1 wraps and returns a 2-byte block.) */
#ifndef SHT_OSHMEM_QUIRKS
    CHECK(shmem_calloc(SIZE_MAX / 2 + 2, 2) == NULL,
          "shmem_calloc(SIZE_MAX/2+2, 2) (overflowing count*size) did not return NULL");
#endif

    /* shmem_align: each alignment is honoured and the block is symmetric. */
    for (size_t a = 8; a <= 65536; a *= 2) {
        long *p = shmem_align(a, 3 * sizeof(long) + a / 2);
        CHECK(p, "shmem_align(%zu) returned NULL", a);
        CHECK(((uintptr_t)p % a) == 0, "shmem_align(%zu) returned %p", a, (void *)p);
        p[0] = -1;
        shmem_barrier_all();
        shmem_long_p(&p[0], (long)a * 100 + me, right);
        shmem_barrier_all();
        CHECK_VAL("value in aligned block", (long)a, p[0], (long)a * 100 + left);
        shmem_barrier_all();
        shmem_free(p);
    }

    /* shmem_realloc: grow keeps the contents; shrink keeps the prefix. */
    int *r = shmem_malloc(100 * sizeof(int));
    CHECK(r, "shmem_malloc returned NULL");
    for (int i = 0; i < 100; i++)
        r[i] = me * 1000 + i;
    /* Something allocated after it, so growing likely has to move it. */
    int *blocker = shmem_malloc(64);
    CHECK(blocker, "shmem_malloc(64) returned NULL");
    shmem_barrier_all();
    int *r2 = shmem_realloc(r, 50000 * sizeof(int));
    CHECK(r2, "shmem_realloc grow returned NULL");
    for (int i = 0; i < 100; i++)
        CHECK_VAL("realloc grow kept", i, r2[i], me * 1000 + i);
    for (int i = 100; i < 50000; i++)
        r2[i] = i;
    shmem_barrier_all();
    /* The new block is symmetric: read the neighbour's tail. */
    int tail[4];
    shmem_int_get(tail, &r2[49996], 4, right);
    for (int i = 0; i < 4; i++)
        CHECK_VAL("realloc grown tail on neighbour", i, tail[i], 49996 + i);
    shmem_barrier_all();
    int *r3 = shmem_realloc(r2, 10 * sizeof(int));
    CHECK(r3, "shmem_realloc shrink returned NULL");
    for (int i = 0; i < 10; i++)
        CHECK_VAL("realloc shrink kept", i, r3[i], me * 1000 + i);
    shmem_barrier_all();
    CHECK_EQ("realloc shrunk block read remotely", shmem_int_g(&r3[9], left), left * 1000 + 9);
    shmem_barrier_all();
    /* realloc(NULL, n) behaves like malloc. */
    long *r4 = shmem_realloc(NULL, 16 * sizeof(long));
    CHECK(r4, "shmem_realloc(NULL, ...) returned NULL");
    r4[15] = -5;
    shmem_barrier_all();
    shmem_long_p(&r4[15], me, right);
    shmem_barrier_all();
    CHECK_EQ("realloc(NULL) block written by neighbour", r4[15], (long)left);
    shmem_barrier_all();
    shmem_free(r4);
    shmem_free(r3);
    shmem_free(blocker);
    shmem_free(NULL); /* no-op */

#if SHOAL_TEST_HAVE_15
    /* Zero-size requests return NULL (1.5: "When size is zero, the shmem_malloc
     * routine performs no action and returns a null pointer"). */
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) did not return NULL");
    CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) did not return NULL");
#endif
    shmem_barrier_all();
}

#if SHOAL_TEST_HAVE_15
static void hints(void)
{
    int npes = shmem_n_pes();
    long hint_list[3] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int h = 0; h < 3; h++) {
        uint64_t *p = shmem_malloc_with_hints(4 * sizeof(uint64_t), hint_list[h]);
        CHECK(p, "shmem_malloc_with_hints(hint %ld) returned NULL", hint_list[h]);
        CHECK(((uintptr_t)p % sizeof(uint64_t)) == 0, "hinted block %p misaligned", (void *)p);
        for (int i = 0; i < 4; i++)
            p[i] = 0;
        shmem_barrier_all();
        for (int k = 0; k < 20; k++)
            shmem_uint64_atomic_add(&p[1], 3, 0);
        shmem_barrier_all();
        CHECK_EQ("atomics on a hinted block", shmem_uint64_atomic_fetch(&p[1], 0),
                 (uint64_t)60 * npes);
        shmem_barrier_all();
        shmem_free(p);
    }
    /* A hint the library does not know: allocated like shmem_malloc (the spec
     * lets an implementation that cannot optimize ignore the hints). So are
     * words with every bit set, or all but one (as portable test suites
     * pass): they include bits an implementation may use for its own hints,
     * such as a GPU heap, which a program setting every bit did not ask for.
     * The block must work for put, get and atomics from every PE. */
    long unknown[5] = {(long)1 << 20, (long)1 << 20 | SHMEM_MALLOC_ATOMICS_REMOTE, ~0L,
                       ~0L & ~SHMEM_MALLOC_ATOMICS_REMOTE, ~0L & ~SHMEM_MALLOC_SIGNAL_REMOTE};
    const int me = shmem_my_pe(), right = sht_right(), left = sht_left();
    for (int h = 0; h < 5; h++) {
        long *p = shmem_malloc_with_hints(3 * sizeof(long), unknown[h]);
        CHECK(p, "shmem_malloc_with_hints(hint 0x%lx) returned NULL", unknown[h]);
        p[0] = 0;
        p[1] = 7000 + me;
        p[2] = -1;
        shmem_barrier_all();
        shmem_long_atomic_add(&p[0], me + 1, 0);
        CHECK_EQ("unknown-hint block read from the right", shmem_long_g(&p[1], right),
                 7000L + right);
        long v = 9000 + h * 100 + me;
        shmem_long_put(&p[2], &v, 1, right);
        shmem_barrier_all();
        CHECK_EQ("unknown-hint block put by the left", p[2], 9000L + h * 100 + left);
        CHECK_EQ("atomics on an unknown-hint block", shmem_long_atomic_fetch(&p[0], 0),
                 (long)npes * (npes + 1) / 2);
        shmem_barrier_all();
        shmem_free(p);
    }
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
          "shmem_malloc_with_hints(0, ...) did not return NULL");
    shmem_barrier_all();
}
#endif

/* ---- shmem_align corners --------------------------------------------------- */

/* An alignment of 0 or one that is not a power of two: NULL on every PE (as
 * other implementations do), and the heap goes on working symmetrically. */
static void align_corners(void)
{
    int npes = shmem_n_pes();
    static long nulls;
    nulls = 0;
    shmem_barrier_all();
    size_t bad[4] = {0, 3, 24, 1000};
    for (int i = 0; i < 4; i++) {
        void *p = shmem_align(bad[i], 256);
        CHECK(p == NULL, "shmem_align(%zu, 256) returned %p, expected NULL", bad[i], p);
        shmem_long_atomic_inc(&nulls, 0);
    }
    long *q = shmem_align(64, 4 * sizeof(long));
    CHECK(q, "shmem_align(64) returned NULL after refused alignments");
    CHECK(((uintptr_t)q % 64) == 0, "shmem_align(64) returned %p", (void *)q);
    q[0] = 500 + shmem_my_pe();
    shmem_barrier_all();
    CHECK_EQ("refused alignments seen by PE 0", shmem_long_atomic_fetch(&nulls, 0), 4L * npes);
    CHECK_EQ("aligned block after refusals, read from the right", shmem_long_g(&q[0], sht_right()),
             500L + sht_right());
    shmem_barrier_all();
    shmem_free(q);
}

/* ---- many blocks of varied sizes ----------------------------------------- */

#define NBLK 96

static size_t blk_size(int i, int gen)
{
    return (size_t)((i * 7919 + gen * 104729) % 3000) + 1 + (i % 9 == 0 ? 20000 : 0);
}
static unsigned char blk_byte(int pe, int i, int gen, size_t off)
{
    return (unsigned char)(pe * 37 + i * 11 + gen * 5 + off * 3 + 1);
}

static void fill_remote(unsigned char **blk, int *gen, int i)
{
    int me = shmem_my_pe(), right = sht_right();
    size_t sz = blk_size(i, gen[i]);
    unsigned char tmp[23000];
    for (size_t o = 0; o < sz; o++)
        tmp[o] = blk_byte(me, i, gen[i], o);
    shmem_putmem(blk[i], tmp, sz, right);
}

static void check_blocks(unsigned char **blk, int *gen)
{
    int left = sht_left();
    char what[64];
    for (int i = 0; i < NBLK; i++) {
        size_t sz = blk_size(i, gen[i]);
        snprintf(what, sizeof what, "block %d (gen %d, %zu bytes) byte", i, gen[i], sz);
        for (size_t o = 0; o < sz; o++)
            if (blk[i][o] != blk_byte(left, i, gen[i], o))
                CHECK_VAL(what, (long long)o, (unsigned)blk[i][o],
                          (unsigned)blk_byte(left, i, gen[i], o));
    }
}

static void many_blocks(void)
{
    unsigned char *blk[NBLK];
    int gen[NBLK];
    for (int i = 0; i < NBLK; i++) {
        gen[i] = 0;
        blk[i] = shmem_malloc(blk_size(i, 0));
        CHECK(blk[i], "block %d: shmem_malloc(%zu) returned NULL", i, blk_size(i, 0));
    }
    shmem_barrier_all();
    for (int i = 0; i < NBLK; i++)
        fill_remote(blk, gen, i);
    shmem_barrier_all();
    check_blocks(blk, gen);
    shmem_barrier_all();
    /* Free every other block (in a scrambled order) and allocate new sizes. */
    for (int k = 0; k < NBLK; k++) {
        int i = (k * 37) % NBLK;
        if (i % 2 == 1) {
            shmem_free(blk[i]);
            blk[i] = NULL;
        }
    }
    for (int i = 1; i < NBLK; i += 2) {
        gen[i] = 1;
        blk[i] = shmem_malloc(blk_size(i, 1));
        CHECK(blk[i], "block %d: shmem_malloc(%zu) returned NULL", i, blk_size(i, 1));
    }
    shmem_barrier_all();
    for (int i = 1; i < NBLK; i += 2)
        fill_remote(blk, gen, i);
    shmem_barrier_all();
    check_blocks(blk, gen);
    shmem_barrier_all();
    for (int i = NBLK - 1; i >= 0; i--)
        shmem_free(blk[i]);
    shmem_barrier_all();
}

/* ---- shmem_ptr, addr_accessible, pe_accessible -------------------------- */

static void accessibility(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = sht_right(), left = sht_left();
    long *h = shmem_malloc(4 * sizeof(long));
    CHECK(h, "shmem_malloc failed");
    long on_stack = 0;
    long *private_mem = malloc(sizeof(long));
    CHECK(private_mem, "malloc failed");

    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_pe_accessible(pe) == 1, "shmem_pe_accessible(%d) != 1", pe);
        CHECK(shmem_addr_accessible(h, pe) == 1, "heap block not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&h[3], pe) == 1, "heap block end not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&g_word, pe) == 1, "global not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&g_array[999], pe) == 1,
              "global array end not accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(&on_stack, pe) == 0,
              "stack variable reported accessible on PE %d", pe);
        CHECK(shmem_addr_accessible(private_mem, pe) == 0,
              "malloc'd memory reported accessible on PE %d", pe);
    }
    CHECK(shmem_pe_accessible(npes) == 0, "shmem_pe_accessible(n_pes) != 0");
    CHECK(shmem_pe_accessible(-1) == 0, "shmem_pe_accessible(-1) != 0");
    free(private_mem);

    /* shmem_ptr to myself is the address itself. */
    CHECK(shmem_ptr(h, me) == h, "shmem_ptr(heap, me) = %p, expected %p", shmem_ptr(h, me),
          (void *)h);
    CHECK(shmem_ptr(&g_word, me) == &g_word, "shmem_ptr(global, me) = %p, expected %p",
          shmem_ptr(&g_word, me), (void *)&g_word);

    /* Every peer on this PE's host is load/store reachable, no other. */
    h[0] = g_word = -1;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long *hp = shmem_ptr(h, pe);
        long *gp = shmem_ptr(&g_word, pe);
        if (!sht_same_host(pe, me)) {
            CHECK(hp == NULL && gp == NULL, "shmem_ptr(%d) is not NULL for a PE on another host",
                  pe);
            if (pe == right)
                shmem_long_p(&h[0], 1000 + me, right);
            if (pe == right)
                shmem_long_p(&g_word, 2000 + me, right);
            continue;
        }
        CHECK(hp != NULL, "shmem_ptr(heap, %d) is NULL for a PE on this host", pe);
#ifndef SHT_OSHMEM_QUIRKS /* OSHMEM maps only the heap */
        CHECK(gp != NULL, "shmem_ptr(global, %d) is NULL for a PE on this host", pe);
#endif
        if (pe == right) {
            *(volatile long *)hp = 1000 + me;
            if (gp)
                *(volatile long *)gp = 2000 + me;
            else
                shmem_long_p(&g_word, 2000 + me, right);
        }
    }
    shmem_barrier_all();
    CHECK_EQ("heap word stored through shmem_ptr", SHT_READ(long, &h[0]), 1000L + left);
    CHECK_EQ("global stored through shmem_ptr", SHT_READ(long, &g_word), 2000L + left);
    /* Loads through shmem_ptr see the peer's data. */
    long *lp = shmem_ptr(&g_array[500], left);
    g_array[500] = 3000 + me;
    shmem_barrier_all();
    if (lp)
        CHECK_EQ("load through shmem_ptr(global)", *(volatile int *)lp, 3000 + left);
    shmem_barrier_all();
    shmem_free(h);
}

/* ---- exhaustion (only when the job set a small heap) --------------------- */

static size_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    while (*end == ' ')
        end++;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        v *= 1024.0;
        break;
    case 'M':
        v *= 1024.0 * 1024.0;
        break;
    case 'G':
        v *= 1024.0 * 1024.0 * 1024.0;
        break;
    default:
        break;
    }
    return (size_t)v;
}

static void exhaustion(void)
{
    const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
    if (!env || !*env)
        return;
    size_t heap = parse_size(env);
    CHECK(heap >= 1024 * 1024, "SHMEM_SYMMETRIC_SIZE=%s is too small for this test", env);
    CHECK(shmem_malloc(2 * heap) == NULL,
          "shmem_malloc(2 x SHMEM_SYMMETRIC_SIZE=%s) "
          "did not return NULL",
          env);
    CHECK(shmem_malloc(heap + 1) == NULL, "shmem_malloc(SHMEM_SYMMETRIC_SIZE + 1) did "
                                          "not return NULL");
    CHECK(shmem_calloc(heap, 2) == NULL, "shmem_calloc(SHMEM_SYMMETRIC_SIZE, 2) did "
                                         "not return NULL");
    CHECK(shmem_malloc(SIZE_MAX / 2) == NULL, "shmem_malloc(SIZE_MAX/2) did not return NULL");
    /* Fill with quarter-heap blocks until it fails; at least 2 must fit. */
    void *blocks[16];
    int nb = 0;
    while (nb < 16 && (blocks[nb] = shmem_malloc(heap / 4)) != NULL)
        nb++;
    CHECK(nb >= 2 && nb <= 4, "%d quarter-heap blocks fit in a heap of %zu bytes", nb, heap);
    /* Everyone agrees on how many fitted. */
    static int fitted;
    fitted = nb;
    shmem_barrier_all();
    CHECK_EQ("quarter-heap blocks that fit on PE 0", shmem_int_g(&fitted, 0), nb);
    /* The last block is usable remotely. */
    long *last = blocks[nb - 1];
    shmem_barrier_all();
    shmem_long_p(&last[0], 77, sht_right());
    shmem_barrier_all();
    CHECK_EQ("value in the last block", last[0], 77L);
    shmem_barrier_all();
    while (nb > 0)
        shmem_free(blocks[--nb]);
    /* After freeing, a half-heap block fits again. */
    long *half = shmem_malloc(heap / 2);
    CHECK(half, "shmem_malloc(heap/2) failed after freeing everything");
    /* A realloc that cannot be satisfied returns NULL and keeps the block. */
    half[0] = 1234 + shmem_my_pe();
    shmem_barrier_all();
    CHECK(shmem_realloc(half, 2 * heap) == NULL, "shmem_realloc(.., 2 x heap) did not "
                                                 "return NULL");
    CHECK_EQ("block kept by a failed realloc", half[0], 1234L + shmem_my_pe());
    CHECK_EQ("block kept by a failed realloc, read remotely", shmem_long_g(&half[0], sht_right()),
             1234L + sht_right());
    shmem_barrier_all();
    /* realloc(ptr, 0) frees the block: three quarters of the heap fit again. */
    shmem_realloc(half, 0);
    void *most = shmem_malloc(heap / 4 * 3);
    CHECK(most, "shmem_malloc(3/4 heap) failed after shmem_realloc(ptr, 0)");
    shmem_free(most);
    shmem_barrier_all();
}

int main(void)
{
    /* The exhaustion checks want a fixed heap: it may not grow past the
     * size ctest gives it (Shoal's heap grows up to SHOAL_SYMMETRIC_SIZE_MAX). */
    const char *fixed = getenv("SHMEM_SYMMETRIC_SIZE");
    if (fixed != NULL && *fixed)
        setenv("SHOAL_SYMMETRIC_SIZE_MAX", fixed, 0);
    shmem_init();
    basics();
#if SHOAL_TEST_HAVE_15
    hints();
#endif
    align_corners();
    many_blocks();
    accessibility();
    exhaustion();
    sht_pass("memory");
    shmem_finalize();
    return 0;
}
