/*
 * The UCX transport's active messages, applied by the target to its own
 * memory: synchronization adds (barrier counters), which need no answer,
 * and puts with a signal.
 *
 * A put with a signal to another host is one message: the data and the
 * signal's (row, offset, value, operation) in the header. The target copies
 * the data, then updates the signal, so a PE that sees the signal sees the
 * data. As UCP RMA and atomics it was the put, a fence and the atomic: over
 * TCP, UCX emulates both in software and answers each with a completion
 * message, and its fence waits for the put's answer first (a round trip per
 * signal). Quiet must still complete it at the target, which a flush does
 * not do for an active message (it completes when sent), so the target
 * acknowledges what it applied: a running count per sender, sent after the
 * progress call that handled them (several puts, one acknowledgement), and
 * quiet waits until the count reaches what was sent. Puts larger than
 * UCX_PS_AM_MAX, and those whose source or target is GPU memory, take the
 * RMA path.
 */
#include <stdlib.h>
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

/* A put with a signal: the header; the data follows as the message's data. */
#define UCX_AM_PUT_SIGNAL 1
/* An acknowledgement of puts with a signal: a ucx_peer_t.ps_ack. */
#define UCX_AM_PUT_SIGNAL_ACK 2

/* The largest put with a signal sent as one active message (eager: the
 * target finds the data in the message). */
#define UCX_PS_AM_MAX 8192u

typedef struct {
    uint64_t off;     /* the data's, in `row` */
    uint64_t sig_off; /* the signal word's, in `sig_row` */
    uint64_t signal;
    uint32_t row;
    uint32_t sig_row;
    uint32_t sig_op; /* SHOAL_AMO_SET or SHOAL_AMO_ADD */
    int32_t src;     /* the sender's PE, acknowledged */
} ucx_put_signal_msg_t;

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

/* ---- puts with a signal ------------------------------------------------------ */

/* 1 when [p, p + len) lies in one of this PE's GPU-memory rows. */
static int ucx_in_device_row(const ucx_t *u, const void *p, size_t len)
{
    for (unsigned r = 0; r < SHOAL_ROUTE_ROWS; r++)
        if (u->dev_size[r] != 0 && (uintptr_t)p - u->dev_base[r] < u->dev_size[r])
            return 1;
    (void)len;
    return 0;
}

/* Sends the put with its signal as one active message (under the lock).
 * Returns SHOAL_ERR_UNSUPPORTED, having sent nothing, when it cannot go so. */
static shoal_status_t ucx_put_signal_am(ucx_t *u, int pe, shoal_remote_t dest, const void *source,
                                        size_t len, shoal_remote_t sig, uint64_t signal,
                                        shoal_amo_op_t sig_op, int nbi)
{
    ucx_peer_t *p = &u->peers[pe];
    if (len > UCX_PS_AM_MAX || p->ep == NULL ||
        (sig_op != SHOAL_AMO_SET && sig_op != SHOAL_AMO_ADD))
        return SHOAL_ERR_UNSUPPORTED;
    if (sig.row >= SHOAL_ROUTE_ROWS || dest.row >= SHOAL_ROUTE_ROWS || !p->host[sig.row] ||
        (len > 0 && !p->host[dest.row]) ||
        (u->ndev_rows != 0 && len > 0 && ucx_in_device_row(u, source, len)))
        return SHOAL_ERR_UNSUPPORTED;
    /* The same checks as RMA's, so an access out of range fails here. */
    uint64_t raddr;
    ucp_rkey_h rkey;
    shoal_status_t status = ucx_remote(u, pe, sig, sizeof(uint64_t), &raddr, &rkey);
    if (status == SHOAL_OK && len > 0)
        status = ucx_remote(u, pe, dest, len, &raddr, &rkey);
    if (status != SHOAL_OK)
        return status;
    const ucx_put_signal_msg_t msg = {.off = dest.off,
                                      .sig_off = sig.off,
                                      .signal = signal,
                                      .row = dest.row,
                                      .sig_row = sig.row,
                                      .sig_op = (uint32_t)sig_op,
                                      .src = u->bs->rank};
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                 .flags = UCP_AM_SEND_FLAG_EAGER};
    ucs_status_ptr_t req =
        ucp_am_send_nbx(p->ep, UCX_AM_PUT_SIGNAL, &msg, sizeof(msg), source, len, &param);
    if (!UCS_PTR_IS_ERR(req))
        __atomic_store_n(&u->ps_sent, u->ps_sent + 1, __ATOMIC_RELEASE);
    if (req == NULL) {
        ucx_app_active(u);
        return SHOAL_OK; /* sent: the header and the source were copied */
    }
    /* UCX reads the header (on this stack) and the source until the send
     * completes locally: blocking or not, wait for that. */
    (void)nbi;
    return ucx_wait(u, req, "put with signal", pe);
}

