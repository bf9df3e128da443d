/*
 * Memory ordering, barriers, locks and the deprecated cache routines.
 */
#include <shmem.h>

#include "core/barrier.h"
#include "core/error.h"
#include "core/lock.h"
#include "core/peer.h"
#include "core/rma.h"
#include "core/team.h"

void shmem_fence(void) { shoal_fence(__func__); }
void shmem_ctx_fence(shmem_ctx_t ctx) { shoal_fence(__func__); }
void shmem_quiet(void) { shoal_quiet(__func__); }
void shmem_ctx_quiet(shmem_ctx_t ctx) { shoal_quiet(__func__); }

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
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

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, target_pes, npes);
}

void shmem_set_lock(long *lock) { shoal_lock_set(__func__, lock); }
void shmem_clear_lock(long *lock) { shoal_lock_clear(__func__, lock); }
int shmem_test_lock(long *lock) { return shoal_lock_test(__func__, lock); }

/* Cache management: no-ops on cache-coherent machines, kept for old programs. */
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }
