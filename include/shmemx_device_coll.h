/*
 * Device-side team collectives: broadcast, fcollect, alltoall and the
 * sum/prod/min/max reductions, called from kernels on a shmemx_dev_team_t
 * (shmemx_dev_team: TEAM_WORLD or any split team, strided ones included).
 *
 * Each comes in two scopes: the plain form is called by exactly one thread
 * of each member PE; the `_block` form by every thread of exactly one block
 * of each member PE, which share the data movement. Every member calls the
 * same collectives in the same order (they use the team's synchronization
 * slot, as shmemx_dev_team_sync does). Like the host API's team
 * collectives, they return 0, or -1 on a PE that is not a member (which
 * then does nothing).
 *
 * Algorithm: a team sync (every member's source is ready), then each
 * member *pulls* what it needs into its own dest, then a team sync (nobody
 * reads a source any more). Pulls are routed per member like every device
 * access: a member this GPU maps (same host) is read with plain loads,
 * spread over the block's threads; a member of another host is read through
 * the device proxy (one get per member for the data-movement collectives;
 * for reductions one request per element and member, filed by all the
 * block's threads at once). Reductions combine members in team order on
 * every PE, so floating-point results agree bit for bit across PEs.
 * Reductions need dest and source not to overlap: a member's source must
 * stay intact while the others read it.
 */
#ifndef SHMEMX_DEVICE_COLL_H
#define SHMEMX_DEVICE_COLL_H

#include <shmemx_device.h>

/* The reduction types a kernel holds: the spec's integer and real
 * types, less long double (the table is shmem/types.h's). */
#define SHMEMX_DEV_REDUCE_TYPES(X, ...) SHMEM_REDUCE_MINMAX_NO_LD(X, __VA_ARGS__)

enum { SHMEMX_DEV__RSUM, SHMEMX_DEV__RPROD, SHMEMX_DEV__RMIN, SHMEMX_DEV__RMAX };

/* The team's sync at the scope: 0 (one thread) or 2 (the block). */
SHMEMX_DEV_FN void shmemx_dev__coll_sync(shmemx_dev_t d, shmemx_dev_team_t t, int scope,
                                         const char *call)
{
    if (scope == 2) {
        shmemx_dev__sync_block();
        if (shmemx_dev__tid() == 0)
            shmemx_dev__team_sync(d, t, call);
        shmemx_dev__sync_block();
    } else {
        shmemx_dev__team_sync(d, t, call);
    }
}

/* `bytes` from member `member`'s copy of src into this PE's dest. */
SHMEMX_DEV_FN void shmemx_dev__coll_pull(shmemx_dev_t d, shmemx_dev_team_t t, void *dest,
                                         const void *src, size_t bytes, int member, int scope,
                                         const char *call)
{
    void *to = shmemx_dev__route(d, dest, bytes, d.my_pe, call);
    shmemx_dev__get(d, to, src, bytes, shmemx_dev_team_pe(t, member), scope, call);
}

SHMEMX_DEV_FN int shmemx_dev__broadcast(shmemx_dev_t d, shmemx_dev_team_t t, void *dest,
                                        const void *src, size_t bytes, int root, int scope,
                                        const char *call)
{
    if (shmemx_dev_team_my_pe(d, t) < 0 || root < 0 || root >= t.size)
        return -1;
    shmemx_dev__coll_sync(d, t, scope, call);
    shmemx_dev__coll_pull(d, t, dest, src, bytes, root, scope, call);
    shmemx_dev__coll_sync(d, t, scope, call);
    return 0;
}

/* fcollect: member i's src lands at dest + i * bytes on every member.
 * Each member starts with itself and goes round, so no member is read by
 * all the others at once. */
SHMEMX_DEV_FN int shmemx_dev__fcollect(shmemx_dev_t d, shmemx_dev_team_t t, void *dest,
                                       const void *src, size_t bytes, int scope, const char *call)
{
    const int my = shmemx_dev_team_my_pe(d, t);
    if (my < 0)
        return -1;
    shmemx_dev__coll_sync(d, t, scope, call);
    for (int k = 0; k < t.size; k++) {
        const int i = (my + k) % t.size;
        shmemx_dev__coll_pull(d, t, (char *)dest + (size_t)i * bytes, src, bytes, i, scope, call);
    }
    shmemx_dev__coll_sync(d, t, scope, call);
    return 0;
}

