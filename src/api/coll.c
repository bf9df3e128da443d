/*
 * Collective entry points: team-based routines, the 1.6 scans and the
 * deprecated active-set forms, generated from the type tables. Each checks
 * its team or active set and calls the untyped algorithm in src/coll/.
 */
#include <shmem.h>

#include "api/api.h"
#include "coll/coll.h"
#include "core/barrier.h"
#include "core/check.h"
#include "core/error.h"
#include "core/team.h"

/* A team routine checks its team in a statement of its own before anything
 * reads the handle (a call's arguments are evaluated in no fixed order, so
 * the check cannot sit in one argument while another reads the team). */
#define TEAM_SET(team) (&(team)->set)
/* In an active-set routine: 0 when this PE is not in the set (warned once
 * per user call site), and the routine returns at once. */
#define ACTIVE_SET(set_p)                                                                          \
    shoal_active_set(SHOAL_FN, PE_start, logPE_stride, PE_size, __builtin_return_address(0), set_p)

static void check_root(const char *fn, const shoal_peset_t *set, int root)
{
    if (root < 0 || root >= set->size)
        shoal_fatal("%s: PE_root %d is out of range; the set has %d PEs", fn, root, set->size);
}

/* ---- team-based data movement ---- */

/* collect, fcollect and alltoall take the same arguments; only the algorithm differs. */
typedef void coll_move_fn(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                          const void *source, size_t nbytes);

static int team_broadcast(const char *fn, shmem_team_t team, void *dest, const void *source,
                          size_t nbytes, int root)
{
    shoal_team_check(fn, team);
    const shoal_peset_t *set = TEAM_SET(team);
    check_root(fn, set, root);
    shoal_coll_broadcast(fn, set, shoal_team_psync(team), dest, source, nbytes, root, 1);
    return 0;
}

static int team_move(const char *fn, shmem_team_t team, coll_move_fn *move, void *dest,
                     const void *source, size_t nbytes)
{
    shoal_team_check(fn, team);
    move(fn, TEAM_SET(team), shoal_team_psync(team), dest, source, nbytes);
    return 0;
}

static int team_alltoalls(const char *fn, shmem_team_t team, void *dest, const void *source,
                          ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems)
{
    shoal_team_check(fn, team);
    shoal_coll_alltoalls(fn, TEAM_SET(team), shoal_team_psync(team), dest, source, dst, sst, elem,
                         nelems);
    return 0;
}

/* One family of team routines. NAME(base, suffix, ARG) spells a routine's
 * name (api/api.h): shmem_int_collect, shmem_collectmem. TYPE is what dest
 * and source point to (void for the mem forms), ELEM one element's bytes. */
