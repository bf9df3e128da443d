/*
 * Building the route table (see route.h): its peer array, its rows, and the
 * lookup of rows past the ones routed inline.
 */
#include <stdlib.h>
#include <string.h>

#include "mem/route.h"
#include "mem/route_build.h"

shoal_status_t shoal_route_create(shoal_route_t *rt, int npes, int my_pe)
{
    memset(rt, 0, sizeof(*rt));
    rt->peer = calloc((size_t)npes * SHOAL_ROUTE_ROWS, sizeof(*rt->peer));
    rt->peer_far = rt->peer != NULL ? rt->peer + (size_t)npes * SHOAL_ROUTE_NEAR_ROWS : NULL;
    rt->lazy = calloc((size_t)npes, sizeof(*rt->lazy));
    if (rt->peer == NULL || rt->lazy == NULL) {
        shoal_route_destroy(rt);
        return SHOAL_ERR_NOMEM;
    }
    rt->my_pe = my_pe;
    return SHOAL_OK;
}

void shoal_route_destroy(shoal_route_t *rt)
{
    free(rt->peer);
    free(rt->lazy);
    memset(rt, 0, sizeof(*rt));
}

void shoal_route_set_row(shoal_route_t *rt, unsigned row, void *base, size_t size,
                         shoal_mem_kind_t kind)
{
    rt->row[row] = (shoal_route_row_t){
        .base = (uintptr_t)base, .size = base != NULL ? size : 0, .kind = (uint32_t)kind};
    *shoal_route_peer_slot(rt, rt->my_pe, row) = (uintptr_t)base;
    if (base != NULL && row >= rt->nrows)
        rt->nrows = row + 1;
    /* A row removed at the end: later lookups stop before it. */
    while (base == NULL && rt->nrows > 0 && rt->row[rt->nrows - 1].size == 0)
        rt->nrows--;
}

shoal_route_kind_t shoal_route_find_all(const shoal_route_t *rt, int pe, const void *addr,
                                        size_t len, shoal_where_t *w)
{
    uint64_t off;
    int r =
        (unsigned)pe < (unsigned)rt->npes ? shoal_route_row_of(rt->row, rt->nrows, addr, &off) : -1;
    if (r < 0 || len > rt->row[r].size - off)
        return SHOAL_ROUTE_ERROR;
    uintptr_t base = shoal_route_peer_map(rt, pe, (unsigned)r);
    if (base != 0) {
        w->ptr = (void *)(base + off);
        return SHOAL_ROUTE_LOCAL;
    }
    w->row = (unsigned)r;
    w->off = off;
    /* The network transport registers host rows only (no GPU support yet). */
    return rt->net && rt->row[r].kind == SHOAL_MEM_HOST ? SHOAL_ROUTE_NET : SHOAL_ROUTE_ERROR;
}

uintptr_t shoal_route_peer_map_slow(const shoal_route_t *rt, int pe, unsigned row)
{
    if (rt->map_peer == NULL || (unsigned)pe >= (unsigned)rt->npes || !rt->lazy[pe] ||
        row >= rt->nrows || rt->row[row].size == 0)
        return 0;
    return rt->map_peer(rt, pe, row);
}
