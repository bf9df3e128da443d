/*
 * Initialization with attributes and the config-store extensions:
 * shmemx_init_attr, shmemx_get_uniqueid, shmemx_set_attr_uniqueid_args and
 * shmemx_set_conf_store_tls. Each checks its arguments, says what is wrong
 * in one line, and hands the settings to the store bootstrap
 * (bootstrap/store.h) and the core (core/init.h).
 */
#include <stdbool.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "api/api.h"
#include "bootstrap/store.h"
#include "core/init.h"
#include "core/state.h"
#include "util/log.h"

_Static_assert(SHMEMX_UNIQUEID_BYTES == SHOAL_STORE_UNIQUEID_BYTES,
               "the public unique ID holds the store's ID");

/* The bootstrap made by the first initialization serves the whole process. */
static int bootstrap_exists(void)
{
    return shoal.bs.ops != NULL;
}

SHOAL_API_DEF(int, shmemx_init_attr)(unsigned int flags, shmemx_init_attr_t *attr)
{
    const unsigned known = SHMEMX_INIT_WITH_UNIQUEID | SHMEMX_INIT_WITH_STORE;

    if (attr == NULL) {
        SHOAL_ERROR("shmemx_init_attr: attr is NULL; start from SHMEMX_INIT_ATTR_INITIALIZER");
        return SHOAL_ERR_INVALID;
    }
    if (attr->version != SHMEMX_INIT_ATTR_VERSION) {
        SHOAL_ERROR("shmemx_init_attr: attr->version is %u, expected %u; start from "
                    "SHMEMX_INIT_ATTR_INITIALIZER",
                    attr->version, SHMEMX_INIT_ATTR_VERSION);
        return SHOAL_ERR_INVALID;
    }
    if ((flags & ~known) != 0 || (flags & known) == known) {
        SHOAL_ERROR("shmemx_init_attr: flags 0x%x are not valid; give 0, "
                    "SHMEMX_INIT_WITH_UNIQUEID or SHMEMX_INIT_WITH_STORE",
                    flags);
        return SHOAL_ERR_INVALID;
    }
    if (attr->thread_level < SHMEM_THREAD_SINGLE || attr->thread_level > SHMEM_THREAD_MULTIPLE) {
        SHOAL_ERROR("shmemx_init_attr: thread_level %d is not a thread level; use "
                    "SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE",
                    attr->thread_level);
        return SHOAL_ERR_INVALID;
    }
    if (flags != 0 && bootstrap_exists()) {
        SHOAL_DEBUG("shmemx_init_attr: the job's bootstrap is already up; rank, npes and "
                    "store settings of this call are not used");
    } else if (flags != 0) {
        shoal_store_job_t job = {
            .rank = attr->rank,
            .npes = attr->npes,
            .store = flags & SHMEMX_INIT_WITH_STORE ? attr->store : NULL,
            .job_key = flags & SHMEMX_INIT_WITH_STORE ? attr->job_key : NULL,
            .uniqueid = flags & SHMEMX_INIT_WITH_UNIQUEID ? attr->uniqueid.internal : NULL,
            .connect_timeout_ms = attr->connect_timeout_ms,
            .join_timeout_ms = attr->join_timeout_ms,
        };
        if (shoal_store_set_job(&job) != SHOAL_OK)
            return SHOAL_ERR_INVALID;
    }
    shoal_init_overrides.symmetric_size = attr->heap_size;
    shoal_status_t status = shoal_init(attr->thread_level);
    if (status != SHOAL_OK) {
        SHOAL_ERROR("shmemx_init_attr: %s", shoal_init_failure());
        return status;
    }
    return 0;
}

SHOAL_API_DEF(int, shmemx_get_uniqueid)(shmemx_uniqueid_t *id)
{
    if (id == NULL) {
        SHOAL_ERROR("shmemx_get_uniqueid: id is NULL");
        return SHOAL_ERR_INVALID;
    }
    shoal_status_t status = shoal_store_uniqueid_create(id->internal);
    if (status != SHOAL_OK) {
        SHOAL_ERROR("shmemx_get_uniqueid: cannot start the config store; see the message "
                    "above");
        return status;
    }
    return 0;
}

SHOAL_API_DEF(int, shmemx_set_attr_uniqueid_args)
(int rank, int npes, const shmemx_uniqueid_t *id, shmemx_init_attr_t *attr)
{
    if (id == NULL || attr == NULL) {
        SHOAL_ERROR("shmemx_set_attr_uniqueid_args: %s is NULL", id == NULL ? "id" : "attr");
        return SHOAL_ERR_INVALID;
    }
    if (npes < 1 || rank < 0 || rank >= npes) {
        SHOAL_ERROR("shmemx_set_attr_uniqueid_args: rank %d of npes %d is not a PE of a job "
                    "(npes >= 1, rank 0 to npes - 1)",
                    rank, npes);
        return SHOAL_ERR_INVALID;
    }
    if (shoal_store_uniqueid_check(id->internal) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    attr->rank = rank;
    attr->npes = npes;
    memcpy(&attr->uniqueid, id, sizeof(*id));
    return 0;
}

SHOAL_API_DEF(int, shmemx_set_conf_store_tls)(bool enable, const char *tls_info, uint32_t len)
{
    if (shoal.initialized || bootstrap_exists() || shoal_store_started()) {
        SHOAL_ERROR("shmemx_set_conf_store_tls: called after initialization (or after "
                    "shmemx_get_uniqueid); nothing changed. Call it before shmem_init, "
                    "shmemx_init_attr and shmemx_get_uniqueid");
        return SHOAL_ERR_UNSUPPORTED;
    }
    if (len > 0 && tls_info == NULL) {
        SHOAL_ERROR("shmemx_set_conf_store_tls: tls_info is NULL but len is %u", len);
        return SHOAL_ERR_INVALID;
    }
    shoal_status_t status = shoal_store_set_tls(enable, tls_info, len);
    if (status == SHOAL_ERR_UNSUPPORTED)
        SHOAL_ERROR("shmemx_set_conf_store_tls: the config store is already in use; nothing "
                    "changed");
    return status == SHOAL_OK ? 0 : status;
}
