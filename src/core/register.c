/*
 * Buffers registered after the fact: the collective steps of
 * shmemx_buffer_register and shmemx_buffer_unregister.
 *
 * Registering: each PE checks its own arguments and, when it has a peer on
 * its host, moves the buffer's pages onto a memfd (mem/share_pages.c) so that
 * peers can map them; then the buffer becomes a route row of its own
 * (core/mem_rows.h), each PE with its own address: the row translates by
 * offset, so addresses may differ. The row's exchange is the agreement: a
 * PE that refused its arguments (and said why) or passed another size
 * makes every PE return -1, and each undoes its own part.
 * A PE with no peer on its host keeps its memory as it is: only the network
 * transport reaches it, and registers it as it is.
 *
 * Unregistering: the same agreement on whether every PE knows the buffer,
 * then quiet and a barrier (no peer still uses it), the row removed
 * (peers unmap it, the transport deregisters it), and the pages put back
 * into private memory. Later RMA, AMO or signals on the buffer find no row
 * and end the job with the routing error naming the call.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/barrier.h"
#include "core/error.h"
#include "core/mem_rows.h"
#include "core/register.h"
#include "core/state.h"
#include "mem/share_pages.h"
#include "transport/net_setup.h"
#include "util/log.h"

typedef struct {
    char *ptr;
    size_t size;
    int row;
    shoal_reg_pages_t pages;
} reg_entry_t;

/* This PE's registrations; guarded by shoal.lock. */
static struct {
    reg_entry_t *v;
    size_t n;
    unsigned calls;      /* unregistering agreements made, for the bootstrap keys */
    unsigned generation; /* shmem_init run the entries belong to */
} reg;

/* Registrations of an earlier shmem_init: their rows went with finalize;
 * their pages are put back now. */
static void forget_old_generation(const char *fn)
{
    if (reg.generation == shoal.generation)
        return;
    for (size_t i = 0; i < reg.n; i++)
        shoal_reg_pages_unshare(fn, &reg.v[i].pages);
    reg.n = 0;
    reg.generation = shoal.generation;
}

static reg_entry_t *entry_find(const void *ptr)
{
    for (size_t i = 0; i < reg.n; i++)
        if (reg.v[i].ptr == ptr)
            return &reg.v[i];
    return NULL;
}

/* Checks this PE's arguments, logging what is wrong; 0 when they are fine. */
static int check_args(const char *fn, const char *ptr, size_t size)
{
    if (ptr == NULL) {
        SHOAL_ERROR("%s: ptr is NULL on PE %d; pass the buffer to register (the same size on "
                    "every PE)",
                    fn, SHOAL_MY_PE);
        return -1;
    }
    if (size == 0 || (uintptr_t)ptr + size < (uintptr_t)ptr) {
        SHOAL_ERROR("%s: size %zu is not a valid size for ptr %p on PE %d; pass the buffer's "
                    "size in bytes, more than 0 and the same on every PE",
                    fn, size, (const void *)ptr, SHOAL_MY_PE);
        return -1;
    }
    for (size_t i = 0; i < reg.n; i++) {
        const reg_entry_t *e = &reg.v[i];
        if (ptr < e->ptr + e->size && e->ptr < ptr + size) {
            SHOAL_ERROR("%s: ptr %p + %zu bytes overlaps the buffer %p (%zu bytes) registered "
                        "before on PE %d; register each buffer once (unregister the first, or "
                        "register one buffer holding both)",
                        fn, (const void *)ptr, size, (void *)e->ptr, e->size, SHOAL_MY_PE);
            return -1;
        }
    }
    const shoal_route_t *rt = &shoal.route;
    for (unsigned r = 0; r < rt->nrows; r++) {
        const char *base = (const char *)rt->row[r].base;
        if (rt->row[r].size == 0 || !(ptr < base + rt->row[r].size && base < ptr + size))
            continue;
        SHOAL_ERROR("%s: ptr %p + %zu bytes overlaps %s on PE %d, which is symmetric already; "
                    "register memory of the program's own (malloc, NumPy or torch arrays), and "
                    "use symmetric memory as it is",
                    fn, (const void *)ptr, size, shoal_route_row_name(r), SHOAL_MY_PE);
        return -1;
    }
    return 0;
}

