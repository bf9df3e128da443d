/*
 * Choosing and starting the network transport. A job whose PEs all map each
 * other's memory needs none. Otherwise (some PE is on another host; hosts
 * partition the PEs, so then every PE has an unmapped peer and the
 * collective set-up runs on all PEs or on none) the UCX transport is
 * loaded, its interface version checked, and every row of the route table
 * registered with it.
 */
#include <stdlib.h>

#include "transport/net_setup.h"
#include "transport/ucx/ucx.h"
#include "util/log.h"

shoal_transport_t *shoal_net = NULL;

/* mapped[pe]: pe shares this host (its memory is mapped, on first use). */
static int all_on_host(const int *node, int npes, int me, uint8_t *mapped)
{
    int all = 1;
    for (int pe = 0; pe < npes; pe++) {
        mapped[pe] = node[pe] == node[me];
        all &= mapped[pe];
    }
    return all;
}

shoal_status_t shoal_net_open(shoal_bootstrap_t *bs, unsigned generation, shoal_route_t *rt,
                              const int *node)
{
    const int npes = bs->npes;
    uint8_t *mapped = malloc((size_t)npes);
    if (mapped == NULL)
        return SHOAL_ERR_NOMEM;
    shoal_transport_t *tr = NULL;
    shoal_status_t status = SHOAL_OK;
    if (all_on_host(node, npes, bs->rank, mapped))
        goto out;
    status = shoal_ucx_init(bs, generation, mapped, &tr);
    if (status != SHOAL_OK)
        goto out;
    if (tr->ops->version != SHOAL_TRANSPORT_VERSION) {
        /* Collective either way: every PE loaded the same plugin. */
        SHOAL_ERROR("the %s transport implements interface version %u, this library needs %u; "
                    "install the plugin that came with this libshoal",
                    tr->ops->name, tr->ops->version, SHOAL_TRANSPORT_VERSION);
        status = SHOAL_ERR_UNSUPPORTED;
        goto out;
    }
    for (unsigned row = 0; row < rt->nrows && status == SHOAL_OK; row++)
        status = shoal_transport_mem_register(tr, row, (void *)rt->row[row].base, rt->row[row].size,
                                              (shoal_mem_kind_t)rt->row[row].kind);
    if (status != SHOAL_OK) {
        shoal_transport_finalize(tr);
        goto out;
    }
    rt->net = 1;
    shoal_net = tr;
out:
    free(mapped);
    return status;
}

void shoal_net_close(shoal_route_t *rt)
{
    shoal_transport_t *tr = shoal_net;
    shoal_net = NULL;
    rt->net = 0;
    if (tr != NULL)
        shoal_transport_finalize(tr); /* collective; before the segments go */
}
