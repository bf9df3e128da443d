/*
 * The OpenSHMEM type tables, each declared once as an X-macro list named
 * after the specification's table. Every typed family (prototypes,
 * definitions, the C11 generic selections, tests) is generated from these
 * lists, so a type cannot be missing from one place and present in another.
 *
 * Each list calls X(TYPE, TYPENAME, ...) once per row; extra arguments pass
 * through `...`. Lists ending in _BASE hold the plain C types that may appear
 * together in a _Generic selection; the _ALIAS lists hold the fixed-width and
 * size/ptrdiff types, which are typedefs of base types and so are left out of
 * the generic interface, as the specification does.
 */
#ifndef SHMEM_TYPES_H
#define SHMEM_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Table: bitwise AMO types. */
#define SHMEM_BITWISE_AMO_BASE(X, ...)                                                             \
    X(unsigned int, uint, __VA_ARGS__)                                                             \
    X(unsigned long, ulong, __VA_ARGS__)                                                           \
    X(unsigned long long, ulonglong, __VA_ARGS__)
#define SHMEM_BITWISE_AMO_ALIAS(X, ...)                                                            \
    X(int32_t, int32, __VA_ARGS__)                                                                 \
    X(int64_t, int64, __VA_ARGS__)                                                                 \
    X(uint32_t, uint32, __VA_ARGS__)                                                               \
    X(uint64_t, uint64, __VA_ARGS__)

/* The generic bitwise AMOs also take int32_t and int64_t, which are not
 * unsigned and so do not clash with the base rows. */
#define SHMEM_BITWISE_AMO_GENERIC(X, ...)                                                          \
    SHMEM_BITWISE_AMO_BASE(X, __VA_ARGS__)                                                         \
    X(int32_t, int32, __VA_ARGS__)                                                                 \
    X(int64_t, int64, __VA_ARGS__)

/* Table: standard AMO types = bitwise AMO types + int, long, long long, size, ptrdiff. */
#define SHMEM_STANDARD_AMO_BASE(X, ...)                                                            \
    X(int, int, __VA_ARGS__)                                                                       \
    X(long, long, __VA_ARGS__)                                                                     \
    X(long long, longlong, __VA_ARGS__)                                                            \
    SHMEM_BITWISE_AMO_BASE(X, __VA_ARGS__)
#define SHMEM_STANDARD_AMO_ALIAS(X, ...)                                                           \
    SHMEM_BITWISE_AMO_ALIAS(X, __VA_ARGS__)                                                        \
    X(size_t, size, __VA_ARGS__)                                                                   \
    X(ptrdiff_t, ptrdiff, __VA_ARGS__)

/* Table: extended AMO types = standard AMO types + float, double. */
#define SHMEM_EXTENDED_AMO_BASE(X, ...)                                                            \
    X(float, float, __VA_ARGS__)                                                                   \
    X(double, double, __VA_ARGS__)                                                                 \
    SHMEM_STANDARD_AMO_BASE(X, __VA_ARGS__)
#define SHMEM_EXTENDED_AMO_ALIAS(X, ...) SHMEM_STANDARD_AMO_ALIAS(X, __VA_ARGS__)

/* Table: point-to-point synchronization types = standard AMO types + short, ushort. */
#define SHMEM_SYNC_BASE(X, ...)                                                                    \
    X(short, short, __VA_ARGS__)                                                                   \
    X(unsigned short, ushort, __VA_ARGS__)                                                         \
    SHMEM_STANDARD_AMO_BASE(X, __VA_ARGS__)
#define SHMEM_SYNC_ALIAS(X, ...) SHMEM_STANDARD_AMO_ALIAS(X, __VA_ARGS__)

/* Table: standard RMA types = sync types + float, double, long double, the char types
 * and the 8- and 16-bit fixed-width types. */
#define SHMEM_RMA_BASE(X, ...)                                                                     \
    X(float, float, __VA_ARGS__)                                                                   \
    X(double, double, __VA_ARGS__)                                                                 \
    X(long double, longdouble, __VA_ARGS__)                                                        \
    X(char, char, __VA_ARGS__)                                                                     \
    X(signed char, schar, __VA_ARGS__)                                                             \
    X(unsigned char, uchar, __VA_ARGS__)                                                           \
    SHMEM_SYNC_BASE(X, __VA_ARGS__)
