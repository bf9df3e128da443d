/*
 * Shared helpers for the API tests: a CHECK macro that reports the failing
 * expression with the calling PE, what was expected and what was seen, and
 * then ends the whole job with shmem_global_exit(1); the type tables that let
 * one test body cover every type the specification names; and feature macros
 * that switch on the OpenSHMEM 1.5 and 1.6 routines when the library under
 * test offers them (so the rest can also be checked against an older
 * implementation such as Open MPI's OSHMEM).
 */
#ifndef SHOAL_TESTS_API_CHECK_H
#define SHOAL_TESTS_API_CHECK_H

#include <shmem.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHT_SPEC_VERSION (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION)

/* Routines added by OpenSHMEM 1.5 (nbi AMOs, wait_until_all/any/some,
 * test_*, malloc_with_hints, signals, teams). */
#ifndef SHOAL_TEST_HAVE_15
#if SHT_SPEC_VERSION >= 105
#define SHOAL_TEST_HAVE_15 1
#else
#define SHOAL_TEST_HAVE_15 0
#endif
#endif

/* Routines added by OpenSHMEM 1.6 (ibput/ibget, pe_quiet,
 * query_initialized, repeated init/finalize).  The build may force this on
 * for a 1.5 library that ships the 1.6 additions. */
#ifndef SHOAL_TEST_HAVE_16
#if SHT_SPEC_VERSION >= 106
#define SHOAL_TEST_HAVE_16 1
#else
#define SHOAL_TEST_HAVE_16 0
#endif
#endif

/* The sized AMOs on int32/int64/uint32/uint64/size/ptrdiff are in the 1.4
 * tables, but Open MPI's OSHMEM 4.1 lacks most of them; test them only
 * against a 1.5+ library. */
#ifndef SHOAL_TEST_HAVE_SIZED_AMO
#define SHOAL_TEST_HAVE_SIZED_AMO SHOAL_TEST_HAVE_15
#endif

/* Validation against Open MPI's OSHMEM 4.1.4 (build with -DSHT_OSHMEM_QUIRKS)
 * works around bugs found there while validating these tests:
 *  - 32-bit atomic compare_swap writes past its result ("stack smashing
 *    detected"), so those calls are skipped;
 *  - atomic_fetch_and/or/xor return the old value but store the wrong result
 *    (and/or leave the target unchanged, xor zeroes it), so they are
 *    emulated with g + the non-fetching AMO + quiet;
 *  - concurrent AMOs from several PEs on a *global* variable lose updates
 *    (8 PEs x 1000 shmem_long_atomic_inc on a static long gives ~4700), so
 *    contention tests run on the heap only;
 *  - shmem_calloc zeroes after its closing barrier (a peer may still see old
 *    bytes) and does not detect count*size overflow (memory.c).
 * None of this applies to Shoal: the quirks are off unless asked for. */
#ifdef SHT_OSHMEM_QUIRKS
#define SHT_CAS_WORKS(T) (sizeof(T) == 8)
#define SHT_GLOBAL_CONTENTION_WORKS 0
#define SHT_FETCH_BITWISE(N, OP, dest, v, pe)                                                      \
    __extension__({                                                                                \
        __typeof__(*(dest)) sht_r_ = shmem_##N##_g((dest), (pe));                                  \
        shmem_##N##_atomic_##OP((dest), (v), (pe));                                                \
        shmem_quiet();                                                                             \
        sht_r_;                                                                                    \
    })
#else
#define SHT_CAS_WORKS(T) 1
#define SHT_GLOBAL_CONTENTION_WORKS 1
#define SHT_FETCH_BITWISE(N, OP, dest, v, pe) shmem_##N##_atomic_fetch_##OP((dest), (v), (pe))
#endif

#define SHT_FAIL(...)                                                                              \
    do {                                                                                           \
        fprintf(stderr, "FAIL %s:%d PE %d/%d: ", __FILE__, __LINE__, shmem_my_pe(),                \
                shmem_n_pes());                                                                    \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        fflush(stdout);                                                                            \
        fflush(stderr);                                                                            \
        shmem_global_exit(1);                                                                      \
        exit(1);                                                                                   \
    } while (0)

