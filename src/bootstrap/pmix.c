/*
 * The PMIx bootstrap: a PE started by a PMIx launcher (Open MPI's mpirun,
 * Slurm's srun --mpi=pmix) learns its rank, the job size and its host-local
 * rank from the PMIx server, and exchanges keys through PMIx_Put/Commit/
 * Fence/Get. It is tried only when the launcher announced a server through
 * the environment (PMIX_RANK, PMIX_NAMESPACE), so a program started any
 * other way never waits on PMIx_Init.
 *
 * Every caller in the library publishes, fences and reads collectively, so
 * the bootstrap fence is a real PMIx fence that collects the data: after it
 * every PE's keys are in the local PMIx client and a get never has to ask
 * the server for them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "bootstrap/bootstrap.h"
#include "util/log.h"

typedef struct {
    pmix_proc_t me;
    pmix_proc_t all; /* the whole namespace (PMIX_RANK_WILDCARD) */
} pmix_priv_t;

static pmix_priv_t pmix_state;

/* Reads an unsigned job or process attribute, whatever width the server used. */
static shoal_status_t pmix_get_uint(const pmix_proc_t *proc, const char *key, int *out_p)
{
    pmix_value_t *val = NULL;
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val == NULL) {
        SHOAL_ERROR("PMIx_Get(%s) failed: %s", key, PMIx_Error_string(rc));
        return SHOAL_ERR_SYSTEM;
    }
    /* PMIx's own conversion, of integer types only (a floating value out of
     * range would not convert). */
    long v = -1;
    pmix_status_t conv = PMIX_ERR_BAD_PARAM;
    if (val->type != PMIX_FLOAT && val->type != PMIX_DOUBLE)
        PMIX_VALUE_GET_NUMBER(conv, val, v, long);
    if (conv != PMIX_SUCCESS)
        v = -1;
    PMIX_VALUE_RELEASE(val);
    if (v < 0 || v > INT32_MAX) {
        SHOAL_ERROR("PMIx returned %s of an unexpected type or value", key);
        return SHOAL_ERR_SYSTEM;
    }
    *out_p = (int)v;
    return SHOAL_OK;
}

static shoal_status_t pmix_put(shoal_bootstrap_t *bs, const char *key, const void *value,
                               size_t len)
{
    pmix_value_t val;
    (void)bs;
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)value;
    val.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        SHOAL_ERROR("PMIx_Put(%s, %zu bytes) failed: %s", key, len, PMIx_Error_string(rc));
        return SHOAL_ERR_IO;
    }
    return SHOAL_OK;
}

static shoal_status_t pmix_get(shoal_bootstrap_t *bs, int pe, const char *key, void *value,
                               size_t max_len, size_t *len_p)
{
    pmix_priv_t *p = bs->priv;
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    shoal_status_t status = SHOAL_OK;

    PMIX_PROC_LOAD(&proc, p->me.nspace, (pmix_rank_t)pe);
    pmix_status_t rc = PMIx_Get(&proc, key, NULL, 0, &val);
    if (rc == PMIX_ERR_NOT_FOUND)
        return SHOAL_ERR_NOT_FOUND;
    if (rc != PMIX_SUCCESS || val == NULL) {
        SHOAL_ERROR("PMIx_Get(PE %d, %s) failed: %s", pe, key, PMIx_Error_string(rc));
        return SHOAL_ERR_IO;
    }
    if (val->type != PMIX_BYTE_OBJECT) {
        SHOAL_ERROR("PMIx_Get(PE %d, %s) returned type %d, not bytes", pe, key, (int)val->type);
        status = SHOAL_ERR_IO;
    } else if (val->data.bo.size > max_len) {
        status = SHOAL_ERR_TRUNCATED;
    } else {
        memcpy(value, val->data.bo.bytes, val->data.bo.size);
        if (len_p)
            *len_p = val->data.bo.size;
    }
    PMIX_VALUE_RELEASE(val);
    return status;
}

static shoal_status_t pmix_fence_collect(shoal_bootstrap_t *bs)
{
    pmix_priv_t *p = bs->priv;
    pmix_info_t info;
    bool collect = true;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        SHOAL_ERROR("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return SHOAL_ERR_IO;
    }
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&p->all, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        SHOAL_ERROR("PMIx_Fence (collecting data) failed: %s", PMIx_Error_string(rc));
        return SHOAL_ERR_IO;
    }
    return SHOAL_OK;
}