/* alltoall: member j's block `my` (src + my * bytes) lands at dest + j * bytes. */
SHMEMX_DEV_FN int shmemx_dev__alltoall(shmemx_dev_t d, shmemx_dev_team_t t, void *dest,
                                       const void *src, size_t bytes, int scope, const char *call)
{
    const int my = shmemx_dev_team_my_pe(d, t);
    if (my < 0)
        return -1;
    shmemx_dev__coll_sync(d, t, scope, call);
    for (int k = 0; k < t.size; k++) {
        const int j = (my + k) % t.size;
        shmemx_dev__coll_pull(d, t, (char *)dest + (size_t)j * bytes,
                              (const char *)src + (size_t)my * bytes, bytes, j, scope, call);
    }
    shmemx_dev__coll_sync(d, t, scope, call);
    return 0;
}

#define SHMEMX_DEV__COLL_MEM(suffix, scope)                                                        \
    SHMEMX_DEV_FN int shmemx_dev_broadcastmem##suffix(shmemx_dev_t d, shmemx_dev_team_t team,      \
                                                      void *dest, const void *source,              \
                                                      size_t nbytes, int root)                     \
    {                                                                                              \
        return shmemx_dev__broadcast(d, team, dest, source, nbytes, root, scope,                   \
                                     "shmemx_dev_broadcastmem" #suffix);                           \
    }                                                                                              \
    SHMEMX_DEV_FN int shmemx_dev_fcollectmem##suffix(                                              \
        shmemx_dev_t d, shmemx_dev_team_t team, void *dest, const void *source, size_t nbytes)     \
    {                                                                                              \
        return shmemx_dev__fcollect(d, team, dest, source, nbytes, scope,                          \
                                    "shmemx_dev_fcollectmem" #suffix);                             \
    }                                                                                              \
    SHMEMX_DEV_FN int shmemx_dev_alltoallmem##suffix(                                              \
        shmemx_dev_t d, shmemx_dev_team_t team, void *dest, const void *source, size_t nbytes)     \
    {                                                                                              \
        return shmemx_dev__alltoall(d, team, dest, source, nbytes, scope,                          \
                                    "shmemx_dev_alltoallmem" #suffix);                             \
    }
SHMEMX_DEV__COLL_MEM(, 0)
SHMEMX_DEV__COLL_MEM(_block, 2)

/* Typed forms for every reduction type: nelems elements of T. */
#define SHMEMX_DEV__COLL_TYPED_SCOPE(T, N, suffix, scope)                                          \
    SHMEMX_DEV_FN int shmemx_dev_##N##_broadcast##suffix(                                          \
        shmemx_dev_t d, shmemx_dev_team_t team, T *dest, const T *source, size_t nelems, int root) \
    {                                                                                              \
        return shmemx_dev__broadcast(d, team, dest, source, nelems * sizeof(T), root, scope,       \
                                     "shmemx_dev_" #N "_broadcast" #suffix);                       \
    }                                                                                              \
    SHMEMX_DEV_FN int shmemx_dev_##N##_fcollect##suffix(shmemx_dev_t d, shmemx_dev_team_t team,    \
                                                        T *dest, const T *source, size_t nelems)   \
    {                                                                                              \
        return shmemx_dev__fcollect(d, team, dest, source, nelems * sizeof(T), scope,              \
                                    "shmemx_dev_" #N "_fcollect" #suffix);                         \
    }                                                                                              \
    SHMEMX_DEV_FN int shmemx_dev_##N##_alltoall##suffix(shmemx_dev_t d, shmemx_dev_team_t team,    \
                                                        T *dest, const T *source, size_t nelems)   \
    {                                                                                              \
        return shmemx_dev__alltoall(d, team, dest, source, nelems * sizeof(T), scope,              \
                                    "shmemx_dev_" #N "_alltoall" #suffix);                         \
    }

/* ---- reductions ------------------------------------------------------------ */

#define SHMEMX_DEV__REDUCE_CORE(T, N, unused)                                                      \
    /* Member pe's element at src: a load where this GPU maps it, else the proxy. */               \
    SHMEMX_DEV_FN T shmemx_dev__##N##_coll_load(shmemx_dev_t d, const T *src, int pe,              \
                                                const char *call)                                  \
    {                                                                                              \
        const T *p = (const T *)shmemx_dev_ptr(d, src, pe);                                        \
        if (p != NULL)                                                                             \
            return *(const volatile T *)p;                                                         \
        const uint64_t w = shmemx_dev__proxy_g(d, src, sizeof(T), pe, call);                       \
        T v;                                                                                       \
        memcpy(&v, &w, sizeof(T));                                                                 \
        return v;                                                                                  \
    }                                                                                              \
    SHMEMX_DEV_FN T shmemx_dev__##N##_combine(int op, T a, T b)                                    \
    {                                                                                              \
        switch (op) {                                                                              \
        case SHMEMX_DEV__RSUM:                                                                     \
            return (T)(a + b);                                                                     \
        case SHMEMX_DEV__RPROD:                                                                    \
            return (T)(a * b);                                                                     \
        case SHMEMX_DEV__RMIN:                                                                     \
            return b < a ? b : a;                                                                  \
        default:                                                                                   \
            return b > a ? b : a;                                                                  \
        }                                                                                          \
    }                                                                                              \
    SHMEMX_DEV_FN int shmemx_dev__##N##_reduce(shmemx_dev_t d, shmemx_dev_team_t t, T *dest,       \
                                               const T *src, size_t n, int op, int scope,          \
                                               const char *call)                                   \
    {                                                                                              \
        if (shmemx_dev_team_my_pe(d, t) < 0)                                                       \
            return -1;                                                                             \
        shmemx_dev__coll_sync(d, t, scope, call);                                                  \
        T *out = n != 0 ? (T *)shmemx_dev__route(d, dest, n * sizeof(T), d.my_pe, call) : dest;    \
        const unsigned lanes = shmemx_dev__lanes_of(scope);                                        \
        for (size_t e = shmemx_dev__lane_of(scope); e < n; e += lanes) {                           \
            T acc = shmemx_dev__##N##_coll_load(d, src + e, shmemx_dev_team_pe(t, 0), call);       \
            for (int j = 1; j < t.size; j++)                                                       \
                acc = shmemx_dev__##N##_combine(                                                   \
                    op, acc,                                                                       \
                    shmemx_dev__##N##_coll_load(d, src + e, shmemx_dev_team_pe(t, j), call));      \
            out[e] = acc;                                                                          \
        }                                                                                          \
        shmemx_dev__coll_sync(d, t, scope, call);                                                  \
        return 0;                                                                                  \
    }

