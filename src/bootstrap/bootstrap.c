/*
 * Chooses the bootstrap for this process, first match wins:
 *  1. a config-store job described through the API (shmemx_init_attr with a
 *     store address or a unique ID): the program asked for it explicitly;
 *  2. the launcher, when shoalrun started the process (SHOAL_LAUNCHER_FD);
 *  2b. PMIx, when a PMIx launcher started it (PMIX_RANK or PMIX_NAMESPACE set);
 *  3. a config-store job described by the environment (SHOAL_STORE, or
 *     SHOAL_RANK with SHOAL_NPES), for PEs started by hand or by other tools;
 *  4. otherwise the program is a one-PE job.
 *
 * Also the collective operations made of put, fence and get, for the
 * bootstraps that do not serve them themselves.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/store/store.h"
#include "util/log.h"

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

/* The allgather of a bootstrap without one: publish, fence, read each PE. */
shoal_status_t shoal_bootstrap_allgather_by_gets(shoal_bootstrap_t *bs, const char *key,
                                                 const void *value, size_t len,
                                                 shoal_bootstrap_gather_t *all_p)
{
    shoal_bootstrap_gather_t all = {.npes = bs->npes};
    size_t cap = len > 256 ? 2 * len : 512, used = 0;
    shoal_status_t status = shoal_bootstrap_put(bs, key, value, len);
    /* Every PE fences, even one that failed, so the others do not hang. */
    shoal_status_t fence_status = shoal_bootstrap_fence(bs);
    if (status == SHOAL_OK)
        status = fence_status;
    if (status != SHOAL_OK)
        return status;
    all.off = malloc(sizeof(*all.off) * ((size_t)bs->npes + 1));
    all.data = malloc(cap);
    if (all.off == NULL || all.data == NULL)
        goto nomem;
    for (int pe = 0; pe < bs->npes; pe++) {
        size_t got = 0;
        all.off[pe] = used;
        for (;;) {
            if (cap - used < 64) {
                uint8_t *d = realloc(all.data, cap * 2);
                if (d == NULL)
                    goto nomem;
                all.data = d;
                cap *= 2;
            }
            status = shoal_bootstrap_get(bs, pe, key, all.data + used, cap - used, &got);
            if (status != SHOAL_ERR_TRUNCATED || cap >= ((size_t)1 << 32))
                break;
            uint8_t *d = realloc(all.data, cap * 2);
            if (d == NULL)
                goto nomem;
            all.data = d;
            cap *= 2;
        }
        if (status != SHOAL_OK) {
            SHOAL_ERROR("bootstrap allgather: cannot read PE %d's '%s': %s", pe, key,
                        shoal_status_str(status));
            shoal_bootstrap_gather_free(&all);
            return status;
        }
        used += got;
    }
    all.off[bs->npes] = used;
    *all_p = all;
    return SHOAL_OK;
nomem:
    SHOAL_ERROR("bootstrap allgather of '%s': out of memory", key);
    shoal_bootstrap_gather_free(&all);
    return SHOAL_ERR_NOMEM;
}
