/*
 * The hand-over from a host's leader to the other members of its host, for
 * the collectives that move data across the host boundary once per host
 * instead of once per PE (the layout itself is core's: core/host_layout.h).
 */
#include "coll/coll.h"
#include "core/amo.h"

void shoal_coll_host_notify(const char *fn, const shoal_peset_t *set, uint64_t *psync,
                            const shoal_hosts_t *h)
{
    const uint64_t one = 1;
    for (int k = 1; k < h->nlocal; k++)
        shoal_amo(fn, SHOAL_AMO_SYNC_ADD, &psync[SHOAL_PSYNC_HOST], sizeof(uint64_t), &one, NULL,
                  NULL, shoal_peset_world(set, h->local[k]));
}

void shoal_coll_host_wait(const char *fn, const shoal_peset_t *set, uint64_t *psync)
{
    shoal_wait_count(fn, set, psync, SHOAL_PSYNC_HOST, 1, -1);
}
