/*
 * Setup, exit and query entry points.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "api/api.h"
#include "core/alloc.h"
#include "core/error.h"
#include "core/init.h"
#include "core/pcontrol.h"
#include "core/peer.h"
#include "util/log.h"

SHOAL_API_DEF(void, shmem_init)(void)
{
    if (shoal_init(SHMEM_THREAD_SINGLE) != SHOAL_OK)
        shoal_fatal("shmem_init: %s", shoal_init_failure());
}

SHOAL_API_DEF(int, shmem_init_thread)(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        shoal_fatal("shmem_init_thread: requested %d is not a thread level; use "
                    "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE",
                    requested);
    if (shoal_init(requested) != SHOAL_OK) {
        SHOAL_ERROR("shmem_init_thread: %s", shoal_init_failure());
        return -1;
    }
    if (provided != NULL)
        *provided = shoal.thread_level;
    return 0;
}

SHOAL_API_DEF(void, shmem_finalize)(void)
{
    shoal_finalize();
}

SHOAL_API_DEF(void, shmem_query_initialized)(int *initialized)
{
    if (initialized != NULL)
        *initialized = shoal.initialized;
}

SHOAL_API_DEF(void, shmem_query_finalized)(int *finalized)
{
    if (finalized != NULL)
        *finalized = shoal.finalized;
}

SHOAL_API_DEF(void, shmem_query_thread)(int *provided)
{
    SHOAL_REQUIRE_INIT(SHOAL_FN);
    if (provided != NULL)
        *provided = shoal.thread_level;
}

SHOAL_API_DEF(void, shmem_global_exit)(int status)
{
    shoal_global_exit(status);
}

SHOAL_API_DEF(int, shmem_my_pe)(void)
{
    return shoal.initialized ? SHOAL_MY_PE : -1;
}

SHOAL_API_DEF(int, shmem_n_pes)(void)
{
    return shoal.initialized ? SHOAL_NPES : -1;
}

SHOAL_API_DEF(int, shmem_pe_accessible)(int pe)
{
    if (!shoal.initialized || !shoal_pe_valid(pe))
        return 0;
    return shoal_pe_on_host(pe) || shoal.route.net;
}

SHOAL_API_DEF(int, shmem_addr_accessible)(const void *addr, int pe)
{
    if (!shoal.initialized || !shoal_pe_valid(pe))
        return 0;
    shoal_where_t w; /* mapped here, or symmetric and reached by the network */
    return shoal_route_find(&shoal.route, pe, addr, 1, &w) != SHOAL_ROUTE_ERROR;
}

SHOAL_API_DEF(void *, shmem_ptr)(const void *dest, int pe)
{
    if (!shoal.initialized || !shoal_pe_valid(pe))
        return NULL;
    return shoal_peer_addr(dest, 1, pe);
}

SHOAL_API_DEF(void, shmem_info_get_version)(int *major, int *minor)
{
    if (major != NULL)
        *major = SHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = SHMEM_MINOR_VERSION;
}

SHOAL_API_DEF(void, shmem_info_get_name)(char *name)
{
    if (name != NULL) {
        strncpy(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN - 1);
        name[SHMEM_MAX_NAME_LEN - 1] = '\0';
    }
}

/* Profiling control: the level is recorded for Shoal's own tracing and
 * profiling (core/pcontrol.h says what each level means); the extra
 * arguments are a profiling library's, and Shoal does not read them. */
SHOAL_API_DEF(void, shmem_pcontrol)(int level, ...)
{
    shoal_pcontrol_set(level);
    if (level == SHOAL_PCONTROL_FLUSH)
        shoal_trace_flush();
    /* Read back from the state, so the line shows what was recorded. */
    int now = shoal_pcontrol_level();
    SHOAL_DEBUG("shmem_pcontrol: level %d: %s (%u flush requests so far)", now,
                now <= SHOAL_PCONTROL_OFF       ? "profiling off"
                : now == SHOAL_PCONTROL_DEFAULT ? "profiling on at the default detail"
                : now == SHOAL_PCONTROL_FLUSH   ? "profiling on, flush requested"
                                                : "profiling on; a level above 2 is a profiling "
                                                  "library's, Shoal treats it as 1",
                shoal_pcontrol_flushes());
}

/* Deprecated names. */
SHOAL_API_DEF(void, start_pes)(int npes)
{
    (void)npes;
    pshmem_init();
}
SHOAL_API_DEF(int, _my_pe)(void)
{
    return pshmem_my_pe();
}
SHOAL_API_DEF(int, _num_pes)(void)
{
    return pshmem_n_pes();
}
SHOAL_API_DEF(int, my_pe)(void)
{
    return pshmem_my_pe();
}
SHOAL_API_DEF(int, num_pes)(void)
{
    return pshmem_n_pes();
}

/* ---- extensions ---- */
SHOAL_API_DEF(int, shmemx_addr_check)
(const char *fn, const char *what, const void *addr, size_t len, int pe, char *msg, size_t msglen)
{
    return shoal_route_check(fn, what, addr, len, pe, msg, msglen);
}

SHOAL_API_DEF(void, shmemx_heap_info)(size_t *total, size_t *used, size_t *largest_free)
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
