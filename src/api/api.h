/*
 * The one definition hook of the public routines, for the profiling
 * interface (include/pshmem.h). Every entry point in src/api is defined as
 *
 *     SHOAL_API_DEF(RET, shmem_long_put)(long *dest, ...) { ... }
 *
 * which defines the routine under its name-shifted name pshmem_long_put and
 * makes shmem_long_put a weak alias of it: one body, two exported names, so
 * a tool library in front of libshoal can replace shmem_long_put and reach
 * Shoal through pshmem_long_put. The macro takes the plain name so the
 * typed generators can spell it with their SHOAL_NAME_* macros; it expands
 * the name first and then pastes the `p`, as pshmem.h does.
 *
 * The static assertion makes pshmem.h complete and exact: a routine whose
 * twin pshmem.h does not declare, or declares with another type, does not
 * compile.
 *
 * Inside the library nothing calls a plain name (a weak symbol could be the
 * tool's, and the tool must count only the program's calls): an entry point
 * that forwards to another calls the pshmem_ twin in the same file, or the
 * core. tests/abi checks that libshoal has no PLT entry for its own names.
 */
#ifndef SHOAL_API_API_H
#define SHOAL_API_API_H

#include <pshmem.h>

#include "core/trace.h"

#define SHOAL_API_DEF(RET, name) SHOAL_API_DEF_(RET, name)
#define SHOAL_API_DEF_(RET, name)                                                                  \
    _Static_assert(__builtin_types_compatible_p(__typeof__(name), __typeof__(p##name)),            \
                   "pshmem.h declares p" #name " as shmem.h declares " #name);                     \
    extern __typeof__(name) name __attribute__((weak, alias("p" #name)));                          \
    RET p##name

/* Spellings of a generated routine's name for the typed generators:
 * NAME(base, suffix, ARG). Typed names put the type first
 * (shmem_long_put_nbi), sized names put the size after the base
 * (shmem_put64_nbi), mem names put "mem" there (shmem_putmem_nbi, ARG
 * empty). */
#define SHOAL_NAME_TYPED(base, suffix, NAME) shmem_##NAME##_##base##suffix
#define SHOAL_NAME_CTX_TYPED(base, suffix, NAME) shmem_ctx_##NAME##_##base##suffix
#define SHOAL_NAME_SIZED(base, suffix, BITS) shmem_##base##BITS##suffix
#define SHOAL_NAME_CTX_SIZED(base, suffix, BITS) shmem_ctx_##base##BITS##suffix
#define SHOAL_NAME_MEM(base, suffix, unused) shmem_##base##mem##suffix
#define SHOAL_NAME_CTX_MEM(base, suffix, unused) shmem_ctx_##base##mem##suffix

/* The routine's spec name for messages, inside a SHOAL_API_DEF body:
 * __func__ is the pshmem_ name, and users call the plain one. */
#define SHOAL_FN (&__func__[1])

/* Records the routine's call from here to its return when tracing or
 * profiling is on (core/trace.h): for the routines that are not on the
 * fast path, which the routed path records instead. FAMILY is one of
 * core/trace.h's (WAIT, COLL, ALLOC, ...); `addr` is the symmetric address
 * a wait watches, for the flow arrows, or NULL. */
#define SHOAL_API_TRACE(FAMILY, peer, bytes, addr)                                                 \
    SHOAL_TRACE_SCOPE(SHOAL_FN, SHOAL_TRACE_##FAMILY, peer, bytes, addr)

/* The same for a barrier or collective over `team` (a shmem_team_t), whose
 * record carries the team's name and size: FAMILY is COLL or ALLOC. */
#define SHOAL_API_TRACE_TEAM(FAMILY, team)                                                         \
    SHOAL_TRACE_SCOPE_TEAM(SHOAL_FN, SHOAL_TRACE_##FAMILY, (const void *)(team), 0)

/* ... or over the deprecated collectives' active set of `size` PEs. */
#define SHOAL_API_TRACE_SET(size) SHOAL_TRACE_SCOPE_TEAM(SHOAL_FN, SHOAL_TRACE_COLL, NULL, size)

#endif
