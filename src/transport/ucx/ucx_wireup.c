/*
 * UCX endpoints and memory: the worker addresses exchanged through the
 * bootstrap, an endpoint to every PE this PE cannot map (created from the
 * address without waiting for the peer: wire-up completes under either
 * side's progress), their closing, and the registration of route-table
 * rows with their remote keys.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx_internal.h"

/* Collective: every PE's worker address, in one bootstrap allgather. A PE
 * whose UCX failed to open takes part with an empty address, so the others
 * do not hang; they then report it. */
shoal_status_t ucx_gather_addresses(ucx_t *u, int opened, shoal_bootstrap_gather_t *all_p)
{
    ucp_address_t *addr = NULL;
    size_t addr_len = 0;
    char key[64];
    shoal_status_t status = SHOAL_OK;
    if (opened) {
        ucs_status_t st = ucp_worker_get_address(u->worker, &addr, &addr_len);
        if (st != UCS_OK) {
            SHOAL_ERROR("ucp_worker_get_address failed: %s", ucs_status_string(st));
            status = SHOAL_ERR_SYSTEM;
            addr = NULL;
            addr_len = 0;
        }
    }
    snprintf(key, sizeof(key), "ucx.addr.%u", u->generation);
    shoal_status_t gather_status = shoal_bootstrap_allgather(
        u->bs, key, addr != NULL ? (const void *)addr : "", addr_len, all_p);
    if (addr != NULL)
        ucp_worker_release_address(u->worker, addr);
    if (!opened && gather_status == SHOAL_OK)
        shoal_bootstrap_gather_free(all_p);
    return status != SHOAL_OK ? status : gather_status;
}

shoal_status_t ucx_connect(ucx_t *u, int pe, const void *addr, size_t addr_len)
{
    ucx_peer_t *p = &u->peers[pe];
    shoal_status_t status = SHOAL_OK;
    if (addr_len == 0) {
        SHOAL_ERROR("PE %d has no UCX address: its UCX transport failed to open (see its "
                    "messages)",
                    pe);
        return SHOAL_ERR_UNREACHABLE;
    }
    p->u = u;
    p->pe = pe;
    /* Peer error handling: a dead peer fails the operations to it (and
     * calls ucx_ep_failed) instead of leaving them pending for ever. */
    ucp_ep_params_t ep_params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)addr,
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = {.cb = ucx_ep_failed, .arg = p},
    };
    ucx_lock(u); /* the progress thread runs */
    ucs_status_t st = ucp_ep_create(u->worker, &ep_params, &p->ep);
    ucx_unlock(u);
    if (st != UCS_OK) {
        SHOAL_ERROR("cannot create a UCX endpoint to PE %d: %s; check that UCX_TLS and "
                    "UCX_NET_DEVICES name a network both hosts share",
                    pe, ucs_status_string(st));
        p->ep = NULL;
        status = SHOAL_ERR_UNREACHABLE;
    }
    return status;
}

void ucx_close_endpoints(ucx_t *u)
{
    ucx_lock(u);
    for (int pe = 0; pe < u->npes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        for (int r = 0; r < SHOAL_ROUTE_ROWS; r++)
            if (p->rkey[r] != NULL)
                ucp_rkey_destroy(p->rkey[r]);
        memset(p->rkey, 0, sizeof(p->rkey));
    }
    /* Start every close first, then wait: a flushing close may need the
     * peer, which is closing its endpoint to us at the same time. A failed
     * endpoint is closed by force (nothing to flush to). */
    ucs_status_ptr_t *reqs = calloc((size_t)u->npes, sizeof(*reqs));
    for (int pe = 0; pe < u->npes; pe++) {
        ucx_peer_t *p = &u->peers[pe];
        if (p->ep == NULL)
            continue;
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                     .flags = p->failed ? UCP_EP_CLOSE_FLAG_FORCE : 0};
        ucs_status_ptr_t req = ucp_ep_close_nbx(p->ep, &param);
        p->ep = NULL;
        if (reqs != NULL)
            reqs[pe] = req;
        else
            ucx_wait(u, req, "endpoint close", pe);
    }
    if (reqs != NULL) {
        for (int pe = 0; pe < u->npes; pe++)
            if (reqs[pe] != NULL)
                ucx_wait(u, reqs[pe], "endpoint close", pe);
        free(reqs);
    }
    ucx_unlock(u);
}

