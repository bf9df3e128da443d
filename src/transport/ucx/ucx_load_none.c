/*
 * The UCX transport's stand-in for a build without UCX (-DSHOAL_WITH_UCX=OFF,
 * or libucx-dev missing): a job whose PEs span hosts ends at shmem_init with
 * what to install. Jobs on one host never get here.
 */
#include "transport/ucx/ucx.h"
#include "util/log.h"

shoal_status_t shoal_ucx_init(shoal_bootstrap_t *bs, unsigned generation, const uint8_t *mapped,
                              shoal_transport_t **tr_p)
{
    (void)generation;
    (void)mapped;
    (void)tr_p;
    SHOAL_ERROR("shmem_init: the job's %d PEs are on more than one host, but this Shoal was "
                "built without UCX, its only transport between hosts; install libucx-dev and "
                "rebuild Shoal (-DSHOAL_WITH_UCX=ON), or run every PE on one host",
                bs->npes);
    return SHOAL_ERR_UNSUPPORTED;
}
