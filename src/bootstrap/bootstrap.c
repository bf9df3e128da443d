/*
 * Chooses the bootstrap for this process, first match wins:
 *  1. a config-store job described through the API (shmemx_init_attr with a
 *     store address or a unique ID): the program asked for it explicitly;
 *  2. the launcher, when shoalrun started the process (SHOAL_LAUNCHER_FD);
 *  2b. PMIx, when a PMIx launcher started it (PMIX_RANK or PMIX_NAMESPACE set);
 *  3. a config-store job described by the environment (SHOAL_STORE, or
 *     SHOAL_RANK with SHOAL_NPES), for PEs started by hand or by other tools;
 *  4. otherwise the program is a one-PE job.
 */
#include "bootstrap/bootstrap.h"
#include "bootstrap/store.h"

shoal_status_t shoal_bootstrap_init(shoal_bootstrap_t *bs)
{
    shoal_status_t status = shoal_bootstrap_store_init(bs, 1);
    if (status != SHOAL_ERR_NOT_FOUND)
        return status;
    status = shoal_bootstrap_launcher_init(bs);
    if (status != SHOAL_ERR_NOT_FOUND)
        return status;
    /* PMIx (mpirun, srun --mpi=pmix), only when a PMIx server announced itself. */
    status = shoal_bootstrap_pmix_init(bs);
    if (status != SHOAL_ERR_NOT_FOUND)
        return status;
    status = shoal_bootstrap_store_init(bs, 0);
    if (status != SHOAL_ERR_NOT_FOUND)
        return status;
    return shoal_bootstrap_single_init(bs);
}