static shoal_status_t pmix_barrier(shoal_bootstrap_t *bs)
{
    pmix_priv_t *p = bs->priv;
    pmix_status_t rc = PMIx_Fence(&p->all, 1, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        SHOAL_ERROR("PMIx_Fence (barrier) failed: %s", PMIx_Error_string(rc));
        return SHOAL_ERR_IO;
    }
    return SHOAL_OK;
}

static void pmix_abort(shoal_bootstrap_t *bs, int status, const char *msg)
{
    (void)bs;
    fflush(NULL);
    PMIx_Abort(status, msg != NULL ? msg : "shmem_global_exit or a fatal error", NULL, 0);
    _exit(status);
}

static int pmix_initialized;

static void pmix_finalize(shoal_bootstrap_t *bs)
{
    if (pmix_initialized)
        PMIx_Finalize(NULL, 0);
    pmix_initialized = 0;
    bs->priv = NULL;
}

/* The bootstrap lives until the process exits (shmem_init may run again after
 * shmem_finalize), but a PMIx launcher counts a process that exits without
 * PMIx_Finalize as failed. Registered before the core's on_exit handler, this
 * runs after the implicit shmem_finalize. */
static void pmix_exit_handler(void)
{
    if (pmix_initialized)
        PMIx_Finalize(NULL, 0);
    pmix_initialized = 0;
}

static const shoal_bootstrap_ops_t pmix_ops = {
    .version = SHOAL_BOOTSTRAP_VERSION,
    .name = "pmix",
    .put = pmix_put,
    .get = pmix_get,
    .fence = pmix_fence_collect,
    .barrier = pmix_barrier,
    .notify = NULL,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
    .allgather = shoal_bootstrap_allgather_by_gets,
};

/* A name unique per job on this host for socket names: the namespace when it
 * is short, else a hash of it. */
static void pmix_job_id(const char *nspace, char *out, size_t len)
{
    if (strlen(nspace) + 6 < len) {
        snprintf(out, len, "pmix-%s", nspace);
        return;
    }
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *c = nspace; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    snprintf(out, len, "pmix-%016llx", (unsigned long long)h);
}

shoal_status_t shoal_bootstrap_pmix_init(shoal_bootstrap_t *bs)
{
    pmix_priv_t *p = &pmix_state;
    if (getenv("PMIX_RANK") == NULL && getenv("PMIX_NAMESPACE") == NULL)
        return SHOAL_ERR_NOT_FOUND;

    pmix_status_t rc = PMIx_Init(&p->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        /* A stale PMIX_* variable without a server: not a PMIx job. */
        SHOAL_WARN("PMIX_RANK or PMIX_NAMESPACE is set but PMIx_Init failed (%s); not using "
                   "PMIx",
                   PMIx_Error_string(rc));
        return SHOAL_ERR_NOT_FOUND;
    }
    PMIX_PROC_LOAD(&p->all, p->me.nspace, PMIX_RANK_WILDCARD);
    if (!pmix_initialized)
        atexit(pmix_exit_handler);
    pmix_initialized = 1;

    int npes, local_rank, local_npes;
    if (pmix_get_uint(&p->all, PMIX_JOB_SIZE, &npes) != SHOAL_OK ||
        pmix_get_uint(&p->me, PMIX_LOCAL_RANK, &local_rank) != SHOAL_OK ||
        pmix_get_uint(&p->all, PMIX_LOCAL_SIZE, &local_npes) != SHOAL_OK)
        goto out_finalize;
    if (npes < 1 || (int)p->me.rank >= npes || local_rank >= local_npes) {
        SHOAL_ERROR("inconsistent job from PMIx: rank %u of %d, local rank %d of %d",
                    (unsigned)p->me.rank, npes, local_rank, local_npes);
        goto out_finalize;
    }

    memset(bs, 0, sizeof(*bs));
    bs->ops = &pmix_ops;
    bs->rank = (int)p->me.rank;
    bs->npes = npes;
    bs->local_rank = local_rank;
    bs->local_npes = local_npes;
    pmix_job_id(p->me.nspace, bs->job_id, sizeof(bs->job_id));
    bs->priv = p;
    SHOAL_DEBUG("PMIx bootstrap: namespace %s, rank %d of %d, local %d of %d", p->me.nspace,
                bs->rank, npes, local_rank, local_npes);
    return SHOAL_OK;

out_finalize:
    PMIx_Finalize(NULL, 0);
    pmix_initialized = 0;
    return SHOAL_ERR_SYSTEM;
}
