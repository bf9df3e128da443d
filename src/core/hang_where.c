/*
 * Naming the addresses a hang record holds (see hang_where.h).
 */
#include <pthread.h>
#include <stdio.h>

#include "core/hang_where.h"
#include "core/state.h"
#include "util/symbol.h"

shoal_hang_where_t shoal_hang_locate(int pe, const shoal_hang_pe_t *h, uint64_t addr, size_t len)
{
    shoal_hang_where_t w = {-1, 0, NULL};
    /* The owner's heap and globals rows as it published them. */
    shoal_route_row_t rows[2];
    for (int r = 0; r < 2; r++)
        rows[r] = (shoal_route_row_t){.base = h->row_base[r], .size = h->row_size[r]};
    uint64_t off;
    const int r = shoal_route_row_of(rows, 2, (const void *)(uintptr_t)addr, &off);
    if (r >= 0 && len <= rows[r].size - off) {
        w.row = r;
        w.off = off;
        w.ptr = shoal_hang_on_pe(&w, pe);
        return w;
    }
    if (pe == SHOAL_MY_PE)
        w.ptr = (const void *)(uintptr_t)addr; /* private memory of this process */
    return w;
}

const void *shoal_hang_on_pe(const shoal_hang_where_t *w, int owner)
{
    if (w->row < 0)
        return NULL;
    uintptr_t base = owner == SHOAL_MY_PE
                         ? shoal.route.row[w->row].base
                         : shoal_route_peer_map(&shoal.route, owner, (unsigned)w->row);
    return base ? (const void *)(base + w->off) : NULL;
}

/* The same place in this process's own copy (for names), or NULL. */
static const void *my_copy(const shoal_hang_where_t *w)
{
    if (w->row < 0 || w->off >= shoal.route.row[w->row].size)
        return NULL;
    return (const void *)(shoal.route.row[w->row].base + w->off);
}

void shoal_hang_short_name(const shoal_hang_where_t *w, const char *fallback, char *out, size_t cap)
{
    char sym[96];
    size_t off;
    const void *p = my_copy(w);
    if (w->row == SHOAL_ROUTE_GLOBALS && p != NULL &&
        shoal_symbol_of(p, sym, sizeof(sym), &off) == 0) {
        if (off)
            snprintf(out, cap, "%s+%zu", sym, off);
        else
            snprintf(out, cap, "%s", sym);
        return;
    }
    snprintf(out, cap, "%s", fallback);
}

void shoal_hang_describe(const shoal_hang_where_t *w, uint64_t addr, char *out, size_t cap)
{
    char sym[96];
    size_t off;
    const void *p = my_copy(w);
    if (w->row == SHOAL_ROUTE_GLOBALS) {
        if (p != NULL && shoal_symbol_of(p, sym, sizeof(sym), &off) == 0) {
            if (off)
                snprintf(out, cap, "global '%s' + %zu bytes", sym, off);
            else
                snprintf(out, cap, "global '%s'", sym);
        } else {
            snprintf(out, cap,
                     "symmetric global at data offset %llu (no symbol: stripped program?)",
                     (unsigned long long)w->off);
        }
        return;
    }
    if (w->row == SHOAL_ROUTE_HEAP) {
        if (w->off < shoal.internal_size) {
            snprintf(out, cap, "Shoal's internal area, offset %llu", (unsigned long long)w->off);
            return;
        }
        unsigned long long hoff = w->off - shoal.internal_size;
        const char *start;
        size_t size;
        int found = -1;
        if (pthread_mutex_trylock(&shoal.lock) == 0) {
            found = shoal_heap_block_around(&shoal.heap, p, &start, &size) == SHOAL_OK;
            pthread_mutex_unlock(&shoal.lock);
        }
        if (found == 1)
            snprintf(out, cap,
                     "symmetric heap offset %llu, in the allocation of %zu bytes at heap "
                     "offset %llu",
                     hoff, size, (unsigned long long)(start - shoal.heap.base));
        else if (found == 0)
            snprintf(out, cap, "symmetric heap offset %llu, in no allocation (freed?)", hoff);
        else
            snprintf(out, cap, "symmetric heap offset %llu", hoff);
        return;
    }
    snprintf(out, cap, "private address %p (not symmetric)", (void *)(uintptr_t)addr);
}

int shoal_hang_read_value(const void *p, unsigned size, int is_signed, uint64_t *v_p)
{
    if (p == NULL)
        return -1;
    uint64_t v;
    switch (size) {
    case 1: {
        uint8_t x = __atomic_load_n((const uint8_t *)p, __ATOMIC_RELAXED);
        v = is_signed ? (uint64_t)(int64_t)(int8_t)x : x;
        break;
    }
    case 2: {
        uint16_t x = __atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED);
        v = is_signed ? (uint64_t)(int64_t)(int16_t)x : x;
        break;
    }
    case 4: {
        uint32_t x = __atomic_load_n((const uint32_t *)p, __ATOMIC_RELAXED);
        v = is_signed ? (uint64_t)(int64_t)(int32_t)x : x;
        break;
    }
    default:
        v = __atomic_load_n((const uint64_t *)p, __ATOMIC_RELAXED);
    }
    *v_p = v;
    return 0;
}
