/*
 * How a PE set lies over hosts, for the collectives that move data across
 * the host boundary once per host instead of once per PE.
 */
#include <stdlib.h>

#include "coll/coll.h"
#include "core/amo.h"
#include "core/error.h"

int shoal_coll_hosts(const char *fn, const shoal_peset_t *set, shoal_coll_hosts_t *h)
{
    const int me_node = shoal.node[shoal_peset_world(set, set->my_index)];
    unsigned char *seen = calloc((size_t)SHOAL_NPES, 1);
    h->local = malloc(sizeof(int) * (size_t)set->size);
    h->leaders = malloc(sizeof(int) * (size_t)set->size);
    if (seen == NULL || h->local == NULL || h->leaders == NULL)
        shoal_fatal("%s: cannot allocate %d words of private scratch memory", fn, set->size);
    h->nhosts = h->nlocal = 0;
    h->my_host = -1;
    for (int i = 0; i < set->size; i++) {
        int node = shoal.node[shoal_peset_world(set, i)];
        if (!seen[node]) {
            seen[node] = 1;
            if (node == me_node)
                h->my_host = h->nhosts;
            h->leaders[h->nhosts++] = i;
        }
        if (node == me_node)
            h->local[h->nlocal++] = i;
    }
    free(seen);
    h->leader = h->local[0];
    return h->nhosts;
}

void shoal_coll_hosts_free(shoal_coll_hosts_t *h)
{
    free(h->local);
    free(h->leaders);
}

void shoal_coll_host_notify(const char *fn, const shoal_peset_t *set, uint64_t *psync,
                            const shoal_coll_hosts_t *h)
{
    const uint64_t one = 1;
    for (int k = 1; k < h->nlocal; k++)
        shoal_amo(fn, SHOAL_AMO_SYNC_ADD, &psync[SHOAL_PSYNC_HOST], sizeof(uint64_t), &one, NULL,
                  NULL, shoal_peset_world(set, h->local[k]));
}

void shoal_coll_host_wait(uint64_t *psync) { shoal_coll_wait_count(&psync[SHOAL_PSYNC_HOST], 1); }
