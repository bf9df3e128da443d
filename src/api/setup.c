/*
 * Setup, exit and query entry points.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "core/alloc.h"
#include "core/error.h"
#include "core/init.h"
#include "core/peer.h"
#include "util/log.h"

void shmem_init(void)
{
    if (shoal_init(SHMEM_THREAD_SINGLE) != SHOAL_OK)
        shoal_fatal("shmem_init failed; see the messages above");
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        shoal_fatal("shmem_init_thread: requested %d is not a thread level; use "
                    "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE",
                    requested);
    if (shoal_init(requested) != SHOAL_OK)
        return -1;
    if (provided != NULL)
        *provided = shoal.thread_level;
    return 0;
}

void shmem_finalize(void) { shoal_finalize(); }

void shmem_query_initialized(int *initialized)
{
    if (initialized != NULL)
        *initialized = shoal.initialized;
}

void shmem_query_finalized(int *finalized)
{
    if (finalized != NULL)
        *finalized = shoal.finalized;
}

void shmem_query_thread(int *provided)
{
    SHOAL_REQUIRE_INIT(__func__);
    if (provided != NULL)
        *provided = shoal.thread_level;
}

void shmem_global_exit(int status) { shoal_global_exit(status); }

int shmem_my_pe(void)
{
    return shoal.initialized ? SHOAL_MY_PE : -1;
}

int shmem_n_pes(void)
{
    return shoal.initialized ? SHOAL_NPES : -1;
}

int shmem_pe_accessible(int pe)
{
    if (!shoal.initialized || !shoal_pe_valid(pe))
        return 0;
    return shoal_pe_on_host(pe) || shoal.route.net;
}

int shmem_addr_accessible(const void *addr, int pe)
{
    if (!shoal.initialized || !shoal_pe_valid(pe))
        return 0;
    shoal_where_t w; /* mapped here, or symmetric and reached by the network */
    return shoal_route_find(&shoal.route, pe, addr, 1, &w) != SHOAL_ROUTE_ERROR;
}

void *shmem_ptr(const void *dest, int pe)
{
    if (!shoal.initialized || !shoal_pe_valid(pe))
        return NULL;
    return shoal_peer_addr(dest, 1, pe);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = SHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name != NULL) {
        strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
        name[SHMEM_MAX_NAME_LEN - 1] = '\0';
    }
}

/* Profiling control: no profiler is attached yet, so levels are accepted and ignored. */
void shmem_pcontrol(int level, ...) { (void)level; }

/* Deprecated names. */
void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
int my_pe(void) { return shmem_my_pe(); }
int num_pes(void) { return shmem_n_pes(); }

/* ---- extensions ---- */
void shmemx_heap_info(size_t *total, size_t *used, size_t *largest_free)
{
    size_t t = 0, u = 0, l = 0;
    if (shoal.initialized)
        shoal_alloc_stats(&t, &u, &l);
    if (total != NULL)
        *total = t;
    if (used != NULL)
        *used = u;
    if (largest_free != NULL)
        *largest_free = l;
}