/* Whether a PE other than this one shares this host. */
static int has_local_peer(void)
{
    for (int pe = 0; pe < SHOAL_NPES; pe++)
        if (pe != SHOAL_MY_PE && shoal_pe_on_host(pe))
            return 1;
    return 0;
}

/* Unregistering's agreement: publishes whether this PE knows the buffer
 * and reads everyone's. 0 when every PE does; else -1 (the PEs that do not
 * said so; PE 0 names the first of them when it knows the buffer). */
static int agree(const char *fn, int bad)
{
    char key[64];
    uint32_t mine = bad != 0;
    shoal_bootstrap_gather_t all = {0};
    snprintf(key, sizeof(key), "shoal.unreg.%u.%u", shoal.generation, reg.calls++);
    shoal_net_idle(); /* peers may need this PE while it waits in the bootstrap */
    shoal_status_t status = shoal_bootstrap_allgather(&shoal.bs, key, &mine, sizeof(mine), &all);
    if (status != SHOAL_OK)
        shoal_fatal("%s: the bootstrap's allgather failed (%s)", fn, shoal_status_str(status));
    int nbad = 0, first_bad = -1;
    for (int pe = 0; pe < SHOAL_NPES; pe++) {
        size_t len;
        uint32_t v;
        const void *p = shoal_bootstrap_gather_at(&all, pe, &len);
        if (len != sizeof(v))
            shoal_fatal("%s: PE %d published %zu bytes in an agreement; do all PEs run the same "
                        "Shoal build?",
                        fn, pe, len);
        memcpy(&v, p, sizeof(v));
        if (v && nbad++ == 0)
            first_bad = pe;
    }
    shoal_bootstrap_gather_free(&all);
    if (nbad == 0)
        return 0;
    if (!bad && SHOAL_MY_PE == 0)
        SHOAL_ERROR("%s: nothing was unregistered on any PE: %d PE(s) did not have the buffer "
                    "registered, the first PE %d",
                    fn, nbad, first_bad);
    return -1;
}

int shoal_register_collective(const char *fn, void *ptr, size_t size)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    forget_old_generation(fn);
    int rc = -1, bad = check_args(fn, ptr, size);
    shoal_reg_pages_t pages = {.fd = -1};
    reg_entry_t *grown = bad ? NULL : realloc(reg.v, (reg.n + 1) * sizeof(*reg.v));
    if (!bad && grown == NULL) {
        SHOAL_ERROR("%s: out of memory for the registration table", fn);
        bad = 1;
    }
    if (grown != NULL)
        reg.v = grown;
    if (!bad && has_local_peer() && shoal_reg_pages_share(fn, ptr, size, &pages) != SHOAL_OK)
        bad = 1;
    /* The row's own exchange is the agreement: a PE that passes NULL (its
     * arguments were refused, and it said why) or another size makes every
     * PE return -1. */
    const int row = shoal_rows_add(bad ? NULL : ptr, size, pages.fd, SHOAL_MEM_HOST, fn);
    if (row < 0) {
        shoal_reg_pages_unshare(fn, &pages);
        goto out;
    }
    reg.v[reg.n++] = (reg_entry_t){.ptr = ptr, .size = size, .row = row, .pages = pages};
    rc = 0;
out:
    pthread_mutex_unlock(&shoal.lock);
    return rc;
}

int shoal_unregister_collective(const char *fn, void *ptr)
{
    SHOAL_REQUIRE_INIT(fn);
    pthread_mutex_lock(&shoal.lock);
    forget_old_generation(fn);
    reg_entry_t *e = entry_find(ptr);
    if (e == NULL)
        SHOAL_ERROR("%s: ptr %p is not a buffer registered on PE %d (by shmemx_buffer_register, "
                    "and not unregistered since); pass the pointer that was registered",
                    fn, ptr, SHOAL_MY_PE);
    int rc = -1;
    if (agree(fn, e == NULL) != 0)
        goto out;
    /* Nobody may use the buffer once its row is gone. */
    shoal_quiet(fn);
    shoal_sync_world(fn);
    shoal_rows_remove(e->row);
    shoal_reg_pages_unshare(fn, &e->pages);
    *e = reg.v[--reg.n];
    rc = 0;
out:
    pthread_mutex_unlock(&shoal.lock);
    return rc;
}
