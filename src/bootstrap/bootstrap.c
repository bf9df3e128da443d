/*
 * Chooses the bootstrap for this process. The first implementation whose
 * environment is present wins; a program started by hand is a one-PE job.
 */
#include "bootstrap/bootstrap.h"

shoal_status_t shoal_bootstrap_init(shoal_bootstrap_t *bs)
{
    shoal_status_t status = shoal_bootstrap_launcher_init(bs);
    if (status != SHOAL_ERR_NOT_FOUND)
        return status;
    return shoal_bootstrap_single_init(bs);
}
