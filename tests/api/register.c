/*
 * shmemx_buffer_register / shmemx_buffer_unregister on malloc'd buffers:
 * every PE registers buffers of the same size at addresses of its own (a
 * PE-dependent malloc before them makes the addresses differ), then put,
 * get, AMOs, put-with-signal and a reduction on them, values checked; the
 * bytes around a buffer (which share its pages) and its contents survive
 * register and unregister; bad input is refused on every PE with a non-zero
 * return and the job goes on.
 *
 *   register            the checks above
 *   register use-after  unregisters, then puts to the buffer: the job must end
 *                       with the routing error naming shmem_putmem (ctest
 *                       checks the text)
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* CHECK with the line's expression as the whole message. */
#define REQUIRE(cond) CHECK(cond, "%s", "not as expected")
#define CHECK_MSG(cond, ...) CHECK(cond, __VA_ARGS__)
#define CHECK_EQ_LONG(seen, expected) CHECK_EQ(#seen, (long)(seen), (long)(expected))

#define N 1000
#define BIG ((size_t)4 << 20) /* malloc'd with mmap: page-aligned plus a header */

static int me, npes, right, left;

/* A buffer of n longs inside a malloc'd block, with 5 canary bytes before
 * it and after it: at an odd offset, so it shares pages with them. */
typedef struct {
    unsigned char *raw;
    long *buf;
    size_t n;
} canaried_t;

static canaried_t canaried(size_t n)
{
    canaried_t c = {.n = n};
    c.raw = malloc(n * sizeof(long) + 16 + 5);
    REQUIRE(c.raw != NULL);
    memset(c.raw, 0xA5, 16 + 5 + n * sizeof(long));
    c.buf = (long *)(c.raw + 8); /* aligned for long, bytes 0..7 before it */
    for (size_t i = 0; i < n; i++)
        c.buf[i] = (long)(me * 100000 + (long)i);
    return c;
}

static void check_canaries(const canaried_t *c, const char *when)
{
    const unsigned char *after = (const unsigned char *)(c->buf + c->n);
    for (int i = 0; i < 8; i++)
        CHECK_MSG(c->raw[i] == 0xA5, "byte %d before the buffer changed %s", i, when);
    for (int i = 0; i < 13; i++)
        CHECK_MSG(after[i] == 0xA5, "byte %d after the buffer changed %s", i, when);
}

static void refused(void)
{
    long on_stack[4];
    long *heap = shmem_malloc(64);
    canaried_t c = canaried(16);
    REQUIRE(shmemx_buffer_register(NULL, 64) != 0);
    REQUIRE(shmemx_buffer_register(c.buf, 0) != 0);
    REQUIRE(shmemx_buffer_register(heap, 64) != 0);     /* symmetric already */
    REQUIRE(shmemx_buffer_register(heap + 4, 64) != 0); /* inside the heap */
    REQUIRE(shmemx_buffer_unregister(c.buf) != 0);      /* never registered */
    if (npes > 1)                                       /* sizes that differ between PEs */
        REQUIRE(shmemx_buffer_register(c.buf, me == 1 ? 64 : 128) != 0);
    REQUIRE(shmemx_buffer_register(c.buf, 16 * sizeof(long)) == 0);
    REQUIRE(shmemx_buffer_register(c.buf + 4, 8) != 0);             /* overlaps a registration */
    REQUIRE(shmemx_buffer_register(c.buf, 16 * sizeof(long)) != 0); /* twice */
    REQUIRE(shmemx_buffer_unregister(c.buf) == 0);
    REQUIRE(shmemx_buffer_unregister(c.buf) != 0); /* twice */
    /* The stack cannot be shared with a peer of this host (with none, the
     * network registers it as it is, so only where every PE has one). */
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes && npes > 1)
        REQUIRE(shmemx_buffer_register(on_stack, sizeof(on_stack)) != 0);
    check_canaries(&c, "by refused registrations");
    free(c.raw);
    shmem_free(heap);
}

