/*
 * The PMIx bootstrap's stand-in for a build without PMIx (-DSHOAL_WITH_PMIX=OFF,
 * or libpmix-dev missing): a process that a PMIx launcher (mpirun, srun
 * --mpi=pmix) started is told what to install instead of running as a
 * one-PE job by mistake.
 */
#include <stdlib.h>

#include "bootstrap/bootstrap.h"
#include "util/log.h"

shoal_status_t shoal_bootstrap_pmix_init(shoal_bootstrap_t *bs)
{
    (void)bs;
    if (getenv("PMIX_RANK") == NULL && getenv("PMIX_NAMESPACE") == NULL)
        return SHOAL_ERR_NOT_FOUND;
    SHOAL_ERROR("shmem_init: this process was started by a PMIx launcher (mpirun or srun: "
                "PMIX_RANK/PMIX_NAMESPACE are set), but this Shoal was built without PMIx; "
                "install libpmix-dev and rebuild Shoal (-DSHOAL_WITH_PMIX=ON), or start the "
                "job with shoalrun");
    return SHOAL_ERR_UNSUPPORTED;
}
