/*
 * Broadcast: after an entry barrier (the root's source is ready), every PE
 * copies the root's source straight into its own dest; an exit barrier lets
 * the root reuse its source. When the set spans hosts, the data crosses to
 * each other host once: that host's leader fetches it into its own dest,
 * then tells its members, who copy it from there through shared memory.
 */
#include <string.h>

#include "coll/coll.h"
#include "core/rma.h"

void shoal_coll_broadcast(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                          const void *source, size_t nbytes, int root, int update_root)
{
    shoal_coll_barrier(set, psync);
    if (nbytes > 0 && set->my_index == root) {
        if (update_root && dest != source)
            memmove(dest, source, nbytes);
    } else if (nbytes > 0) {
        const int root_pe = shoal_peset_world(set, root);
        const int me_pe = shoal_peset_world(set, set->my_index);
        shoal_coll_hosts_t h = {0};
        if (shoal_net != NULL && shoal_coll_hosts(fn, set, &h) > 1 &&
            shoal.node[root_pe] != shoal.node[me_pe]) {
            /* The root is on another host: only this host's leader fetches. */
            if (set->my_index == h.leader) {
                shoal_get(fn, dest, source, nbytes, root_pe);
                shoal_coll_host_notify(fn, set, psync, &h);
            } else {
                shoal_coll_host_wait(psync);
                shoal_get(fn, dest, dest, nbytes, shoal_peset_world(set, h.leader));
            }
        } else {
            shoal_get(fn, dest, source, nbytes, root_pe);
        }
        shoal_coll_hosts_free(&h);
    }
    shoal_coll_barrier(set, psync);
}
