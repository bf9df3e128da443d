/*
 * lat_amo.c: latency of atomic memory operations from PE 0 on PE 1's word,
 * on the symmetric heap (mem=heap) and on global variables (mem=global).
 *
 * Ops on a long: fetch, set_quiet, swap, compare_swap, inc_quiet, fetch_inc,
 * add_quiet, fetch_add; on an unsigned long: fetch_and, fetch_or, fetch_xor.
 * Fetching operations wait for their result, so each one is a full round
 * trip.  Non-fetching ones (set, inc, add) are followed by shmem_quiet so
 * that the time covers completion, not only issue; their names say so.
 * After timing, each op is applied once more to a known value and both its
 * result and what it left at the target are checked.
 */
#include "common.h"

enum amo_op {
    OP_FETCH,
    OP_SET,
    OP_SWAP,
    OP_CSWAP,
    OP_INC,
    OP_FINC,
    OP_ADD,
    OP_FADD,
    OP_FAND,
    OP_FOR,
    OP_FXOR
};

/* The global targets: one long and one unsigned long, on their own lines. */
static long global_word __attribute__((aligned(64)));
static unsigned long global_uword __attribute__((aligned(64)));

static const char *const amo_names[] = {
    [OP_FETCH] = "fetch",        [OP_SET] = "set_quiet",  [OP_SWAP] = "swap",
    [OP_CSWAP] = "compare_swap", [OP_INC] = "inc_quiet",  [OP_FINC] = "fetch_inc",
    [OP_ADD] = "add_quiet",      [OP_FADD] = "fetch_add", [OP_FAND] = "fetch_and",
    [OP_FOR] = "fetch_or",       [OP_FXOR] = "fetch_xor",
};

struct amo_ctx {
    enum amo_op op;
    int peer;
    long *word;           /* symmetric */
    unsigned long *uword; /* symmetric */
};

static void amo_loop(void *arg, long n)
{
    struct amo_ctx *c = arg;
    long *w = c->word;
    unsigned long *u = c->uword;
    int pe = c->peer;
    volatile long sink = 0;
    volatile unsigned long usink = 0;

    if (bench_me() != 0)
        return;
    switch (c->op) {
    case OP_FETCH:
        for (long i = 0; i < n; i++)
            sink += shmem_long_atomic_fetch(w, pe);
        break;
    case OP_SET:
        for (long i = 0; i < n; i++) {
            shmem_long_atomic_set(w, i, pe);
            shmem_quiet();
        }
        break;
    case OP_SWAP:
        for (long i = 0; i < n; i++)
            sink += shmem_long_atomic_swap(w, i, pe);
        break;
    case OP_CSWAP:
        /* Half succeed and half fail: the word alternates 0 and 1. */
        for (long i = 0; i < n; i++)
            sink += shmem_long_atomic_compare_swap(w, i & 1, (i + 1) & 1, pe);
        break;
    case OP_INC:
        for (long i = 0; i < n; i++) {
            shmem_long_atomic_inc(w, pe);
            shmem_quiet();
        }
        break;
    case OP_FINC:
        for (long i = 0; i < n; i++)
            sink += shmem_long_atomic_fetch_inc(w, pe);
        break;
    case OP_ADD:
        for (long i = 0; i < n; i++) {
            shmem_long_atomic_add(w, 3, pe);
            shmem_quiet();
        }
        break;
    case OP_FADD:
        for (long i = 0; i < n; i++)
            sink += shmem_long_atomic_fetch_add(w, 3, pe);
        break;
    case OP_FAND:
        for (long i = 0; i < n; i++)
            usink += shmem_ulong_atomic_fetch_and(u, ~(1UL << (i & 63)), pe);
        break;
    case OP_FOR:
        for (long i = 0; i < n; i++)
            usink += shmem_ulong_atomic_fetch_or(u, 1UL << (i & 63), pe);
        break;
    case OP_FXOR:
        for (long i = 0; i < n; i++)
            usink += shmem_ulong_atomic_fetch_xor(u, 1UL << (i & 63), pe);
        break;
    }
    (void)sink;
    (void)usink;
}

