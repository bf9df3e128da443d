/*
 * Broadcast: after an entry barrier (the root's source is ready), every PE
 * copies the root's source straight into its own dest; an exit barrier lets
 * the root reuse its source.
 */
#include <string.h>

#include "coll/coll.h"
#include "core/rma.h"

void shoal_coll_broadcast(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                          const void *source, size_t nbytes, int root, int update_root)
{
    shoal_coll_barrier(set, psync);
    if (nbytes > 0) {
        if (set->my_index != root)
            shoal_get(fn, dest, source, nbytes, shoal_peset_world(set, root));
        else if (update_root && dest != source) {
            memmove(dest, source, nbytes);
        }
    }
    shoal_coll_barrier(set, psync);
}
