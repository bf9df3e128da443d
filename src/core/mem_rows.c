/*
 * Adding and removing route rows at run time (mem_rows.h).
 *
 * One bootstrap allgather per added row carries what each PE knows: whether
 * it has its part, the rows free in its table, its base, size and kind, and
 * the memfd and inode local peers map it through. Every PE then reaches the
 * same verdict from the same data: the lowest row free on every PE, or a
 * failure on every PE. Local peers are told the fd and inode (shm.c maps
 * them on first use, as at start-up); the network transport, when one is
 * open, registers the row in its own collective step. Removing needs no
 * exchange on one host: each PE unmaps its mappings of the row and forgets
 * it; the transport's deregistration is collective.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/mem_rows.h"
#include "core/state.h"
#include "mem/route_build.h"
#include "transport/net_setup.h"
#include "transport/shm/shm.h"
#include "util/log.h"

_Static_assert(SHOAL_ROUTE_ROWS <= 32, "the free-row mask is 32 bits");

/* What each PE publishes for an added row. */
typedef struct {
    uint32_t ok;   /* 1: this PE has its part */
    uint32_t free; /* bit r: row r is free in this PE's table */
    uint64_t base;
    uint64_t size;
    uint64_t ino; /* of the memfd, 0 without one */
    int32_t fd;   /* the memfd's number in this PE, -1 without one */
    uint32_t kind;
} rows_info_t;

static struct {
    unsigned generation; /* shoal.generation when `added` was last reset */
    unsigned exchanges;  /* rows_add calls in this generation: the allgather keys */
    unsigned added;      /* rows in use */
} rows;

static uint32_t free_mask(const shoal_route_t *rt)
{
    uint32_t mask = 0;
    for (unsigned r = SHOAL_ROWS_FIRST; r < SHOAL_ROUTE_ROWS; r++)
        if (rt->row[r].size == 0)
            mask |= 1u << r;
    return mask;
}

/* The same verdict on every PE from the gathered infos: the row, or -1
 * after one message (from the lowest PE that sees the cause). */
static int choose_row(const shoal_bootstrap_gather_t *all, const rows_info_t *mine,
                      const char *call)
{
    uint32_t common = ~0u;
    for (int pe = 0; pe < all->npes; pe++) {
        size_t len;
        const void *v = shoal_bootstrap_gather_at(all, pe, &len);
        rows_info_t t;
        if (len != sizeof(t)) {
            if (SHOAL_MY_PE == 0)
                SHOAL_ERROR("%s: PE %d published a malformed route row (%zu bytes); do all PEs "
                            "run the same Shoal build?",
                            call, pe, len);
            return -1;
        }
        memcpy(&t, v, sizeof(t));
        if (!t.ok) /* that PE said why */
            return -1;
        if (t.size != mine->size || t.kind != mine->kind) {
            if (mine->ok && SHOAL_MY_PE == 0)
                SHOAL_ERROR("%s: PEs passed different symmetric ranges: PE 0 has %llu bytes of "
                            "%s memory, PE %d has %llu bytes of %s memory; every PE must pass "
                            "the same size and kind",
                            call, (unsigned long long)mine->size,
                            mine->kind == SHOAL_MEM_DEVICE ? "device" : "host", pe,
                            (unsigned long long)t.size,
                            t.kind == SHOAL_MEM_DEVICE ? "device" : "host");
            return -1;
        }
        common &= t.free;
    }
    if (common == 0) {
        if (SHOAL_MY_PE == 0)
            SHOAL_ERROR("%s: no free route row: %u of %u rows hold heap segments and registered "
                        "buffers; free or unregister some (or give SHMEM_SYMMETRIC_SIZE a "
                        "larger initial size, so the heap needs fewer segments)",
                        call, rows.added, SHOAL_ROUTE_ROWS - SHOAL_ROWS_FIRST);
        return -1;
    }
    return __builtin_ctz(common);
}

int shoal_rows_add(void *base, size_t size, int memfd, shoal_mem_kind_t kind, const char *call)
{
    shoal_route_t *rt = &shoal.route;
    const int npes = shoal.bs.npes, me = shoal.bs.rank;
    if (rows.generation != shoal.generation) {
        rows.generation = shoal.generation;
        rows.exchanges = 0;
        rows.added = 0;
    }
    rows_info_t mine = {.ok = base != NULL && size > 0,
                        .free = free_mask(rt),
                        .base = (uint64_t)(uintptr_t)base,
                        .size = size,
                        .fd = memfd,
                        .kind = (uint32_t)kind};
    struct stat st;
    if (mine.ok && memfd >= 0) {
        if (fstat(memfd, &st) != 0) {
            SHOAL_ERROR("%s: fstat of the memfd behind a new symmetric range failed: %m", call);
            mine.ok = 0;
        } else {
            mine.ino = (uint64_t)st.st_ino;
        }
    }
    if (!mine.ok)
        mine.fd = -1;

    char key[64];
    snprintf(key, sizeof(key), "rows.add.%u.%u", shoal.generation, rows.exchanges++);
    shoal_bootstrap_gather_t all = {0};
    shoal_net_idle(); /* peers may need this PE while it waits in the bootstrap */
    shoal_status_t status = shoal_bootstrap_allgather(&shoal.bs, key, &mine, sizeof(mine), &all);
    if (status != SHOAL_OK)
        shoal_fatal("%s: the exchange of a new symmetric range between PEs failed: %s", call,
                    shoal_status_str(status));
    int row = choose_row(&all, &mine, call);
    if (row < 0)
        goto out;

    shoal_route_set_row(rt, (unsigned)row, base, size, kind);
    for (int pe = 0; pe < npes; pe++) {
        size_t len;
        rows_info_t t;
        memcpy(&t, shoal_bootstrap_gather_at(&all, pe, &len), sizeof(t));
        if (pe != me && rt->lazy[pe])
            shoal_shm_row_set(pe, (unsigned)row, t.fd, t.ino, t.base);
    }
    if (shoal_net != NULL) {
        status = shoal_transport_mem_register(shoal_net, (unsigned)row, base, size, kind);
        if (status != SHOAL_OK)
            shoal_fatal("%s: registering a new symmetric range (%zu bytes, route row %d) with "
                        "the %s transport failed: %s",
                        call, size, row, shoal_transport_name(shoal_net),
                        shoal_transport_strerror(shoal_net));
    }
    rows.added++;
    SHOAL_DEBUG("%s: route row %d added: %zu bytes at %p", call, row, size, base);
out:
    shoal_bootstrap_gather_free(&all);
    return row;
}

void shoal_rows_remove(int row)
{
    shoal_route_t *rt = &shoal.route;
    if (row < SHOAL_ROWS_FIRST || row >= SHOAL_ROUTE_ROWS || rt->row[row].size == 0)
        shoal_fatal("internal error: removing route row %d, which was not added", row);
    if (shoal_net != NULL) {
        shoal_status_t status = shoal_transport_mem_deregister(shoal_net, (unsigned)row);
        if (status != SHOAL_OK)
            shoal_fatal("deregistering route row %d from the %s transport failed: %s", row,
                        shoal_transport_name(shoal_net), shoal_transport_strerror(shoal_net));
    }
    shoal_shm_row_unmap(rt, (unsigned)row);
    shoal_route_set_row(rt, (unsigned)row, NULL, 0, SHOAL_MEM_HOST);
    rows.added--;
    SHOAL_DEBUG("route row %d removed", row);
}

unsigned shoal_rows_count(void)
{
    return rows.generation == shoal.generation ? rows.added : 0;
}