#define SHMEM_RMA_ALIAS(X, ...)                                                                    \
    X(int8_t, int8, __VA_ARGS__)                                                                   \
    X(int16_t, int16, __VA_ARGS__)                                                                 \
    X(uint8_t, uint8, __VA_ARGS__)                                                                 \
    X(uint16_t, uint16, __VA_ARGS__)                                                               \
    SHMEM_SYNC_ALIAS(X, __VA_ARGS__)

/* Whole tables. */
#define SHMEM_BITWISE_AMO_TYPES(X, ...)                                                            \
    SHMEM_BITWISE_AMO_BASE(X, __VA_ARGS__) SHMEM_BITWISE_AMO_ALIAS(X, __VA_ARGS__)
#define SHMEM_STANDARD_AMO_TYPES(X, ...)                                                           \
    SHMEM_STANDARD_AMO_BASE(X, __VA_ARGS__) SHMEM_STANDARD_AMO_ALIAS(X, __VA_ARGS__)
#define SHMEM_EXTENDED_AMO_TYPES(X, ...)                                                           \
    SHMEM_EXTENDED_AMO_BASE(X, __VA_ARGS__) SHMEM_EXTENDED_AMO_ALIAS(X, __VA_ARGS__)
#define SHMEM_SYNC_TYPES(X, ...) SHMEM_SYNC_BASE(X, __VA_ARGS__) SHMEM_SYNC_ALIAS(X, __VA_ARGS__)
#define SHMEM_RMA_TYPES(X, ...) SHMEM_RMA_BASE(X, __VA_ARGS__) SHMEM_RMA_ALIAS(X, __VA_ARGS__)

/* The sized RMA routines (shmem_put8 ... shmem_put128): X(SIZE_IN_BITS, ...). */
#define SHMEM_SIZED_RMA(X, ...)                                                                    \
    X(8, __VA_ARGS__) X(16, __VA_ARGS__) X(32, __VA_ARGS__) X(64, __VA_ARGS__) X(128, __VA_ARGS__)

/* Deprecated (pre-1.4) AMO names still used by many programs: int, long, long long. */
#define SHMEM_LEGACY_AMO_TYPES(X, ...)                                                             \
    X(int, int, __VA_ARGS__)                                                                       \
    X(long, long, __VA_ARGS__)                                                                     \
    X(long long, longlong, __VA_ARGS__)
#define SHMEM_LEGACY_EXTENDED_AMO_TYPES(X, ...)                                                    \
    X(float, float, __VA_ARGS__)                                                                   \
    X(double, double, __VA_ARGS__)                                                                 \
    SHMEM_LEGACY_AMO_TYPES(X, __VA_ARGS__)
/* Deprecated shmem_TYPENAME_wait: short, int, long, long long. */
#define SHMEM_LEGACY_WAIT_TYPES(X, ...)                                                            \
    X(short, short, __VA_ARGS__)                                                                   \
    SHMEM_LEGACY_AMO_TYPES(X, __VA_ARGS__)

/* Reduction tables (team-based). Bitwise ops: the unsigned and fixed-width
 * integer types; MAX/MIN: every integer and real type; SUM/PROD: those plus
 * the complex types. */
#define SHMEM_REDUCE_UNSIGNED_BASE(X, ...)                                                         \
    X(unsigned char, uchar, __VA_ARGS__)                                                           \
    X(unsigned short, ushort, __VA_ARGS__)                                                         \
    X(unsigned int, uint, __VA_ARGS__)                                                             \
    X(unsigned long, ulong, __VA_ARGS__)                                                           \
    X(unsigned long long, ulonglong, __VA_ARGS__)
#define SHMEM_REDUCE_FIXED_ALIAS(X, ...)                                                           \
    X(int8_t, int8, __VA_ARGS__)                                                                   \
    X(int16_t, int16, __VA_ARGS__)                                                                 \
    X(int32_t, int32, __VA_ARGS__)                                                                 \
    X(int64_t, int64, __VA_ARGS__)                                                                 \
    X(uint8_t, uint8, __VA_ARGS__)                                                                 \
    X(uint16_t, uint16, __VA_ARGS__)                                                               \
    X(uint32_t, uint32, __VA_ARGS__)                                                               \
    X(uint64_t, uint64, __VA_ARGS__)                                                               \
    X(size_t, size, __VA_ARGS__)