#define SHOAL_DEF_TEAM_MOVE(NAME, ARG, TYPE, ELEM, OP)                                             \
    SHOAL_API_DEF(int, NAME(OP, , ARG))                                                            \
    (shmem_team_t team, TYPE * dest, const TYPE *source, size_t nelems)                            \
    {                                                                                              \
        SHOAL_API_TRACE_TEAM(COLL, team);                                                          \
        return team_move(SHOAL_FN, team, shoal_coll_##OP, dest, source, nelems * (ELEM));          \
    }
#define SHOAL_DEF_TEAM_COLL(NAME, ARG, TYPE, ELEM)                                                 \
    SHOAL_API_DEF(int, NAME(broadcast, , ARG))                                                     \
    (shmem_team_t team, TYPE * dest, const TYPE *source, size_t nelems, int PE_root)               \
    {                                                                                              \
        SHOAL_API_TRACE_TEAM(COLL, team);                                                          \
        return team_broadcast(SHOAL_FN, team, dest, source, nelems * (ELEM), PE_root);             \
    }                                                                                              \
    SHOAL_DEF_TEAM_MOVE(NAME, ARG, TYPE, ELEM, collect)                                            \
    SHOAL_DEF_TEAM_MOVE(NAME, ARG, TYPE, ELEM, fcollect)                                           \
    SHOAL_DEF_TEAM_MOVE(NAME, ARG, TYPE, ELEM, alltoall)                                           \
    SHOAL_API_DEF(int, NAME(alltoalls, , ARG))                                                     \
    (shmem_team_t team, TYPE * dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,             \
     size_t nelems)                                                                                \
    {                                                                                              \
        SHOAL_API_TRACE_TEAM(COLL, team);                                                          \
        return team_alltoalls(SHOAL_FN, team, dest, source, dst, sst, ELEM, nelems);               \
    }

#define SHOAL_DEF_COLL_RMA(TYPE, NAME, ...)                                                        \
    SHOAL_DEF_TEAM_COLL(SHOAL_NAME_TYPED, NAME, TYPE, sizeof(TYPE))
SHMEM_RMA_TYPES(SHOAL_DEF_COLL_RMA, unused)
SHOAL_DEF_TEAM_COLL(SHOAL_NAME_MEM, , void, 1)

/* ---- reduction operators: one combine function per (type, operation) ---- */

#define SHOAL_OP_and(a, b) ((a) & (b))
#define SHOAL_OP_or(a, b) ((a) | (b))
#define SHOAL_OP_xor(a, b) ((a) ^ (b))
#define SHOAL_OP_max(a, b) ((a) > (b) ? (a) : (b))
#define SHOAL_OP_min(a, b) ((a) < (b) ? (a) : (b))
#define SHOAL_OP_sum(a, b) ((a) + (b))
#define SHOAL_OP_prod(a, b) ((a) * (b))

#define SHOAL_DEF_REDUCE_OP(TYPE, NAME, OP)                                                        \
    static void combine_##NAME##_##OP(void *acc, const void *in, size_t n)                         \
    {                                                                                              \
        TYPE *a = acc;                                                                             \
        const TYPE *b = in;                                                                        \
        for (size_t i = 0; i < n; i++)                                                             \
            a[i] = SHOAL_OP_##OP(a[i], b[i]);                                                      \
    }                                                                                              \
    static const shoal_reduce_op_t op_##NAME##_##OP = {sizeof(TYPE), combine_##NAME##_##OP};

/* Team-based reductions and the active-set TYPE_OP_to_all forms share operators. */
#define SHOAL_DEF_REDUCE(TYPE, NAME, OP)                                                           \
    SHOAL_API_DEF(int, shmem_##NAME##_##OP##_reduce)                                               \
    (shmem_team_t team, TYPE * dest, const TYPE *source, size_t nreduce)                           \
    {                                                                                              \
        SHOAL_API_TRACE_TEAM(COLL, team);                                                          \
        shoal_team_check(SHOAL_FN, team);                                                          \
        shoal_coll_reduce(SHOAL_FN, TEAM_SET(team), shoal_team_psync(team), dest, source, nreduce, \
                          &op_##NAME##_##OP);                                                      \
        return 0;                                                                                  \
    }
#define SHOAL_DEF_TO_ALL(TYPE, NAME, OP)                                                           \
    SHOAL_API_DEF(void, shmem_##NAME##_##OP##_to_all)                                              \
    (TYPE * dest, const TYPE *source, int nreduce, int PE_start, int logPE_stride, int PE_size,    \
     TYPE *pWrk, long *pSync)                                                                      \
    {                                                                                              \
        SHOAL_API_TRACE_SET(PE_size);                                                              \
        shoal_peset_t set;                                                                         \
        if (!ACTIVE_SET(&set))                                                                     \
            return;                                                                                \
        (void)pWrk; /* the algorithms need no symmetric work array */                              \
        if (nreduce < 0)                                                                           \
            shoal_fatal("%s: nreduce %d is negative", SHOAL_FN, nreduce);                          \
        shoal_coll_reduce(SHOAL_FN, &set, (uint64_t *)pSync, dest, source, (size_t)nreduce,        \
                          &op_##NAME##_##OP);                                                      \
    }

#define SHOAL_DEF_REDUCE_ALL(TYPE, NAME, OP)                                                       \
    SHOAL_DEF_REDUCE_OP(TYPE, NAME, OP) SHOAL_DEF_REDUCE(TYPE, NAME, OP)
SHMEM_REDUCE_BITWISE_TYPES(SHOAL_DEF_REDUCE_ALL, and)
SHMEM_REDUCE_BITWISE_TYPES(SHOAL_DEF_REDUCE_ALL, or)
SHMEM_REDUCE_BITWISE_TYPES(SHOAL_DEF_REDUCE_ALL, xor)
SHMEM_REDUCE_MINMAX_TYPES(SHOAL_DEF_REDUCE_ALL, max)
SHMEM_REDUCE_MINMAX_TYPES(SHOAL_DEF_REDUCE_ALL, min)
SHMEM_REDUCE_ARITH_TYPES(SHOAL_DEF_REDUCE_ALL, sum)
SHMEM_REDUCE_ARITH_TYPES(SHOAL_DEF_REDUCE_ALL, prod)

/* The active-set tables add short, int, long and long long to the bitwise
 * operations; the rest of their types already have operators above. */
#define SHOAL_DEF_OP_SIGNED_BITWISE(TYPE, NAME, OP) SHOAL_DEF_REDUCE_OP(TYPE, NAME, OP)
SHMEM_TOALL_BITWISE_TYPES(SHOAL_DEF_OP_SIGNED_BITWISE, and)
SHMEM_TOALL_BITWISE_TYPES(SHOAL_DEF_OP_SIGNED_BITWISE, or)
SHMEM_TOALL_BITWISE_TYPES(SHOAL_DEF_OP_SIGNED_BITWISE, xor)

SHMEM_TOALL_BITWISE_TYPES(SHOAL_DEF_TO_ALL, and)
SHMEM_TOALL_BITWISE_TYPES(SHOAL_DEF_TO_ALL, or)
SHMEM_TOALL_BITWISE_TYPES(SHOAL_DEF_TO_ALL, xor)
SHMEM_TOALL_MINMAX_TYPES(SHOAL_DEF_TO_ALL, max)
SHMEM_TOALL_MINMAX_TYPES(SHOAL_DEF_TO_ALL, min)
SHMEM_TOALL_ARITH_TYPES(SHOAL_DEF_TO_ALL, sum)
SHMEM_TOALL_ARITH_TYPES(SHOAL_DEF_TO_ALL, prod)

/* ---- scans (1.6) ---- */
/* INCLUSIVE: 1 for inscan, 0 for exscan. */
#define SHOAL_DEF_SCAN_KIND(TYPE, NAME, KIND, INCLUSIVE)                                           \
    SHOAL_API_DEF(int, shmem_##NAME##_sum_##KIND)                                                  \
    (shmem_team_t team, TYPE * dest, const TYPE *source, size_t nelems)                            \
    {                                                                                              \
        SHOAL_API_TRACE_TEAM(COLL, team);                                                          \
        shoal_team_check(SHOAL_FN, team);                                                          \
        shoal_coll_scan(SHOAL_FN, TEAM_SET(team), shoal_team_psync(team), dest, source, nelems,    \
                        &op_##NAME##_sum, INCLUSIVE);                                              \
        return 0;                                                                                  \
    }
#define SHOAL_DEF_SCAN(TYPE, NAME, ...)                                                            \
    SHOAL_DEF_SCAN_KIND(TYPE, NAME, inscan, 1) SHOAL_DEF_SCAN_KIND(TYPE, NAME, exscan, 0)
SHMEM_REDUCE_ARITH_TYPES(SHOAL_DEF_SCAN, unused)

/* ---- barriers ---- */

SHOAL_API_DEF(void, shmem_barrier_all)(void)
{
    SHOAL_API_TRACE_TEAM(COLL, &shoal_team_world);
    SHOAL_REQUIRE_INIT(SHOAL_FN);
    shoal_check_coll(SHOAL_FN, &shoal_team_world.set, shoal_team_psync(&shoal_team_world), -1, 0,
                     0);
    shoal_quiet(SHOAL_FN);
    shoal_barrier(SHOAL_FN, &shoal_team_world.set, shoal_team_psync(&shoal_team_world));
}

SHOAL_API_DEF(void, shmem_sync_all)(void)
{
    SHOAL_API_TRACE_TEAM(COLL, &shoal_team_world);
    SHOAL_REQUIRE_INIT(SHOAL_FN);
    shoal_check_coll(SHOAL_FN, &shoal_team_world.set, shoal_team_psync(&shoal_team_world), -1, 0,
                     0);
    shoal_barrier(SHOAL_FN, &shoal_team_world.set, shoal_team_psync(&shoal_team_world));
}

SHOAL_API_DEF(void, shmem_barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_API_TRACE_SET(PE_size);
    shoal_peset_t set;
    if (!ACTIVE_SET(&set))
        return;
    shoal_quiet(SHOAL_FN);
    shoal_barrier(SHOAL_FN, &set, (uint64_t *)pSync);
}

SHOAL_API_DEF(void, shmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_API_TRACE_SET(PE_size);
    shoal_peset_t set;
    if (!ACTIVE_SET(&set))
        return;
    shoal_barrier(__func__, &set, (uint64_t *)pSync);
}

/* ---- deprecated active-set data movement ---- */
#define SHOAL_DEF_SET_MOVE(BITS, OP)                                                               \
    SHOAL_API_DEF(void, SHOAL_NAME_SIZED(OP, , BITS))                                              \
    (void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
     long *pSync)                                                                                  \
    {                                                                                              \
        SHOAL_API_TRACE_SET(PE_size);                                                              \
        shoal_peset_t set;                                                                         \
        if (!ACTIVE_SET(&set))                                                                     \
            return;                                                                                \
        shoal_coll_##OP(SHOAL_FN, &set, (uint64_t *)pSync, dest, source, nelems *(BITS / 8));      \
    }
#define SHOAL_DEF_ACTIVE_SET(BITS, ...)                                                            \
    SHOAL_API_DEF(void, shmem_broadcast##BITS)                                                     \
    (void *dest, const void *source, size_t nelems, int PE_root, int PE_start, int logPE_stride,   \
     int PE_size, long *pSync)                                                                     \
    {                                                                                              \
        SHOAL_API_TRACE_SET(PE_size);                                                              \
        shoal_peset_t set;                                                                         \
        if (!ACTIVE_SET(&set))                                                                     \
            return;                                                                                \
        check_root(SHOAL_FN, &set, PE_root);                                                       \
        shoal_coll_broadcast(SHOAL_FN, &set, (uint64_t *)pSync, dest, source, nelems *(BITS / 8),  \
                             PE_root, 0);                                                          \
    }                                                                                              \
    SHOAL_DEF_SET_MOVE(BITS, collect)                                                              \
    SHOAL_DEF_SET_MOVE(BITS, fcollect)                                                             \
    SHOAL_DEF_SET_MOVE(BITS, alltoall)                                                             \
    SHOAL_API_DEF(void, shmem_alltoalls##BITS)                                                     \
    (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int PE_start,    \
     int logPE_stride, int PE_size, long *pSync)                                                   \
    {                                                                                              \
        SHOAL_API_TRACE_SET(PE_size);                                                              \
        shoal_peset_t set;                                                                         \
        if (!ACTIVE_SET(&set))                                                                     \
            return;                                                                                \
        shoal_coll_alltoalls(SHOAL_FN, &set, (uint64_t *)pSync, dest, source, dst, sst, BITS / 8,  \
                             nelems);                                                              \
    }
SHOAL_DEF_ACTIVE_SET(32, unused)
SHOAL_DEF_ACTIVE_SET(64, unused)