#define SHMEMX_DEV__REDUCE_OP(T, N, op, OPC, suffix, scope)                                        \
    SHMEMX_DEV_FN int shmemx_dev_##N##_##op##_reduce##suffix(                                      \
        shmemx_dev_t d, shmemx_dev_team_t team, T *dest, const T *source, size_t nreduce)          \
    {                                                                                              \
        return shmemx_dev__##N##_reduce(d, team, dest, source, nreduce, OPC, scope,                \
                                        "shmemx_dev_" #N "_" #op "_reduce" #suffix);               \
    }

#define SHMEMX_DEV__REDUCE_SCOPE(T, N, suffix, scope)                                              \
    SHMEMX_DEV__REDUCE_OP(T, N, sum, SHMEMX_DEV__RSUM, suffix, scope)                              \
    SHMEMX_DEV__REDUCE_OP(T, N, prod, SHMEMX_DEV__RPROD, suffix, scope)                            \
    SHMEMX_DEV__REDUCE_OP(T, N, min, SHMEMX_DEV__RMIN, suffix, scope)                              \
    SHMEMX_DEV__REDUCE_OP(T, N, max, SHMEMX_DEV__RMAX, suffix, scope)                              \
    SHMEMX_DEV__COLL_TYPED_SCOPE(T, N, suffix, scope)

#define SHMEMX_DEV__REDUCE_TYPE(T, N, unused)                                                      \
    SHMEMX_DEV__REDUCE_CORE(T, N, unused)                                                          \
    SHMEMX_DEV__REDUCE_SCOPE(T, N, , 0)                                                            \
    SHMEMX_DEV__REDUCE_SCOPE(T, N, _block, 2)
SHMEMX_DEV_REDUCE_TYPES(SHMEMX_DEV__REDUCE_TYPE, )

#endif
