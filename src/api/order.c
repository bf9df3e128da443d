/*
 * Memory ordering, barriers, locks and the deprecated cache routines.
 */
#include <shmem.h>

#include "api/api.h"
#include "core/barrier.h"
#include "core/error.h"
#include "core/lock.h"
#include "core/peer.h"
#include "core/rma.h"
#include "core/team.h"

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
    /* PEs on this host: stores are complete once issued. Others: flush only
     * the endpoints to them. PE numbers count in the context's team. */
    int world[64];
    size_t n = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (size_t i = 0; i < npes; i++) {
        world[n++] = shoal_ctx_world_pe("shmem_pe_quiet", ctx, target_pes[i]);
        if (!shoal_pe_valid(world[n - 1]))
            shoal_fatal("%s: target_pes[%zu] = %d is out of range; valid PEs are 0..%d",
                        "shmem_pe_quiet", i, target_pes[i], SHOAL_NPES - 1);
        if (n == 64 || i + 1 == npes) {
            if (shoal.route.net)
                shoal_net_pe_quiet("shmem_pe_quiet", world, n);
            n = 0;
        }
    }
}

SHOAL_API_DEF(void, shmem_pe_quiet)(const int *target_pes, size_t npes)
{
    pshmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes);
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
