/*
 * The UCX data path: puts, gets and atomics as UCP RMA and AMO operations
 * on the peer's registered rows, and the transport's entry points for them,
 * which take the worker's lock. Synchronization adds and puts with a signal
 * travel as active messages (ucx_am.c).
 */
#include <string.h>

#include "transport/ucx/ucx_internal.h"

/* The remote address and key of `len` bytes at `r` on `pe`. */
shoal_status_t ucx_remote(ucx_t *u, int pe, shoal_remote_t r, size_t len, uint64_t *raddr_p,
                          ucp_rkey_h *rkey_p)
{
    ucx_peer_t *p = &u->peers[pe];
    if (p->ep == NULL)
        return ucx_fail(u, SHOAL_ERR_UNREACHABLE,
                        "PE %d has no UCX endpoint (it is mapped through shared memory)", pe);
    if (r.row >= SHOAL_ROUTE_ROWS || p->rkey[r.row] == NULL || r.off + len > p->size[r.row])
        return ucx_fail(u, SHOAL_ERR_INVALID,
                        "PE %d's memory row %u is not registered with UCX or is smaller than "
                        "here (%llu + %zu bytes)",
                        pe, r.row, (unsigned long long)r.off, len);
    *raddr_p = p->base[r.row] + r.off;
    *rkey_p = p->rkey[r.row];
    return SHOAL_OK;
}

/* ---- the data path -------------------------------------------------------------- */

/* The functions of this part run under the lock; the transport's entry
 * points (ucx_put, ucx_get, ...) take it. */

/* A put (local -> remote) or get (remote -> local): blocking waits for local
 * completion; nbi only starts it. A put, or a get that quiet must complete,
 * counts as issued. */
shoal_status_t ucx_rma(ucx_t *u, int is_put, int pe, shoal_remote_t remote, void *local, size_t len,
                       int nbi)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status = ucx_remote(u, pe, remote, len, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;
    ucp_request_param_t param = {.op_attr_mask = 0};
    ucs_status_ptr_t req = is_put ? ucp_put_nbx(u->peers[pe].ep, local, len, raddr, rkey, &param)
                                  : ucp_get_nbx(u->peers[pe].ep, local, len, raddr, rkey, &param);
    const char *what = is_put ? "put" : "get";
    if (!is_put && nbi)
        return ucx_gets_add(u, req, pe);
    if (is_put)
        ucx_issued(u);
    return nbi ? ucx_started(u, req, what, pe) : ucx_wait(u, req, what, pe);
}

/* Starts a non-fetching atomic. UCX reads the operand until the operation
 * completes locally, so when it could not be sent at once (a request came
 * back) the call waits for that; the remote completion is quiet's. A SET
 * is a swap whose reply nobody reads. */
static shoal_status_t ucx_amo_post(ucx_t *u, int pe, uint64_t raddr, ucp_rkey_h rkey,
                                   ucp_atomic_op_t opcode, size_t size, uint64_t value)
{
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
        .datatype = ucp_dt_make_contig(size),
    };
    if (opcode == UCP_ATOMIC_OP_SWAP) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = &u->discard;
    }
    ucs_status_ptr_t req =
        ucp_atomic_op_nbx(u->peers[pe].ep, opcode, &value, 1, raddr, rkey, &param);
    if (req == NULL) {
        ucx_app_active(u);
        return SHOAL_OK;
    }
    return ucx_wait(u, req, "atomic", pe);
}

/* An atomic's operand or result: 4 or 8 bytes (the spec's AMO types), as
 * the low bytes of a 64-bit integer; fixed-size copies, no memcpy call. */
static inline uint64_t ucx_amo_load(const void *p, size_t size)
{
    if (size == sizeof(uint64_t)) {
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return v;
    }
    uint32_t v;
    memcpy(&v, p, sizeof(v));
    return v;
}

static inline void ucx_amo_store(void *p, uint64_t v, size_t size)
{
    if (size == sizeof(uint64_t)) {
        memcpy(p, &v, sizeof(v));
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, sizeof(w));
    }
}