/* Applies op once with operand a (and comparand cond); returns what it fetched. */
static unsigned long amo_once(struct amo_ctx *c, enum amo_op op, long a, long cond)
{
    long *w = c->word;
    unsigned long *u = c->uword;
    int pe = c->peer;

    switch (op) {
    case OP_FETCH:
        return (unsigned long)shmem_long_atomic_fetch(w, pe);
    case OP_SET:
        shmem_long_atomic_set(w, a, pe);
        break;
    case OP_SWAP:
        return (unsigned long)shmem_long_atomic_swap(w, a, pe);
    case OP_CSWAP:
        return (unsigned long)shmem_long_atomic_compare_swap(w, cond, a, pe);
    case OP_INC:
        shmem_long_atomic_inc(w, pe);
        break;
    case OP_FINC:
        return (unsigned long)shmem_long_atomic_fetch_inc(w, pe);
    case OP_ADD:
        shmem_long_atomic_add(w, a, pe);
        break;
    case OP_FADD:
        return (unsigned long)shmem_long_atomic_fetch_add(w, a, pe);
    case OP_FAND:
        return shmem_ulong_atomic_fetch_and(u, (unsigned long)a, pe);
    case OP_FOR:
        return shmem_ulong_atomic_fetch_or(u, (unsigned long)a, pe);
    case OP_FXOR:
        return shmem_ulong_atomic_fetch_xor(u, (unsigned long)a, pe);
    }
    return 0;
}

/*
 * Checks each op on its own: the word is set and read back with plain RMA
 * (shmem_long_p / shmem_long_g), so a broken op cannot hide behind, or be
 * blamed for, another one.  Only PE 0 acts; the target stays passive.
 */
static void amo_verify(struct amo_ctx *c, const char *mem)
{
    static const struct {
        enum amo_op op;
        long init, operand, cond;
        int fetches;
        long ret, final;
    } cases[] = {
        {OP_FETCH, 17, 0, 0, 1, 17, 17},
        {OP_SET, 1, 23, 0, 0, 0, 23},
        {OP_SWAP, 17, 3, 0, 1, 17, 3},
        {OP_CSWAP, 3, 9, 3, 1, 3, 9},   /* succeeds */
        {OP_CSWAP, 3, 100, 4, 1, 3, 3}, /* fails: the word stays */
        {OP_INC, 5, 0, 0, 0, 0, 6},
        {OP_FINC, 6, 0, 0, 1, 6, 7},
        {OP_ADD, 7, 10, 0, 0, 0, 17},
        {OP_FADD, 0, 5, 0, 1, 0, 5},
        {OP_FAND, 0xF0F0, 0xFF00, 0, 1, 0xF0F0, 0xF000},
        {OP_FOR, 0xF000, 0x000F, 0, 1, 0xF000, 0xF00F},
        {OP_FXOR, 0xF00F, 0xFFFF, 0, 1, 0xF00F, 0x0FF0},
    };

    if (bench_me() != 0)
        return;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        enum amo_op op = cases[i].op;
        const char *name = amo_names[op];
        int bitwise = op >= OP_FAND;
        unsigned long ret, final;

        if (bitwise)
            shmem_ulong_p(c->uword, (unsigned long)cases[i].init, c->peer);
        else
            shmem_long_p(c->word, cases[i].init, c->peer);
        shmem_quiet();
        ret = amo_once(c, op, cases[i].operand, cases[i].cond);
        shmem_quiet();
        final = bitwise ? shmem_ulong_g(c->uword, c->peer)
                        : (unsigned long)shmem_long_g(c->word, c->peer);
        if (cases[i].fetches)
            BENCH_CHECK_MEM("lat_amo", name, mem, sizeof(long), ret == (unsigned long)cases[i].ret,
                            "returned %#lx, expected %#lx", ret, (unsigned long)cases[i].ret);
        BENCH_CHECK_MEM("lat_amo", name, mem, sizeof(long), final == (unsigned long)cases[i].final,
                        "left %#lx at the target, expected %#lx (started at %#lx)", final,
                        (unsigned long)cases[i].final, (unsigned long)cases[i].init);
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    struct amo_ctx heap, global;

    bench_init(argc, argv, &o, 0);
    bench_header("lat_amo", &o);

    memset(&heap, 0, sizeof(heap));
    heap.peer = bench_peer();
    heap.word = bench_malloc(sizeof(long));
    heap.uword = bench_malloc(sizeof(unsigned long));
    global = heap;
    global.word = &global_word;
    global.uword = &global_uword;

    struct {
        struct amo_ctx *c;
        const char *mem;
    } targets[] = {
        {&heap, "heap"},
        {&global, "global"},
    };
    for (int t = 0; t < 2; t++) {
        struct amo_ctx *c = targets[t].c;
        for (int op = OP_FETCH; op <= OP_FXOR; op++) {
            *c->word = 0;
            *c->uword = 0;
            shmem_barrier_all();
            c->op = (enum amo_op)op;
            size_t size = op >= OP_FAND ? sizeof(unsigned long) : sizeof(long);
            bench_report_mem("lat_amo", amo_names[op], targets[t].mem, size,
                             bench_measure(&o, amo_loop, c, 1));
        }
    }

    shmem_barrier_all();
    amo_verify(&heap, "heap");
    amo_verify(&global, "global");

    shmem_barrier_all();
    shmem_free(heap.uword);
    shmem_free(heap.word);
    return bench_finish();
}
