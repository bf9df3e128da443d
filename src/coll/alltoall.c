/*
 * alltoall and alltoalls: PE i pulls block i of every PE's source into
 * block j (for the source PE j) of its own dest.
 */
#include <string.h>

#include "coll/coll.h"
#include "core/rma.h"

void shoal_coll_alltoall(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                         const void *source, size_t nbytes)
{
    const size_t me = (size_t)set->my_index;
    shoal_check_coll(fn, set, psync, -1, nbytes, 0);
    if (nbytes == 0)
        return;
    const size_t total = shoal_coll_bytes(fn, "nelems x team size", nbytes, (size_t)set->size);
    shoal_coll_check_dest(fn, dest, total);
    shoal_coll_check_buffer(fn, "source", source, total);
    if (shoal_coll_push_exchange(fn, set, psync, dest, source, nbytes, 1))
        return;
    shoal_barrier(fn, set, psync);
    for (int j = 0; j < set->size; j++)
        shoal_get_nbi(fn, (char *)dest + (size_t)j * nbytes, (const char *)source + me * nbytes,
                      nbytes, shoal_peset_world(set, j));
    shoal_net_complete(fn);
    shoal_barrier(fn, set, psync);
}

void shoal_coll_alltoalls(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                          const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t elem,
                          size_t nelems)
{
    const ptrdiff_t me = set->my_index, n = (ptrdiff_t)nelems, e = (ptrdiff_t)elem;
    /* The strides, one in each half of the extra word. */
    shoal_check_coll(fn, set, psync, -1, nelems * elem,
                     ((uint64_t)(uint32_t)dst << 32) | (uint32_t)sst);
    if (nelems == 0)
        return;
    if (dst > 0) /* the last element written is number N*nelems - 1, dst apart */
        shoal_coll_check_dest(fn, dest,
                              ((size_t)set->size * nelems - 1) * (size_t)dst * elem + elem);
    shoal_barrier(fn, set, psync);
    for (int j = 0; j < set->size; j++) {
        /* My block in PE j's source: elements me*n .. me*n + n - 1, stride sst. */
        const char *first = (const char *)source + me * n * sst * e;
        char *out = (char *)dest + (ptrdiff_t)j * n * dst * e;
        shoal_strided(fn, 0, out, first, dst, sst, elem, 1, nelems, shoal_peset_world(set, j));
    }
    shoal_barrier(fn, set, psync);
}