shoal_status_t ucx_amo_locked(ucx_t *u, int pe, shoal_remote_t dest, shoal_amo_op_t op, size_t size,
                              const void *operand, const void *compare, void *fetch_p)
{
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status = ucx_remote(u, pe, dest, size, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;

    /* Operand and reply, as `size`-byte integers at the start of each. */
    uint64_t value = 0, reply = 0;
    ucp_atomic_op_t opcode;
    if (operand != NULL)
        value = ucx_amo_load(operand, size);
    switch (op) {
    case SHOAL_AMO_SET:
        status = ucx_amo_post(u, pe, raddr, rkey, UCP_ATOMIC_OP_SWAP, size, value);
        ucx_issued(u);
        return status;
    case SHOAL_AMO_SYNC_ADD: /* not counted: its target polls for it */
        return ucx_sync_add_send(u, pe, dest, size, value);
    case SHOAL_AMO_ADD:
    case SHOAL_AMO_AND:
    case SHOAL_AMO_OR:
    case SHOAL_AMO_XOR:
        opcode = op == SHOAL_AMO_ADD   ? UCP_ATOMIC_OP_ADD
                 : op == SHOAL_AMO_AND ? UCP_ATOMIC_OP_AND
                 : op == SHOAL_AMO_OR  ? UCP_ATOMIC_OP_OR
                                       : UCP_ATOMIC_OP_XOR;
        status = ucx_amo_post(u, pe, raddr, rkey, opcode, size, value);
        ucx_issued(u);
        return status;
    case SHOAL_AMO_FETCH:
        opcode = UCP_ATOMIC_OP_OR;
        value = 0;
        break;
    case SHOAL_AMO_SWAP:
        opcode = UCP_ATOMIC_OP_SWAP;
        break;
    case SHOAL_AMO_CSWAP:
        /* UCX compares the remote value with `buffer` and stores the reply
         * buffer's value on a match. */
        opcode = UCP_ATOMIC_OP_CSWAP;
        reply = ucx_amo_load(operand, size);
        value = ucx_amo_load(compare, size);
        break;
    case SHOAL_AMO_FETCH_ADD:
        opcode = UCP_ATOMIC_OP_ADD;
        break;
    case SHOAL_AMO_FETCH_AND:
        opcode = UCP_ATOMIC_OP_AND;
        break;
    case SHOAL_AMO_FETCH_OR:
        opcode = UCP_ATOMIC_OP_OR;
        break;
    case SHOAL_AMO_FETCH_XOR:
        opcode = UCP_ATOMIC_OP_XOR;
        break;
    default:
        return ucx_fail(u, SHOAL_ERR_INVALID, "unknown atomic operation %d", (int)op);
    }
    ucp_request_param_t param = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
        .datatype = ucp_dt_make_contig(size),
        .reply_buffer = &reply,
    };
    ucs_status_ptr_t req =
        ucp_atomic_op_nbx(u->peers[pe].ep, opcode, &value, 1, raddr, rkey, &param);
    status = ucx_wait(u, req, "atomic", pe);
    if (status == SHOAL_OK)
        ucx_amo_store(fetch_p, reply, size);
    return status;
}

/* ---- the transport's entry points ------------------------------------------------ */

shoal_status_t ucx_put(shoal_transport_t *tr, int pe, shoal_remote_t dest, const void *source,
                       size_t len, int nbi)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_rma(u, 1, pe, dest, (void *)source, len, nbi);
    ucx_unlock(u);
    return status;
}

shoal_status_t ucx_get(shoal_transport_t *tr, int pe, void *dest, shoal_remote_t source, size_t len,
                       int nbi)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_rma(u, 0, pe, source, dest, len, nbi);
    ucx_unlock(u);
    return status;
}

shoal_status_t ucx_amo(shoal_transport_t *tr, int pe, shoal_remote_t dest, shoal_amo_op_t op,
                       size_t size, const void *operand, const void *compare, void *fetch_p)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_amo_locked(u, pe, dest, op, size, operand, compare, fetch_p);
    ucx_unlock(u);
    return status;
}