/* Runs in whichever thread progresses the worker: the data, then the
 * signal; the sender is owed an acknowledgement (ucx_ps_ack_send). */
static ucs_status_t ucx_put_signal_recv(void *arg, const void *header, size_t header_length,
                                        void *data, size_t length, const ucp_am_recv_param_t *param)
{
    ucx_t *u = arg;
    ucx_put_signal_msg_t msg;
    if (header_length != sizeof(msg)) {
        SHOAL_ERROR("dropped a UCX put-with-signal message with a %zu-byte header (expected %zu)",
                    header_length, sizeof(msg));
        return UCS_OK;
    }
    memcpy(&msg, header, sizeof(msg));
    uint64_t dsize =
        msg.row < SHOAL_ROUTE_ROWS ? __atomic_load_n(&u->self_size[msg.row], __ATOMIC_ACQUIRE) : 0;
    uint64_t ssize = msg.sig_row < SHOAL_ROUTE_ROWS
                         ? __atomic_load_n(&u->self_size[msg.sig_row], __ATOMIC_ACQUIRE)
                         : 0;
    if (msg.src < 0 || msg.src >= u->npes || u->peers[msg.src].ep == NULL ||
        (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 ||
        (length > 0 && (msg.off > dsize || length > dsize - msg.off)) || msg.sig_off % 8 ||
        msg.sig_off + 8 > ssize) {
        SHOAL_ERROR("dropped a UCX put-with-signal message from PE %d (%zu bytes to row %u "
                    "offset %llu, signal at row %u offset %llu): not in this PE's registered "
                    "host memory",
                    msg.src, length, msg.row, (unsigned long long)msg.off, msg.sig_row,
                    (unsigned long long)msg.sig_off);
        return UCS_OK;
    }
    if (length > 0)
        memcpy((char *)(uintptr_t)u->self_base[msg.row] + msg.off, data, length);
    uint64_t *word = (uint64_t *)((char *)(uintptr_t)u->self_base[msg.sig_row] + msg.sig_off);
    if (msg.sig_op == SHOAL_AMO_ADD)
        __atomic_fetch_add(word, msg.signal, __ATOMIC_SEQ_CST); /* after the data */
    else
        __atomic_store_n(word, msg.signal, __ATOMIC_SEQ_CST);
    ucx_peer_t *p = &u->peers[msg.src];
    p->ps_applied++;
    if (!p->ps_ack_queued && u->ps_ack_queue != NULL) {
        p->ps_ack_queued = 1;
        u->ps_ack_queue[u->ps_ack_nqueued++] = msg.src;
    }
    return UCS_OK;
}

void ucx_ps_ack_send(ucx_t *u)
{
    for (int i = 0; i < u->ps_ack_nqueued; i++) {
        ucx_peer_t *p = &u->peers[u->ps_ack_queue[i]];
        p->ps_ack_queued = 0;
        if (p->ep == NULL)
            continue; /* closed: its PE is past finalize's quiet */
        /* The running count: an acknowledgement still being sent may go
         * with the newer count, which says no less. */
        p->ps_ack.count = p->ps_applied;
        p->ps_ack.pe = u->bs->rank;
        ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                     .flags = UCP_AM_SEND_FLAG_EAGER};
        ucs_status_ptr_t req = ucp_am_send_nbx(p->ep, UCX_AM_PUT_SIGNAL_ACK, &p->ps_ack,
                                               sizeof(p->ps_ack), NULL, 0, &param);
        if (UCS_PTR_IS_ERR(req))
            SHOAL_DEBUG("acknowledging puts with a signal to PE %d failed: %s", p->pe,
                        ucs_status_string(UCS_PTR_STATUS(req)));
        else if (req != NULL)
            ucp_request_free(req);
    }
    u->ps_ack_nqueued = 0;
}

