/*
 * Memory ordering, barriers, locks and the deprecated cache routines.
 */
#include <shmem.h>

#include "core/barrier.h"
#include "core/error.h"
#include "core/lock.h"
#include "core/peer.h"

void shmem_fence(void) { shoal_fence(); }
void shmem_ctx_fence(shmem_ctx_t ctx) { shoal_fence(); }
void shmem_quiet(void) { shoal_quiet(); }
void shmem_ctx_quiet(shmem_ctx_t ctx) { shoal_quiet(); }

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    for (size_t i = 0; i < npes; i++)
        if (!shoal_pe_valid(target_pes[i]))
            shoal_fatal("%s: target_pes[%zu] = %d is out of range; valid PEs are 0..%d",
                        "shmem_pe_quiet", i, target_pes[i], shoal.npes - 1);
    shoal_quiet();
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
