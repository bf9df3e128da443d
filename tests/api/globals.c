/*
 * globals: the executable's global and static variables are symmetric.
 *
 *  - initialized globals keep their initial values through shmem_init, on
 *    every PE and as seen remotely; a value stored before shmem_init survives;
 *  - RMA on a file-scope `static long x`, a function-scope static, a global
 *    struct, and a large (8 MiB) static array touched at both ends and in
 *    the middle;
 *  - AMOs and wait_until on static variables;
 *  - heap and globals mixed in one transfer.
 */
#include "check.h"

#define BIG (1 << 20) /* doubles: 8 MiB of .bss */

long init_data[4] = {11, 22, 33, 44};        /* .data, external linkage */
static const long readonly_data[2] = {5, 6}; /* .rodata: not written */
static long x;                               /* .bss */
static long pre_init_value;                  /* written before shmem_init */
static double big[BIG];
static int flag_wait;
static unsigned long long counter_ull;
struct mixed {
    char c;
    double d;
    short s[3];
    long long ll;
};
static struct mixed record;

static long *function_static(void)
{
    static long inner = 99; /* initialized function-scope static */
    return &inner;
}

int main(void)
{
    pre_init_value = 4242;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = sht_right(), left = sht_left();

    /* Initial values survive initialization, locally and remotely. */
    for (int i = 0; i < 4; i++)
        CHECK_VAL("init_data after shmem_init", i, init_data[i], 11L * (i + 1));
    CHECK_EQ("function static initial value", *function_static(), 99L);
    CHECK_EQ("value stored before shmem_init", pre_init_value, 4242L);
    CHECK_EQ("readonly data", readonly_data[1], 6L);
    long tmp[4];
    shmem_long_get(tmp, init_data, 4, right);
    for (int i = 0; i < 4; i++)
        CHECK_VAL("init_data read from neighbour", i, tmp[i], 11L * (i + 1));
    CHECK_EQ("function static read from neighbour", shmem_long_g(function_static(), left), 99L);
    CHECK_EQ("pre-init value read from neighbour", shmem_long_g(&pre_init_value, right), 4242L);
    shmem_barrier_all();

    /* static long x: p, g, put, get. */
    x = -1;
    shmem_barrier_all();
    shmem_long_p(&x, 1000 + me, right);
    shmem_barrier_all();
    CHECK_EQ("static long x after p", x, 1000L + left);
    CHECK_EQ("static long x via g", shmem_long_g(&x, right), 1000L + me);
    shmem_barrier_all();

    /* Writes to initialized data and function statics. */
    long mine[4] = {me, me * 2, me * 3, me * 4};
    shmem_long_put(init_data, mine, 4, right);
    shmem_long_p(function_static(), 500 + me, left);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK_VAL("init_data after put", i, init_data[i], (long)left * (i + 1));
    CHECK_EQ("function static after p", *function_static(), 500L + right);
    shmem_barrier_all();

    /* A struct with padding: putmem of the whole thing. */
    struct mixed m = {
        (char)('a' + me % 26), me + 0.5, {(short)me, (short)-me, 7}, (long long)me << 40};
    memset(&record, 0, sizeof record);
    shmem_barrier_all();
    shmem_putmem(&record, &m, sizeof m, right);
    shmem_barrier_all();
    CHECK_EQ("record.c", record.c, (char)('a' + left % 26));
    CHECK_EQ("record.d", record.d, left + 0.5);
    CHECK_EQ("record.s[1]", record.s[1], (short)-left);
    CHECK_EQ("record.s[2]", record.s[2], (short)7);
    CHECK_EQ("record.ll", record.ll, (long long)left << 40);
    shmem_barrier_all();

    /* The large static array: ends, middle, and a 1 MiB block. */
    for (size_t i = 0; i < BIG; i += 4096)
        big[i] = -1.0;
    shmem_barrier_all();
    double v0 = me + 0.25, vlast = me + 0.75;
    shmem_double_p(&big[0], v0, right);
    shmem_double_p(&big[BIG - 1], vlast, right);
    double chunk[1024];
    for (int r = 0; r < 128; r++) { /* 128 x 8 KiB = 1 MiB at the middle */
        for (int i = 0; i < 1024; i++)
            chunk[i] = me * 1e6 + r * 1024 + i;
        shmem_double_put(&big[BIG / 2 + r * 1024], chunk, 1024, right);
    }
    shmem_barrier_all();
    CHECK_EQ("big[0]", big[0], left + 0.25);
    CHECK_EQ("big[BIG-1]", big[BIG - 1], left + 0.75);
    for (int i = 0; i < 128 * 1024; i++)
        if (big[BIG / 2 + i] != left * 1e6 + i)
            CHECK_VAL("big middle", BIG / 2 + i, big[BIG / 2 + i], left * 1e6 + i);
    /* And read back a strided sample from the neighbour. */
    double sample[64];
    shmem_double_iget(sample, &big[BIG / 2], 1, 2048, 64, right);
    for (int i = 0; i < 64; i++)
        CHECK_VAL("big strided sample from neighbour", i, sample[i], me * 1e6 + i * 2048.0);
    shmem_barrier_all();

    /* AMOs on a static: everyone adds to PE 0 and to its right neighbour. */
    counter_ull = 0;
    shmem_barrier_all();
    if (SHT_GLOBAL_CONTENTION_WORKS || npes == 1) {
        for (int k = 0; k < 100; k++)
            shmem_ulonglong_atomic_add(&counter_ull, 3, 0);
    } else {
        if (me == 0)
            shmem_ulonglong_atomic_add(&counter_ull, 300ULL * npes, 0);
    }
    shmem_barrier_all();
    CHECK_EQ("static counter on PE 0", shmem_ulonglong_atomic_fetch(&counter_ull, 0),
             300ULL * npes);
    shmem_barrier_all();
    counter_ull = 7;
    shmem_barrier_all();
    CHECK_EQ("fetch_add on neighbour's static",
             shmem_ulonglong_atomic_fetch_add(&counter_ull, 10, right), 7ULL);
    shmem_barrier_all();
    CHECK_EQ("static after neighbour's fetch_add", counter_ull, 17ULL);
    shmem_barrier_all();

    /* wait_until on a static, released by the left neighbour in order. */
    flag_wait = 0;
    shmem_barrier_all();
    if (me == 0)
        shmem_int_p(&flag_wait, 1, right);
    else {
        shmem_int_wait_until(&flag_wait, SHMEM_CMP_EQ, me);
        if (me != npes - 1)
            shmem_int_p(&flag_wait, me + 1, right);
    }
    shmem_barrier_all();
    CHECK_EQ("relay flag", flag_wait, npes == 1 ? 1 : me);
    shmem_barrier_all();

    /* Mixed: heap source into a global destination, global into heap. */
    long *h = shmem_malloc(4 * sizeof(long));
    CHECK(h, "shmem_malloc failed");
    for (int i = 0; i < 4; i++)
        h[i] = 100 * me + i;
    shmem_barrier_all();
    shmem_long_put(init_data, h, 4, left);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK_VAL("heap->global", i, init_data[i], 100L * right + i);
    shmem_barrier_all();
    shmem_long_put(h, init_data, 4, right);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        CHECK_VAL("global->heap", i, h[i], 100L * me + i);
    shmem_barrier_all();
    shmem_free(h);

    sht_pass("globals");
    shmem_finalize();
    return 0;
}
