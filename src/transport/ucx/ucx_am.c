/*
 * The UCX transport's active messages, applied by the target to its own
 * memory: synchronization adds (barrier counters), which need no answer.
 */
#include <string.h>

#include "transport/ucx/ucx_internal.h"

/* A synchronization add: (row, offset, value) in the header of an active
 * message, applied by the target itself (ucx_sync_add_recv). */
#define UCX_AM_SYNC_ADD 0

typedef struct {
    uint64_t off;
    uint64_t value;
    uint32_t row;
    uint32_t size;
} ucx_sync_add_msg_t;

shoal_status_t ucx_sync_add_send(ucx_t *u, int pe, shoal_remote_t dest, size_t size, uint64_t value)
{
    const ucx_sync_add_msg_t msg = {
        .off = dest.off, .value = value, .row = dest.row, .size = (uint32_t)size};
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = UCP_AM_SEND_FLAG_EAGER};
    ucs_status_ptr_t req =
        ucp_am_send_nbx(u->peers[pe].ep, UCX_AM_SYNC_ADD, &msg, sizeof(msg), NULL, 0, &param);
    if (req == NULL) {
        ucx_app_active(u);
        return SHOAL_OK;
    }
    /* UCX reads the header (on this stack) until the send completes locally. */
    return ucx_wait(u, req, "synchronization add", pe);
}

/* Runs in whichever thread progresses the worker. A malformed message is
 * a bug in a peer's library, not the user's: it is logged and dropped. */
static ucs_status_t ucx_sync_add_recv(void *arg, const void *header, size_t header_length,
                                      void *data, size_t length, const ucp_am_recv_param_t *param)
{
    ucx_t *u = arg;
    ucx_sync_add_msg_t msg;
    (void)data;
    (void)length;
    (void)param;
    if (header_length != sizeof(msg)) {
        SHOAL_ERROR("dropped a UCX synchronization message of %zu bytes (expected %zu)",
                    header_length, sizeof(msg));
        return UCS_OK;
    }
    memcpy(&msg, header, sizeof(msg));
    if (msg.row >= SHOAL_ROUTE_ROWS || (msg.size != 4 && msg.size != 8) || msg.off % msg.size ||
        msg.off + msg.size > __atomic_load_n(&u->self_size[msg.row], __ATOMIC_ACQUIRE)) {
        SHOAL_ERROR("dropped a UCX synchronization add to row %u offset %llu (%u bytes): not in "
                    "this PE's registered host memory",
                    msg.row, (unsigned long long)msg.off, msg.size);
        return UCS_OK;
    }
    void *word = (char *)(uintptr_t)u->self_base[msg.row] + msg.off;
    if (msg.size == 8)
        __atomic_fetch_add((uint64_t *)word, msg.value, __ATOMIC_SEQ_CST);
    else
        __atomic_fetch_add((uint32_t *)word, (uint32_t)msg.value, __ATOMIC_SEQ_CST);
    return UCS_OK;
}

shoal_status_t ucx_am_handlers_set(ucx_t *u)
{
    ucp_am_handler_param_t am = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
        .id = UCX_AM_SYNC_ADD,
        .cb = ucx_sync_add_recv,
        .arg = u,
    };
    ucs_status_t st = ucp_worker_set_am_recv_handler(u->worker, &am);
    if (st != UCS_OK) {
        SHOAL_ERROR("ucp_worker_set_am_recv_handler failed: %s", ucs_status_string(st));
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}
