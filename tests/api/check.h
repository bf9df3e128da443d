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
#define SHT_FETCH_BITWISE(N, OP, dest, v, pe)                                  \
  __extension__({                                                              \
    __typeof__(*(dest)) sht_r_ = shmem_##N##_g((dest), (pe));                  \
    shmem_##N##_atomic_##OP((dest), (v), (pe));                                \
    shmem_quiet();                                                             \
    sht_r_;                                                                    \
  })
#else
#define SHT_CAS_WORKS(T) 1
#define SHT_GLOBAL_CONTENTION_WORKS 1
#define SHT_FETCH_BITWISE(N, OP, dest, v, pe)                                  \
  shmem_##N##_atomic_fetch_##OP((dest), (v), (pe))
#endif

#define SHT_FAIL(...)                                                          \
  do {                                                                         \
    fprintf(stderr, "FAIL %s:%d PE %d/%d: ", __FILE__, __LINE__,               \
            shmem_my_pe(), shmem_n_pes());                                     \
    fprintf(stderr, __VA_ARGS__);                                              \
    fputc('\n', stderr);                                                       \
    fflush(stdout);                                                            \
    fflush(stderr);                                                            \
    shmem_global_exit(1);                                                      \
    exit(1);                                                                   \
  } while (0)

/* CHECK(cond, fmt, ...): on failure print file:line, PE, the expression and
 * the formatted message, then end the job with a non-zero status. */
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAIL %s:%d PE %d/%d: `%s`: ", __FILE__, __LINE__,       \
              shmem_my_pe(), shmem_n_pes(), #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      fflush(stdout);                                                          \
      fflush(stderr);                                                          \
      shmem_global_exit(1);                                                    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* Value checks for any arithmetic type; both values are printed through
 * long double, which holds every 64-bit integer exactly on x86-64.  Pass
 * values of the same type (cast the expected one) to avoid sign-compare
 * surprises. */
#define CHECK_VAL(what, idx, seen, expected)                                   \
  do {                                                                         \
    __typeof__(seen) sht_sv_ = (seen); /* evaluate each argument once */       \
    __typeof__(expected) sht_ev_ = (expected);                                 \
    long double sht_s_ = (long double)sht_sv_;                                 \
    long double sht_e_ = (long double)sht_ev_;                                 \
    if (!(sht_sv_ == sht_ev_)) {                                               \
      fprintf(stderr,                                                          \
              "FAIL %s:%d PE %d/%d: %s[%lld]: expected %.21Lg, seen %.21Lg\n", \
              __FILE__, __LINE__, shmem_my_pe(), shmem_n_pes(), (what),        \
              (long long)(idx), sht_e_, sht_s_);                               \
      fflush(stdout);                                                          \
      fflush(stderr);                                                          \
      shmem_global_exit(1);                                                    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#define CHECK_EQ(what, seen, expected) CHECK_VAL(what, -1, seen, expected)

/* Print one PASS line from PE 0 after everyone got here. */
static inline void sht_pass(const char *name) {
  shmem_barrier_all();
  if (shmem_my_pe() == 0) {
    printf("PASS %s (%d PEs)\n", name, shmem_n_pes());
    fflush(stdout);
  }
}

/* A value that depends on the writer, the index and a round number, small
 * enough to fit every type including int8, and with a per-PE high part for
 * the wider types so that a value from the wrong PE cannot match. */
#define SHT_VAL(T, pe, i, round)                                               \
  ((T)((((pe) * 31 + (i) * 7 + (round) * 13 + 3) % 113) +                      \
       (sizeof(T) >= 4 ? ((pe) + 1) * 65536 : 0)))

/* Type tables, named after the specification's tables. */
#define SHT_RMA_TYPES(X)                                                       \
  X(float, float)                                                              \
  X(double, double)                                                            \
  X(long double, longdouble)                                                   \
  X(char, char)                                                                \
  X(signed char, schar)                                                        \
  X(short, short)                                                              \
  X(int, int)                                                                  \
  X(long, long)                                                                \
  X(long long, longlong)                                                       \
  X(unsigned char, uchar)                                                      \
  X(unsigned short, ushort)                                                    \
  X(unsigned int, uint)                                                        \
  X(unsigned long, ulong)                                                      \
  X(unsigned long long, ulonglong)                                             \
  X(int8_t, int8)                                                              \
  X(int16_t, int16)                                                            \
  X(int32_t, int32)                                                            \
  X(int64_t, int64)                                                            \
  X(uint8_t, uint8)                                                            \
  X(uint16_t, uint16)                                                          \
  X(uint32_t, uint32)                                                          \
  X(uint64_t, uint64)                                                          \
  X(size_t, size)                                                              \
  X(ptrdiff_t, ptrdiff)

#define SHT_AMO_TYPES_BASE(X)                                                  \
  X(int, int)                                                                  \
  X(long, long)                                                                \
  X(long long, longlong)                                                       \
  X(unsigned int, uint)                                                        \
  X(unsigned long, ulong)                                                      \
  X(unsigned long long, ulonglong)

#if SHOAL_TEST_HAVE_SIZED_AMO
#define SHT_AMO_TYPES_SIZED(X)                                                 \
  X(int32_t, int32)                                                            \
  X(int64_t, int64)                                                            \
  X(uint32_t, uint32)                                                          \
  X(uint64_t, uint64)                                                          \
  X(size_t, size)                                                              \
  X(ptrdiff_t, ptrdiff)
#else
#define SHT_AMO_TYPES_SIZED(X)
#endif

/* Standard AMO types (Table "stdamotypes"). */
#define SHT_AMO_STD_TYPES(X) SHT_AMO_TYPES_BASE(X) SHT_AMO_TYPES_SIZED(X)

/* Extended AMO types beyond the standard ones. */
#define SHT_AMO_EXT_ONLY_TYPES(X)                                              \
  X(float, float)                                                              \
  X(double, double)

/* Bitwise AMO types (Table "bitwiseamotypes"). */
#define SHT_AMO_BIT_TYPES(X)                                                   \
  X(unsigned int, uint)                                                        \
  X(unsigned long, ulong)                                                      \
  X(unsigned long long, ulonglong)                                             \
  X(int32_t, int32)                                                            \
  X(int64_t, int64)                                                            \
  X(uint32_t, uint32)                                                          \
  X(uint64_t, uint64)

/* Point-to-point synchronization types (Table "p2psynctypes"). */
#define SHT_P2P_TYPES(X)                                                       \
  X(short, short)                                                              \
  X(int, int)                                                                  \
  X(long, long)                                                                \
  X(long long, longlong)                                                       \
  X(unsigned short, ushort)                                                    \
  X(unsigned int, uint)                                                        \
  X(unsigned long, ulong)                                                      \
  X(unsigned long long, ulonglong)                                             \
  X(int32_t, int32)                                                            \
  X(int64_t, int64)                                                            \
  X(uint32_t, uint32)                                                          \
  X(uint64_t, uint64)                                                          \
  X(size_t, size)                                                              \
  X(ptrdiff_t, ptrdiff)

/* Read a location that another PE may write, without the compiler caching
 * it in a register. */
#define SHT_READ(T, p) (*(volatile T *)(p))

static inline int sht_right(void) {
  return (shmem_my_pe() + 1) % shmem_n_pes();
}
static inline int sht_left(void) {
  return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
}

#endif /* SHOAL_TESTS_API_CHECK_H */
