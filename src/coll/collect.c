/*
 * fcollect and collect: every PE pulls every PE's block into its own dest,
 * in team order. For collect the block sizes differ, so each PE first
 * publishes its size in the psync scratch word and reads everyone's to find
 * its offsets.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/error.h"
#include "core/rma.h"

void shoal_coll_fcollect(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                         const void *source, size_t nbytes)
{
    shoal_coll_barrier(set, psync);
    if (nbytes > 0)
        for (int i = 0; i < set->size; i++)
            shoal_get_nbi(fn, (char *)dest + (size_t)i * nbytes, source, nbytes,
                          shoal_peset_world(set, i));
    shoal_coll_complete(fn);
    shoal_coll_barrier(set, psync);
}

void shoal_coll_collect(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                        const void *source, size_t nbytes)
{
    uint64_t *my_size = &psync[SHOAL_PSYNC_SCRATCH];
    __atomic_store_n(my_size, (uint64_t)nbytes, __ATOMIC_RELAXED);
    shoal_coll_barrier(set, psync);
    /* Everyone's size first (all requests in flight at once), then the data. */
    uint64_t *len = malloc(sizeof(uint64_t) * (size_t)set->size);
    if (len == NULL)
        shoal_fatal("%s: cannot allocate %d words of private scratch memory", fn, set->size);
    for (int i = 0; i < set->size; i++)
        shoal_get_nbi(fn, &len[i], my_size, sizeof(uint64_t), shoal_peset_world(set, i));
    shoal_coll_complete(fn);
    size_t offset = 0;
    for (int i = 0; i < set->size; i++) {
        shoal_get_nbi(fn, (char *)dest + offset, source, (size_t)len[i],
                      shoal_peset_world(set, i));
        offset += (size_t)len[i];
    }
    free(len);
    shoal_coll_complete(fn);
    shoal_coll_barrier(set, psync);
    /* Everyone has read it: restore the word (a user's pSync must come back as given). */
    __atomic_store_n(my_size, 0, __ATOMIC_RELAXED);
}