static void transfers(void)
{
    /* A PE-dependent allocation first, so the buffers' addresses differ. */
    void *skew = malloc(64 + 48 * (size_t)me);
    canaried_t a = canaried(N), words = canaried(8);
    REQUIRE(shmemx_buffer_register(a.buf, N * sizeof(long)) == 0);
    REQUIRE(shmemx_buffer_register(words.buf, 8 * sizeof(long)) == 0);
    check_canaries(&a, "by register");
    for (size_t i = 0; i < N; i++)
        CHECK_EQ_LONG(a.buf[i], me * 100000 + (long)i);
    memset(words.buf, 0, 8 * sizeof(long));
    shmem_barrier_all();

    /* get and put */
    long got[N];
    shmem_long_get(got, a.buf, N, right);
    for (size_t i = 0; i < N; i++)
        CHECK_EQ_LONG(got[i], right * 100000 + (long)i);
    shmem_barrier_all();
    long src[10];
    for (int i = 0; i < 10; i++)
        src[i] = -(me + 1) * 10 - i;
    shmem_long_put(a.buf + 500, src, 10, right);
    shmem_long_p(a.buf + N - 1, -7 - me, right);
    shmem_barrier_all();
    for (int i = 0; i < 10; i++)
        CHECK_EQ_LONG(a.buf[500 + i], -(left + 1) * 10 - i);
    CHECK_EQ_LONG(a.buf[499], me * 100000 + 499);
    CHECK_EQ_LONG(a.buf[N - 1], -7 - left);

    /* AMOs from every PE to every PE */
    for (int pe = 0; pe < npes; pe++)
        shmem_long_atomic_add(&words.buf[0], me + 1, pe);
    long old = shmem_long_atomic_fetch_add(&words.buf[1], 1, right);
    REQUIRE(old == 0);
    shmem_barrier_all();
    CHECK_EQ_LONG(words.buf[0], (long)npes * (npes + 1) / 2);
    CHECK_EQ_LONG(words.buf[1], 1);

    /* put with signal: data and signal word both registered */
    shmem_putmem_signal(a.buf, src, sizeof(src), (uint64_t *)&words.buf[2], 1, SHMEM_SIGNAL_ADD,
                        right);
    shmem_signal_wait_until((uint64_t *)&words.buf[2], SHMEM_CMP_GE, 1);
    for (int i = 0; i < 10; i++)
        CHECK_EQ_LONG(a.buf[i], -(left + 1) * 10 - i);
    shmem_barrier_all();

    /* a reduction from one registered buffer into another */
    for (size_t i = 0; i < N; i++)
        a.buf[i] = me + (long)i;
    canaried_t sum = canaried(N);
    REQUIRE(shmemx_buffer_register(sum.buf, N * sizeof(long)) == 0);
    REQUIRE(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum.buf, a.buf, N) == 0);
    for (size_t i = 0; i < N; i++)
        CHECK_EQ_LONG(sum.buf[i], (long)npes * (npes - 1) / 2 + (long)npes * (long)i);

    /* a large buffer (its own mmap), read in the middle */
    char *big = malloc(BIG);
    REQUIRE(big != NULL);
    memset(big, 'a' + me, BIG);
    REQUIRE(shmemx_buffer_register(big, BIG) == 0);
    shmem_barrier_all();
    char piece[64];
    shmem_getmem(piece, big + BIG / 2, sizeof(piece), right);
    for (size_t i = 0; i < sizeof(piece); i++)
        REQUIRE(piece[i] == 'a' + right);

    REQUIRE(shmemx_buffer_unregister(big) == 0);
    REQUIRE(shmemx_buffer_unregister(sum.buf) == 0);
    REQUIRE(shmemx_buffer_unregister(words.buf) == 0);
    REQUIRE(shmemx_buffer_unregister(a.buf) == 0);
    /* contents and neighbours kept; the memory is private and writable again */
    check_canaries(&a, "by unregister");
    check_canaries(&sum, "by unregister");
    CHECK_EQ_LONG(a.buf[3], me + 3);
    REQUIRE(big[BIG - 1] == 'a' + me);
    a.buf[0] = 42;
    memset(big, 0, BIG);
    /* registered again: the same buffer works as before */
    REQUIRE(shmemx_buffer_register(a.buf, N * sizeof(long)) == 0);
    shmem_long_p(a.buf + 1, 1000 + me, right);
    shmem_barrier_all();
    CHECK_EQ_LONG(a.buf[1], 1000 + left);
    REQUIRE(shmemx_buffer_unregister(a.buf) == 0);
    free(big);
    free(sum.raw);
    free(words.raw);
    free(a.raw);
    free(skew);
}

static void use_after(void)
{
    canaried_t a = canaried(16);
    REQUIRE(shmemx_buffer_register(a.buf, 16 * sizeof(long)) == 0);
    REQUIRE(shmemx_buffer_unregister(a.buf) == 0);
    long v[2] = {1, 2};
    shmem_putmem(a.buf, v, sizeof(v), right); /* ends the job */
    fprintf(stderr, "PE %d: a put to an unregistered buffer returned\n", me);
    shmem_global_exit(3);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (argc > 1 && strcmp(argv[1], "use-after") == 0) {
        use_after();
    } else {
        refused();
        transfers();
        sht_pass("register");
    }
    shmem_finalize();
    return 0;
}
