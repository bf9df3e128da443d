/*
 * generic_deprecated: the deprecated C11 generic AMOs (OpenSHMEM 1.3 names,
 * still in the specification): shmem_fetch, shmem_set and shmem_swap on
 * every extended AMO type, shmem_cswap, shmem_finc, shmem_inc, shmem_fadd
 * and shmem_add on every standard AMO type. Each PE works on its right
 * neighbour's copy and checks its own after a barrier, so every value
 * crossed between PEs; a guard of the same type right after each target
 * must be untouched (a call that selected a wider routine would overwrite
 * it). tests/abi checks that a type outside the tables does not compile.
 */
#include "check.h"

#define GUARD 77

#define STRUCT(T, N)                                                                               \
    static struct {                                                                                \
        T a;                                                                                       \
        T guard;                                                                                   \
    } s_##N;

#define PREP(T, N, v)                                                                              \
    do {                                                                                           \
        s_##N.a = (T)(v);                                                                          \
        s_##N.guard = (T)GUARD;                                                                    \
        shmem_barrier_all();                                                                       \
    } while (0)

/* After a barrier, this PE's copy must hold `expect` and the guard GUARD. */
#define OWN(T, N, what, expect)                                                                    \
    do {                                                                                           \
        shmem_barrier_all();                                                                       \
        CHECK_VAL(#N " " what, -1, SHT_READ(T, &s_##N.a), (T)(expect));                            \
        CHECK_VAL(#N " " what " guard", -1, SHT_READ(T, &s_##N.guard), (T)GUARD);                  \
        shmem_barrier_all();                                                                       \
    } while (0)

/* fetch, set, swap: the extended AMO types. */
#define EXTENDED(T, N)                                                                             \
    static void ext_##N(int me, int left, int right)                                               \
    {                                                                                              \
        PREP(T, N, 0);                                                                             \
        shmem_set(&s_##N.a, (T)(me + 1), right);                                                   \
        OWN(T, N, "shmem_set", left + 1);                                                          \
        CHECK_VAL(#N " shmem_fetch", -1, shmem_fetch(&s_##N.a, right), (T)(me + 1));               \
        CHECK_VAL(#N " shmem_swap old", -1, shmem_swap(&s_##N.a, (T)(me + 10), right),             \
                  (T)(me + 1));                                                                    \
        OWN(T, N, "shmem_swap", left + 10);                                                        \
    }

/* cswap, finc, inc, fadd, add: the standard AMO types. */
#define STANDARD(T, N)                                                                             \
    static void std_##N(int me, int left, int right)                                               \
    {                                                                                              \
        PREP(T, N, me + 10);                                                                       \
        CHECK_VAL(#N " shmem_cswap miss", -1,                                                      \
                  shmem_cswap(&s_##N.a, (T)(me + 99), (T)(me + 50), right), (T)(right + 10));      \
        OWN(T, N, "shmem_cswap miss", me + 10);                                                    \
        CHECK_VAL(#N " shmem_cswap hit", -1,                                                       \
                  shmem_cswap(&s_##N.a, (T)(right + 10), (T)(me + 20), right), (T)(right + 10));   \
        OWN(T, N, "shmem_cswap hit", left + 20);                                                   \
        shmem_inc(&s_##N.a, right);                                                                \
        OWN(T, N, "shmem_inc", left + 21);                                                         \
        CHECK_VAL(#N " shmem_finc old", -1, shmem_finc(&s_##N.a, right), (T)(me + 21));            \
        OWN(T, N, "shmem_finc", left + 22);                                                        \
        shmem_add(&s_##N.a, (T)5, right);                                                          \
        OWN(T, N, "shmem_add", left + 27);                                                         \
        CHECK_VAL(#N " shmem_fadd old", -1, shmem_fadd(&s_##N.a, (T)3, right), (T)(me + 27));      \
        OWN(T, N, "shmem_fadd", left + 30);                                                        \
    }

/* The tables of the specification, from check.h (the fixed-width and size
 * types are typedefs of the base types and select the same routines). */
#define STD_TYPES(X) SHT_AMO_STD_TYPES(X)
#define EXT_TYPES(X) SHT_AMO_EXT_ONLY_TYPES(X) SHT_AMO_STD_TYPES(X)

#define STRUCT2(T, N) STRUCT(T, N)
EXT_TYPES(STRUCT2)
EXT_TYPES(EXTENDED)
STD_TYPES(STANDARD)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int left = (me + npes - 1) % npes, right = (me + 1) % npes;
#define RUN_EXT(T, N) ext_##N(me, left, right);
#define RUN_STD(T, N) std_##N(me, left, right);
    EXT_TYPES(RUN_EXT)
    STD_TYPES(RUN_STD)
    sht_pass("generic_deprecated");
    shmem_finalize();
    return 0;
}