/* Registers this PE's copy of `row` and packs what peers need to reach it
 * (its base, size and remote key) into *blob_p / *len_p. */
static shoal_status_t ucx_reg_pack(ucx_t *u, unsigned row, void *base, size_t size,
                                   shoal_mem_kind_t kind, char **blob_p, size_t *len_p)
{
    ucx_reg_info_t info = {
        .base = (uint64_t)(uintptr_t)base, .size = size, .row = row, .kind = (uint32_t)kind};
    void *rkey_buf = NULL;
    char *blob = NULL;
    shoal_status_t status = SHOAL_OK;
    if (base != NULL) {
        ucp_mem_map_params_t mp = {
            .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                          UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE,
            .address = base,
            .length = size,
            .memory_type = kind == SHOAL_MEM_DEVICE ? UCS_MEMORY_TYPE_CUDA : UCS_MEMORY_TYPE_HOST,
        };
        ucs_status_t st = ucp_mem_map(u->context, &mp, &u->memh[row]);
        size_t len = 0;
        if (st == UCS_OK)
            st = ucp_rkey_pack(u->context, u->memh[row], &rkey_buf, &len);
        if (st != UCS_OK) {
            SHOAL_ERROR("registering symmetric memory row %u (%zu bytes of %s memory at %p) "
                        "with UCX failed: %s",
                        row, size, kind == SHOAL_MEM_DEVICE ? "GPU" : "host", base,
                        ucs_status_string(st));
            return SHOAL_ERR_SYSTEM;
        }
        info.rkey_len = (uint32_t)len;
    } else {
        info.size = 0;
    }
    blob = malloc(sizeof(info) + info.rkey_len);
    if (blob == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out;
    }
    memcpy(blob, &info, sizeof(info));
    if (info.rkey_len > 0)
        memcpy(blob + sizeof(info), rkey_buf, info.rkey_len);
    *blob_p = blob;
    *len_p = sizeof(info) + info.rkey_len;
out:
    if (rkey_buf != NULL)
        ucp_rkey_buffer_release(rkey_buf);
    return status;
}

/* Unpacks PE `pe`'s key of the row from its part of the allgather. */
static shoal_status_t ucx_reg_import(ucx_t *u, int pe, unsigned row, const char *blob, size_t len)
{
    ucx_peer_t *p = &u->peers[pe];
    ucx_reg_info_t info;
    shoal_status_t status = SHOAL_OK;
    memcpy(&info, blob, len < sizeof(info) ? len : sizeof(info));
    if (len < sizeof(info) || info.row != row || len < sizeof(info) + info.rkey_len) {
        SHOAL_ERROR("PE %d published a malformed key for memory row %u%s", pe, row,
                    len == 0 ? " (it failed to register it)" : "");
        status = SHOAL_ERR_IO;
    } else if (info.rkey_len > 0) {
        ucs_status_t st = ucp_ep_rkey_unpack(p->ep, blob + sizeof(info), &p->rkey[row]);
        if (st != UCS_OK) {
            SHOAL_ERROR("cannot unpack PE %d's remote key: %s", pe, ucs_status_string(st));
            p->rkey[row] = NULL;
            status = SHOAL_ERR_IO;
        } else {
            p->base[row] = info.base;
            p->size[row] = info.size;
            p->host[row] = info.kind == SHOAL_MEM_HOST;
        }
    }
    return status;
}

/* Collective: every PE registers its copy of the row and learns the keys of
 * the PEs it reaches through UCX, in one bootstrap allgather. */