/* CHECK(cond, fmt, ...): on failure print file:line, PE, the expression and
 * the formatted message, then end the job with a non-zero status. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d PE %d/%d: `%s`: ", __FILE__, __LINE__, shmem_my_pe(),      \
                    shmem_n_pes(), #cond);                                                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fflush(stdout);                                                                        \
            fflush(stderr);                                                                        \
            shmem_global_exit(1);                                                                  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Value checks for any arithmetic type; both values are printed through
 * long double, which holds every 64-bit integer exactly on x86-64.  Pass
 * values of the same type (cast the expected one) to avoid sign-compare
 * surprises. */
#define CHECK_VAL(what, idx, seen, expected)                                                       \
    do {                                                                                           \
        __typeof__(seen) sht_sv_ = (seen); /* evaluate each argument once */                       \
        __typeof__(expected) sht_ev_ = (expected);                                                 \
        long double sht_s_ = (long double)sht_sv_;                                                 \
        long double sht_e_ = (long double)sht_ev_;                                                 \
        if (!(sht_sv_ == sht_ev_)) {                                                               \
            fprintf(stderr, "FAIL %s:%d PE %d/%d: %s[%lld]: expected %.21Lg, seen %.21Lg\n",       \
                    __FILE__, __LINE__, shmem_my_pe(), shmem_n_pes(), (what), (long long)(idx),    \
                    sht_e_, sht_s_);                                                               \
            fflush(stdout);                                                                        \
            fflush(stderr);                                                                        \
            shmem_global_exit(1);                                                                  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(what, seen, expected) CHECK_VAL(what, -1, seen, expected)

/* Print one PASS line from PE 0 after everyone got here. */
static inline void sht_pass(const char *name)
{
    shmem_barrier_all();
    if (shmem_my_pe() == 0) {
        printf("PASS %s (%d PEs)\n", name, shmem_n_pes());
        fflush(stdout);
    }
}

/* A value that depends on the writer, the index and a round number, small
 * enough to fit every type including int8, and with a per-PE high part for
 * the wider types so that a value from the wrong PE cannot match. */
#define SHT_VAL(T, pe, i, round)                                                                   \
    ((T)((((pe)*31 + (i)*7 + (round)*13 + 3) % 113) + (sizeof(T) >= 4 ? ((pe) + 1) * 65536 : 0)))

/* Type tables, named after the specification's tables. */
/* The distinct C types among the standard RMA types (the <stdint.h> names
 * are aliases of these on LP64, so _Generic tests use only these). */
#define SHT_RMA_BASE_TYPES(X)                                                                      \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)                                                                     \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)
#define SHT_RMA_TYPES(X)                                                                           \
    SHT_RMA_BASE_TYPES(X)                                                                          \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

#define SHT_AMO_TYPES_BASE(X)                                                                      \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)

#if SHOAL_TEST_HAVE_SIZED_AMO
#define SHT_AMO_TYPES_SIZED(X)                                                                     \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)
#else
#define SHT_AMO_TYPES_SIZED(X)
#endif

/* Standard AMO types (Table "stdamotypes"). */
#define SHT_AMO_STD_TYPES(X) SHT_AMO_TYPES_BASE(X) SHT_AMO_TYPES_SIZED(X)

/* Extended AMO types beyond the standard ones. */
#define SHT_AMO_EXT_ONLY_TYPES(X)                                                                  \
    X(float, float)                                                                                \
    X(double, double)

/* Bitwise AMO types (Table "bitwiseamotypes"). */
#define SHT_AMO_BIT_TYPES(X)                                                                       \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)

/* Point-to-point synchronization types (Table "p2psynctypes"). */
#define SHT_P2P_TYPES(X)                                                                           \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)                                                                                \
    X(ptrdiff_t, ptrdiff)

/* Read a location that another PE may write, without the compiler caching
 * it in a register. */
#define SHT_READ(T, p) (*(volatile T *)(p))

static inline int sht_right(void)
{
    return (shmem_my_pe() + 1) % shmem_n_pes();
}
static inline int sht_left(void)
{
    return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
}

#endif /* SHOAL_TESTS_API_CHECK_H */

/* ==== Teams, contexts, signals, threads and collectives ==================
 * Helpers shared by tests/api/{team,ctx,signal,thread,coll}_*.c: float
 * comparison, the reduction type tables and active-set membership work with
 * any library; the team shapes need teams (1.5) and are left out when
 * validating against OSHMEM. */
#ifndef SHOAL_TESTS_API_CHECK_H_TEAMS
#define SHOAL_TESTS_API_CHECK_H_TEAMS

#include <math.h>

/* Floating-point comparison: |seen - expected| <= tol * max(1, |expected|). */
#define CHECK_NEAR(what, idx, seen, expected, tol)                                                 \
    do {                                                                                           \
        long double sht_ns_ = (long double)(seen);                                                 \
        long double sht_ne_ = (long double)(expected);                                             \
        long double sht_nd_ = fabsl(sht_ns_ - sht_ne_);                                            \
        long double sht_nm_ = fabsl(sht_ne_) > 1 ? fabsl(sht_ne_) : 1;                             \
        if (!(sht_nd_ <= (long double)(tol)*sht_nm_)) {                                            \
            fprintf(stderr,                                                                        \
                    "FAIL %s:%d PE %d/%d: %s[%lld]: expected %.21Lg, seen %.21Lg "                 \
                    "(tolerance %Lg)\n",                                                           \
                    __FILE__, __LINE__, shmem_my_pe(), shmem_n_pes(), (what), (long long)(idx),    \
                    sht_ne_, sht_ns_, (long double)(tol));                                         \
            fflush(stdout);                                                                        \
            fflush(stderr);                                                                        \
            shmem_global_exit(1);                                                                  \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Real (non-complex) arithmetic type properties. */
#define SHT_IS_FLOAT(T) ((T)0.5 != (T)0)
#define SHT_IS_SIGNED(T) ((T)-1 < (T)1)

/* Exact for integers, within a relative 1e-5 for the real types.  The test
 * values are small dyadic numbers, so even floats come out exact in any
 * order of summation; the tolerance is a safety margin, not a crutch. */
#define CHECK_ARITH(T, what, idx, seen, expected)                                                  \
    do {                                                                                           \
        if (SHT_IS_FLOAT(T))                                                                       \
            CHECK_NEAR(what, idx, seen, expected, 1e-5);                                           \
        else                                                                                       \
            CHECK_VAL(what, idx, (T)(seen), (T)(expected));                                        \
    } while (0)

/* Reduction types (Table "teamreducetypes"), complex types listed apart. */
#define SHT_REDUCE_BIT_TYPES(X)                                                                    \
    X(unsigned char, uchar)                                                                        \
    X(unsigned short, ushort)                                                                      \
    X(unsigned int, uint)                                                                          \
    X(unsigned long, ulong)                                                                        \
    X(unsigned long long, ulonglong)                                                               \
    X(int8_t, int8)                                                                                \
    X(int16_t, int16)                                                                              \
    X(int32_t, int32)                                                                              \
    X(int64_t, int64)                                                                              \
    X(uint8_t, uint8)                                                                              \
    X(uint16_t, uint16)                                                                            \
    X(uint32_t, uint32)                                                                            \
    X(uint64_t, uint64)                                                                            \
    X(size_t, size)
#define SHT_REDUCE_MINMAX_TYPES(X)                                                                 \
    X(char, char)                                                                                  \
    X(signed char, schar)                                                                          \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)                                                                         \
    X(ptrdiff_t, ptrdiff)                                                                          \
    SHT_REDUCE_BIT_TYPES(X)                                                                        \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)
/* SUM and PROD: the MIN/MAX types plus complexd and complexf. */
#define SHT_REDUCE_ARITH_TYPES(X) SHT_REDUCE_MINMAX_TYPES(X)
#define SHT_REDUCE_COMPLEX_TYPES(X)                                                                \
    X(double _Complex, complexd, double)                                                           \
    X(float _Complex, complexf, float)

/* Active-set TYPE_OP_to_all types (Table "asetreducetypes"). */
#define SHT_TOALL_BIT_TYPES(X)                                                                     \
    X(short, short)                                                                                \
    X(int, int)                                                                                    \
    X(long, long)                                                                                  \
    X(long long, longlong)
#define SHT_TOALL_MINMAX_TYPES(X)                                                                  \
    SHT_TOALL_BIT_TYPES(X)                                                                         \
    X(float, float)                                                                                \
    X(double, double)                                                                              \
    X(long double, longdouble)

/* Reduction inputs: the value world PE p contributes at element i, per
 * operation, chosen so that every result is exact in the narrowest type
 * (int8 at 8 PEs), signed types see negative values, unsigned types see
 * wrap-around, and the 32/64-bit integer types carry high bits that a
 * truncating implementation would lose. */
#define SHT_HI(T, p, sh32, sh64)                                                                   \
    (SHT_IS_FLOAT(T)  ? (T)0                                                                       \
     : sizeof(T) >= 8 ? (T)((uint64_t)(p) << (sh64))                                               \
     : sizeof(T) >= 4 ? (T)((uint64_t)(p) << (sh32))                                               \
                      : (T)0)
#define SHT_GEN_SUM(T, p, i)                                                                       \
    ((T)(SHT_SIGNED_SMALL(T, ((p)*7 + (i)*3) % 13 + 1, ((p) + (i)) % 2) +                          \
         SHT_HI(T, (p) + 1, 20, 36)))
/* k or -k (as k/2 or -k/4 for the real types, to bring in fractions). */
#define SHT_SIGNED_SMALL(T, k, neg)                                                                \
    (SHT_IS_FLOAT(T) ? (T)((k) * ((neg) ? -0.25 : 0.5)) : (T)((neg) ? -(k) : (k)))
#define SHT_GEN_PROD(T, p, i)                                                                      \
    ((T)((T)(((p) + (i)) % 4 == 0   ? 2                                                            \
             : ((p) + (i)) % 4 == 1 ? (SHT_IS_SIGNED(T) ? -1 : 3)                                  \
                                    : 1) *                                                         \
         (T)(!SHT_IS_FLOAT(T) && sizeof(T) >= 8 && (p) % 4 == (i) % 4 ? ((uint64_t)1 << 20) : 1)))
#define SHT_GEN_MINMAX(T, p, i)                                                                    \
    ((T)((T)((((p)*5 + (i)*7) % 23) - 11) + (T)(SHT_IS_FLOAT(T) ? 0.5 * ((p) % 2) : 0) +           \
         SHT_HI(T, (p) % 3, 24, 33)))
#define SHT_BITS(T) ((int)(8 * sizeof(T)))
#define SHT_GEN_AND(T, p, i) ((T) ~(T)((uint64_t)1 << (((p)*3 + (i)) % SHT_BITS(T))))
#define SHT_GEN_OR(T, p, i) ((T)((uint64_t)1 << (((p)*3 + (i)) % SHT_BITS(T))))
#define SHT_GEN_XOR(T, p, i)                                                                       \
    ((T)(((uint64_t)(p) + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)(i)*0x2545F4914F6CDD1DULL))

/* Combining two values the way each operation does, in type T. */
#define SHT_OP_SUM(T, a, b) ((T)((a) + (b)))
#define SHT_OP_PROD(T, a, b) ((T)((a) * (b)))
#define SHT_OP_MAX(T, a, b) ((a) > (b) ? (a) : (b))
#define SHT_OP_MIN(T, a, b) ((a) < (b) ? (a) : (b))
#define SHT_OP_AND(T, a, b) ((T)((a) & (b)))
#define SHT_OP_OR(T, a, b) ((T)((a) | (b)))
#define SHT_OP_XOR(T, a, b) ((T)((a) ^ (b)))

/* The index of world PE `pe` in the PE set start + i * stride, i < size
 * (an active set, with stride = 1 << logPE_stride), or -1. */
static inline int sht_in_set(int pe, int start, int stride, int size)
{
    if (size <= 0 || pe < start)
        return -1;
    if ((pe - start) % stride != 0 || (pe - start) / stride >= size)
        return -1;
    return (pe - start) / stride;
}

/* Teams (and signals, contexts on teams, scans) need a 1.5 library.  The
 * tests that use them build, against an older one such as OSHMEM 4.1, into
 * a program that only reports the skip (see run_oshmem.sh). */
#if SHOAL_TEST_HAVE_15 && !defined(SHT_OSHMEM_QUIRKS)
#define SHT_HAVE_TEAMS 1
#else
#define SHT_HAVE_TEAMS 0
#endif
#define SHT_SKIP_MAIN(name, why)                                                                   \
    int main(void)                                                                                 \
    {                                                                                              \
        shmem_init();                                                                              \
        if (shmem_my_pe() == 0)                                                                    \
            printf("PASS %s (skipped: %s)\n", name, why);                                          \
        shmem_finalize();                                                                          \
        return 0;                                                                                  \
    }

/* ---- hosts ---------------------------------------------------------------
 * The multi-host runs (tests/multihost, tests/netns) place PE p on host
 * p % SHOAL_TEST_HOSTS and say so in that variable; elsewhere every PE is on
 * one host. The tests derive which peers share memory from it. */
static inline int sht_hosts(void)
{
    const char *s = getenv("SHOAL_TEST_HOSTS");
    int h = s != NULL ? atoi(s) : 1;
    return h < 1 ? 1 : h;
}

static inline int sht_same_host(int a, int b)
{
    return a % sht_hosts() == b % sht_hosts();
}

/* The PEs on this PE's host, in world order (SHMEM_TEAM_SHARED); returns
 * how many. */
static inline int sht_host_members(int *world)
{
    int n = 0;
    for (int pe = 0; pe < shmem_n_pes(); pe++)
        if (sht_same_host(pe, shmem_my_pe()))
            world[n++] = pe;
    return n;
}

#if SHT_HAVE_TEAMS

/* ---- team shapes ---------------------------------------------------------
 * The collective tests run on every shape a PE belongs to: the world team,
 * a strided subteam (every other PE), the world reversed (stride -1) and
 * both teams of a 2-D split.  Membership is computed here from the
 * construction, independently of the library, and checked against
 * shmem_team_n_pes/my_pe/translate_pe when the shape is made. */
#define SHT_MAX_PES 64
enum {
    SHT_SHAPE_WORLD,
    SHT_SHAPE_STRIDED,
    SHT_SHAPE_REVERSED,
    SHT_SHAPE_XAXIS,
    SHT_SHAPE_YAXIS,
    SHT_NSHAPES
};

typedef struct {
    const char *name;
    shmem_team_t team;      /* SHMEM_TEAM_INVALID where this PE is not a member */
    int created;            /* destroy it at the end */
    int n;                  /* members (0 where not a member) */
    int me;                 /* this PE's index, -1 where not a member */
    int world[SHT_MAX_PES]; /* world PE of each member index */
} sht_shape_t;

/* The x range of the 2-D split the shapes use: 3 from 4 PEs up (so the
 * last row is short at 4 and 8 PEs), else 2. */
static inline int sht_xrange(int npes)
{
    return npes >= 4 ? 3 : 2;
}

/* Check a team against an expected member list. */
static inline void sht_check_team(const char *name, shmem_team_t team, int n, const int *world)
{
    int me = shmem_my_pe(), idx = -1;
    for (int i = 0; i < n; i++)
        if (world[i] == me)
            idx = i;
    if (idx < 0) {
        CHECK(team == SHMEM_TEAM_INVALID, "%s: a non-member got a team handle", name);
        return;
    }
    CHECK(team != SHMEM_TEAM_INVALID, "%s: member %d got SHMEM_TEAM_INVALID", name, idx);
    CHECK(shmem_team_n_pes(team) == n, "%s: team_n_pes %d, expected %d", name,
          shmem_team_n_pes(team), n);
    CHECK(shmem_team_my_pe(team) == idx, "%s: team_my_pe %d, expected %d", name,
          shmem_team_my_pe(team), idx);
    for (int i = 0; i < n; i++) {
        int w = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        CHECK(w == world[i], "%s: translate_pe(team, %d, WORLD) = %d, expected %d", name, i, w,
              world[i]);
        int back = shmem_team_translate_pe(SHMEM_TEAM_WORLD, world[i], team);
        CHECK(back == i, "%s: translate_pe(WORLD, %d, team) = %d, expected %d", name, world[i],
              back, i);
    }
}

static inline void sht_shape_set(sht_shape_t *s, const char *name, shmem_team_t team, int created,
                                 int n, const int *world)
{
    int me = shmem_my_pe();
    s->name = name;
    s->team = team;
    s->created = created;
    s->n = 0;
    s->me = -1;
    for (int i = 0; i < n; i++)
        if (world[i] == me)
            s->me = i;
    if (s->me >= 0) {
        s->n = n;
        memcpy(s->world, world, sizeof(int) * (size_t)n);
    }
    sht_check_team(name, team, n, world);
}

/* Make the shapes (collective over the world team).  The new teams ask for
 * a few contexts (the default configuration promises none). */
static inline void sht_shapes_make(sht_shape_t *s)
{
    int npes = shmem_n_pes(), me = shmem_my_pe();
    int w[SHT_MAX_PES], n;
    shmem_team_t t;
    const shmem_team_config_t cfg = {.num_contexts = 4};
    const long mask = SHMEM_TEAM_NUM_CONTEXTS;
    CHECK(npes <= SHT_MAX_PES, "at most %d PEs", SHT_MAX_PES);

    for (int i = 0; i < npes; i++)
        w[i] = i;
    sht_shape_set(&s[SHT_SHAPE_WORLD], "world", SHMEM_TEAM_WORLD, 0, npes, w);

    n = (npes + 1) / 2; /* PEs 0, 2, 4, ... */
    for (int i = 0; i < n; i++)
        w[i] = 2 * i;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, n, &cfg, mask, &t) == 0,
          "split_strided(0, 2, %d) failed", n);
    sht_shape_set(&s[SHT_SHAPE_STRIDED], "strided(0,2)", t, 1, n, w);

    for (int i = 0; i < npes; i++) /* N-1, N-2, ..., 0 */
        w[i] = npes - 1 - i;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &cfg, mask, &t) == 0,
          "split_strided(%d, -1, %d) failed", npes - 1, npes);
    sht_shape_set(&s[SHT_SHAPE_REVERSED], "reversed(N-1,-1)", t, 1, npes, w);

    int xr = sht_xrange(npes);
    shmem_team_t xt, yt;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, &cfg, mask, &xt, &cfg, mask, &yt) == 0,
          "split_2d(xrange %d) failed", xr);
    int y = me / xr, x = me % xr;
    n = 0; /* my row: same y */
    for (int p = y * xr; p < npes && p < (y + 1) * xr; p++)
        w[n++] = p;
    sht_shape_set(&s[SHT_SHAPE_XAXIS], "2d-x", xt, 1, n, w);
    n = 0; /* my column: same x */
    for (int p = x; p < npes; p += xr)
        w[n++] = p;
    sht_shape_set(&s[SHT_SHAPE_YAXIS], "2d-y", yt, 1, n, w);
}

static inline void sht_shapes_destroy(sht_shape_t *s)
{
    shmem_barrier_all();
    for (int i = 0; i < SHT_NSHAPES; i++)
        if (s[i].created && s[i].team != SHMEM_TEAM_INVALID)
            shmem_team_destroy(s[i].team);
    shmem_barrier_all();
}

#endif /* SHT_HAVE_TEAMS */
#endif /* SHOAL_TESTS_API_CHECK_H_TEAMS */
