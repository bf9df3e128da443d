/*
 * Memory ordering, barriers, locks and the deprecated cache routines.
 */
#include <shmem.h>

#include "api/api.h"
#include "core/barrier.h"
#include "core/dist_lock.h"

/* shmem_quiet and shmem_fence are traced where they do work, on the network
 * branch (core/net_path.c): on one host each is one fence instruction, and
 * stays that. */
SHOAL_API_DEF(void, shmem_fence)(void)
{
    shoal_fence(SHOAL_FN);
}
SHOAL_API_DEF(void, shmem_ctx_fence)(shmem_ctx_t ctx)
{
    shoal_fence(SHOAL_FN);
}
SHOAL_API_DEF(void, shmem_quiet)(void)
{
    shoal_quiet(SHOAL_FN);
}
SHOAL_API_DEF(void, shmem_ctx_quiet)(shmem_ctx_t ctx)
{
    shoal_quiet(SHOAL_FN);
}

SHOAL_API_DEF(void, shmem_ctx_pe_quiet)(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    SHOAL_API_TRACE(ORDER, -1, 0, NULL);
    shoal_pe_quiet(SHOAL_FN, ctx, target_pes, npes);
}

SHOAL_API_DEF(void, shmem_pe_quiet)(const int *target_pes, size_t npes)
{
    SHOAL_API_TRACE(ORDER, -1, 0, NULL);
    shoal_pe_quiet(SHOAL_FN, SHMEM_CTX_DEFAULT, target_pes, npes);
}

SHOAL_API_DEF(void, shmem_set_lock)(long *lock)
{
    shoal_lock_set(SHOAL_FN, lock);
}
SHOAL_API_DEF(void, shmem_clear_lock)(long *lock)
{
    shoal_lock_clear(SHOAL_FN, lock);
}
SHOAL_API_DEF(int, shmem_test_lock)(long *lock)
{
    return shoal_lock_test(SHOAL_FN, lock);
}

/* Cache management: no-ops on cache-coherent machines, kept for old programs. */
SHOAL_API_DEF(void, shmem_clear_cache_inv)(void) {}
SHOAL_API_DEF(void, shmem_set_cache_inv)(void) {}
SHOAL_API_DEF(void, shmem_clear_cache_line_inv)(void *dest)
{
    (void)dest;
}
SHOAL_API_DEF(void, shmem_set_cache_line_inv)(void *dest)
{
    (void)dest;
}
SHOAL_API_DEF(void, shmem_udcflush)(void) {}
SHOAL_API_DEF(void, shmem_udcflush_line)(void *dest)
{
    (void)dest;
}