shoal_status_t ucx_mem_register(shoal_transport_t *tr, unsigned row, void *base, size_t size,
                                shoal_mem_kind_t kind)
{
    ucx_t *u = tr->priv;
    char key[64], *blob = NULL;
    size_t len = 0;
    shoal_bootstrap_gather_t all = {0};
    shoal_status_t status;
    if (row >= SHOAL_ROUTE_ROWS || u->memh[row] != NULL) {
        SHOAL_ERROR("memory row %u is out of range or already registered with UCX", row);
        status = SHOAL_ERR_INVALID; /* still take part, so the others do not hang */
    } else {
        /* Context calls (ucp_mem_map, ucp_rkey_pack): the context is shared
         * between threads (mt_workers_shared), so no worker lock: pinning a
         * large region must not stop this PE serving its peers. */
        status = ucx_reg_pack(u, row, base, size, kind, &blob, &len);
        /* Before the others can learn the key (and reach this row). */
        if (status == SHOAL_OK && base != NULL && kind == SHOAL_MEM_HOST) {
            u->self_base[row] = (uint64_t)(uintptr_t)base;
            __atomic_store_n(&u->self_size[row], (uint64_t)size, __ATOMIC_RELEASE);
        }
        if (status == SHOAL_OK && base != NULL && kind != SHOAL_MEM_HOST) {
            u->dev_base[row] = (uint64_t)(uintptr_t)base;
            u->dev_size[row] = size;
            u->ndev_rows++;
        }
    }
    snprintf(key, sizeof(key), "ucx.reg.%u.%u", u->generation, u->registrations++);
    /* A PE that failed takes part with nothing, so the others do not hang here. */
    ucx_hand_over(u); /* peers not here yet may still need this PE */
    shoal_status_t gather_status = shoal_bootstrap_allgather(
        u->bs, key, status == SHOAL_OK ? blob : "", status == SHOAL_OK ? len : 0, &all);
    free(blob);
    if (status == SHOAL_OK)
        status = gather_status;
    ucx_lock(u);
    for (int pe = 0; pe < u->npes && status == SHOAL_OK; pe++)
        if (u->peers[pe].ep != NULL) {
            size_t n;
            const char *v = shoal_bootstrap_gather_at(&all, pe, &n);
            status = ucx_reg_import(u, pe, row, v, n);
        }
    ucx_unlock(u);
    shoal_bootstrap_gather_free(&all);
    return status;
}

/* Collective: forgets every peer's key of the row, then (once no PE can
 * reach this PE's copy any more) deregisters it. */
shoal_status_t ucx_mem_deregister(shoal_transport_t *tr, unsigned row)
{
    ucx_t *u = tr->priv;
    shoal_status_t status = SHOAL_OK;
    if (row >= SHOAL_ROUTE_ROWS) {
        SHOAL_ERROR("memory row %u is out of range", row);
        status = SHOAL_ERR_INVALID; /* still take part, so the others do not hang */
    } else {
        status = ucx_quiet(tr); /* nothing of this PE's may still be on its way there */
        ucx_lock(u);
        for (int pe = 0; pe < u->npes; pe++) {
            ucx_peer_t *p = &u->peers[pe];
            if (p->rkey[row] != NULL)
                ucp_rkey_destroy(p->rkey[row]);
            p->rkey[row] = NULL;
            p->base[row] = p->size[row] = 0;
            p->host[row] = 0;
        }
        ucx_unlock(u);
    }
    /* Every PE has dropped its keys before any copy goes. */
    ucx_hand_over(u);
    shoal_status_t barrier = shoal_bootstrap_barrier(u->bs);
    if (status == SHOAL_OK)
        status = barrier;
    if (row < SHOAL_ROUTE_ROWS) {
        __atomic_store_n(&u->self_size[row], 0, __ATOMIC_RELEASE);
        u->self_base[row] = 0;
        if (u->dev_size[row] != 0) {
            u->dev_base[row] = u->dev_size[row] = 0;
            u->ndev_rows--;
        }
        if (u->memh[row] != NULL)
            ucp_mem_unmap(u->context, u->memh[row]);
        u->memh[row] = NULL;
    }
    return status;
}