#define SHMEM_REDUCE_BITWISE_BASE(X, ...) SHMEM_REDUCE_UNSIGNED_BASE(X, __VA_ARGS__)
#define SHMEM_REDUCE_BITWISE_TYPES(X, ...)                                                         \
    SHMEM_REDUCE_UNSIGNED_BASE(X, __VA_ARGS__) SHMEM_REDUCE_FIXED_ALIAS(X, __VA_ARGS__)
/* The min/max types but long double: what a GPU kernel holds too
 * (<shmemx_device_coll.h> reduces over these). */
#define SHMEM_REDUCE_MINMAX_NO_LD(X, ...)                                                          \
    X(char, char, __VA_ARGS__)                                                                     \
    X(signed char, schar, __VA_ARGS__)                                                             \
    X(short, short, __VA_ARGS__)                                                                   \
    X(int, int, __VA_ARGS__)                                                                       \
    X(long, long, __VA_ARGS__)                                                                     \
    X(long long, longlong, __VA_ARGS__)                                                            \
    SHMEM_REDUCE_UNSIGNED_BASE(X, __VA_ARGS__)                                                     \
    X(float, float, __VA_ARGS__)                                                                   \
    X(double, double, __VA_ARGS__)
#define SHMEM_REDUCE_MINMAX_BASE(X, ...)                                                           \
    SHMEM_REDUCE_MINMAX_NO_LD(X, __VA_ARGS__) X(long double, longdouble, __VA_ARGS__)
#define SHMEM_REDUCE_MINMAX_TYPES(X, ...)                                                          \
    SHMEM_REDUCE_MINMAX_BASE(X, __VA_ARGS__)                                                       \
    X(ptrdiff_t, ptrdiff, __VA_ARGS__)                                                             \
    SHMEM_REDUCE_FIXED_ALIAS(X, __VA_ARGS__)
/* C++ has no _Complex: there the complex routines take std::complex<double>
 * and std::complex<float>, which have the layout of double _Complex and float
 * _Complex (an array of the real and imaginary part), so C++ callers pass a
 * std::complex<T> * to the same C symbols. */
#ifndef __cplusplus
#define SHMEM_REDUCE_COMPLEX(X, ...)                                                               \
    X(double _Complex, complexd, __VA_ARGS__)                                                      \
    X(float _Complex, complexf, __VA_ARGS__)
#else
#include <complex>
#define SHMEM_REDUCE_COMPLEX(X, ...)                                                               \
    X(std::complex<double>, complexd, __VA_ARGS__)                                                 \
    X(std::complex<float>, complexf, __VA_ARGS__)
#endif
#define SHMEM_REDUCE_ARITH_BASE(X, ...)                                                            \
    SHMEM_REDUCE_MINMAX_BASE(X, __VA_ARGS__) SHMEM_REDUCE_COMPLEX(X, __VA_ARGS__)
#define SHMEM_REDUCE_ARITH_TYPES(X, ...)                                                           \
    SHMEM_REDUCE_MINMAX_TYPES(X, __VA_ARGS__) SHMEM_REDUCE_COMPLEX(X, __VA_ARGS__)

/* Reduction tables (deprecated active-set TYPE_OP_to_all forms). */
#define SHMEM_TOALL_BITWISE_TYPES(X, ...)                                                          \
    X(short, short, __VA_ARGS__)                                                                   \
    X(int, int, __VA_ARGS__)                                                                       \
    X(long, long, __VA_ARGS__)                                                                     \
    X(long long, longlong, __VA_ARGS__)
#define SHMEM_TOALL_MINMAX_TYPES(X, ...)                                                           \
    SHMEM_TOALL_BITWISE_TYPES(X, __VA_ARGS__)                                                      \
    X(float, float, __VA_ARGS__)                                                                   \
    X(double, double, __VA_ARGS__)                                                                 \
    X(long double, longdouble, __VA_ARGS__)
#define SHMEM_TOALL_ARITH_TYPES(X, ...)                                                            \
    SHMEM_TOALL_MINMAX_TYPES(X, __VA_ARGS__) SHMEM_REDUCE_COMPLEX(X, __VA_ARGS__)

#endif