static ucs_status_t ucx_put_signal_ack_recv(void *arg, const void *header, size_t header_length,
                                            void *data, size_t length,
                                            const ucp_am_recv_param_t *param)
{
    ucx_t *u = arg;
    ucx_peer_t ack;
    (void)data;
    (void)length;
    (void)param;
    if (header_length != sizeof(ack.ps_ack)) {
        SHOAL_ERROR("dropped a UCX acknowledgement of %zu bytes (expected %zu)", header_length,
                    sizeof(ack.ps_ack));
        return UCS_OK;
    }
    memcpy(&ack.ps_ack, header, sizeof(ack.ps_ack));
    if (ack.ps_ack.pe < 0 || ack.ps_ack.pe >= u->npes) {
        SHOAL_ERROR("dropped a UCX acknowledgement from PE %d", (int)ack.ps_ack.pe);
        return UCS_OK;
    }
    ucx_peer_t *p = &u->peers[ack.ps_ack.pe];
    if (ack.ps_ack.count > p->ps_acked) {
        __atomic_store_n(&u->ps_acked, u->ps_acked + (ack.ps_ack.count - p->ps_acked),
                         __ATOMIC_RELEASE);
        p->ps_acked = ack.ps_ack.count;
    }
    return UCS_OK;
}

/* The data and the signal in one active message when they fit
 * (ucx_put_signal_am); otherwise the data, a fence (UCX: operations issued
 * on the worker before it complete before those issued after, on each
 * endpoint), then the signal as a non-fetching atomic. */
shoal_status_t ucx_put_signal(shoal_transport_t *tr, int pe, shoal_remote_t dest,
                              const void *source, size_t len, shoal_remote_t sig, uint64_t signal,
                              shoal_amo_op_t sig_op, int nbi)
{
    ucx_t *u = tr->priv;
    ucx_lock(u);
    shoal_status_t status = ucx_put_signal_am(u, pe, dest, source, len, sig, signal, sig_op, nbi);
    if (status == SHOAL_ERR_UNSUPPORTED) {
        status = len > 0 ? ucx_rma(u, 1, pe, dest, (void *)source, len, nbi) : SHOAL_OK;
        if (status == SHOAL_OK) {
            ucs_status_t st = ucp_worker_fence(u->worker);
            if (st != UCS_OK)
                status =
                    ucx_fail(u, SHOAL_ERR_IO, "UCX fence before the signal to PE %d failed: %s", pe,
                             ucs_status_string(st));
        }
        if (status == SHOAL_OK)
            status = ucx_amo_locked(u, pe, sig, sig_op, sizeof(uint64_t), &signal, NULL, NULL);
    }
    ucx_unlock(u);
    return status;
}

/* ---- handlers ------------------------------------------------------------------- */

shoal_status_t ucx_am_handlers_set(ucx_t *u)
{
    static const struct {
        unsigned id;
        ucp_am_recv_callback_t cb;
    } handlers[] = {
        {UCX_AM_SYNC_ADD, ucx_sync_add_recv},
        {UCX_AM_PUT_SIGNAL, ucx_put_signal_recv},
        {UCX_AM_PUT_SIGNAL_ACK, ucx_put_signal_ack_recv},
    };
    u->ps_ack_queue = calloc((size_t)u->npes, sizeof(*u->ps_ack_queue));
    if (u->ps_ack_queue == NULL)
        return SHOAL_ERR_NOMEM;
    for (size_t i = 0; i < sizeof(handlers) / sizeof(handlers[0]); i++) {
        ucp_am_handler_param_t am = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                          UCP_AM_HANDLER_PARAM_FIELD_ARG,
            .id = handlers[i].id,
            .cb = handlers[i].cb,
            .arg = u,
        };
        ucs_status_t st = ucp_worker_set_am_recv_handler(u->worker, &am);
        if (st != UCS_OK) {
            SHOAL_ERROR("ucp_worker_set_am_recv_handler failed: %s", ucs_status_string(st));
            return SHOAL_ERR_SYSTEM;
        }
    }
    return SHOAL_OK;
}
