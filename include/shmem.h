/*
 * Shoal: the OpenSHMEM 1.5 API (with the 1.6 additions Shoal implements).
 *
 * The typed families are declared from the type tables in shmem/types.h; the
 * C11 generic interface is in shmem/generic.h. Extensions are in shmemx.h.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <shmem/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_API __attribute__((visibility("default")))

/* ---- library constants --------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
/* Shoal's own identification, for applications and bindings that test which
 * implementation they are built against (as OSHMEM_MAJOR_VERSION or
 * OSHMPI_NUMVERSION identify others). The numbers are CMake's project VERSION;
 * the tests python_pip_venv.* check that they agree. */
#define SHOAL 1
#define SHOAL_VERSION_MAJOR 0
#define SHOAL_VERSION_MINOR 1
#define SHOAL_VERSION_PATCH 0
#define SHOAL_VERSION "0.1.0"
#define SHOAL_NUMVERSION                                                                           \
    (SHOAL_VERSION_MAJOR * 10000 + SHOAL_VERSION_MINOR * 100 + SHOAL_VERSION_PATCH)
#define SHMEM_VENDOR_STRING "Shoal " SHOAL_VERSION
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_LE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_GE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Active-set collectives (deprecated forms): work array and pSync sizes. */
#define SHMEM_SYNC_VALUE 0L
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 16
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles -------------------------------------------------------------- */
typedef struct shoal_ctx *shmem_ctx_t;
SHMEM_API extern shmem_ctx_t const SHMEM_CTX_DEFAULT;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

typedef struct shoal_team *shmem_team_t;
SHMEM_API extern shmem_team_t const SHMEM_TEAM_WORLD;
SHMEM_API extern shmem_team_t const SHMEM_TEAM_SHARED;
/* The PEs of this host (an extension; on one host the same as SHMEM_TEAM_SHARED). */
SHMEM_API extern shmem_team_t const SHMEMX_TEAM_NODE;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* OpenSHMEM 1.6 sessions: accepted as hints. */
typedef struct {
    long total_ops;
} shmem_session_config_t;
#define SHMEM_SESSION_TOTAL_OPS (1L << 0)
#define SHMEM_SESSION_SAME_AMO (1L << 1)

/* ---- routines ----------------------------------------------------------------
 * Declared in shmem/routines.h, with each name spelled SHMEM_FN(name): here
 * the plain name; <pshmem.h> includes the same list again to declare the
 * profiling interface's name-shifted twins (pshmem_init, ...). */
#define SHMEM_FN(name) name
#include <shmem/routines.h>

#ifdef __cplusplus
}
/* C++: the complex reductions also take double _Complex and float _Complex. */
#include <shmem/complex_cxx.h>
#endif
#undef SHMEM_FN

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L &&           \
    !defined(SHOAL_BUILDING_LIBRARY)
#include <shmem/generic.h>
#endif

#endif
