/*
 * The UCX transport's failures: the last one in words (strerror), and the
 * endpoints' error handler, which marks a peer failed so that nothing to it
 * completes as if well.
 */
#include <stdarg.h>
#include <stdio.h>

#include "transport/ucx/ucx_internal.h"

shoal_status_t ucx_fail(ucx_t *u, shoal_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->error, sizeof(u->error), fmt, ap);
    va_end(ap);
    return status;
}

const char *ucx_strerror(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    return u->error[0] ? u->error : "no error recorded";
}

/* An endpoint failed (the peer died, its host went away): what was in
 * flight to it will never complete, and the next quiet, fence or blocking
 * call must say so rather than return as if complete. */
void ucx_ep_failed(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    ucx_peer_t *p = arg;
    p->failed = 1;
    /* A timeout is a peer that stopped answering, not one that closed. */
    const char *why =
        st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_TIMED_OUT || st == UCS_ERR_UNREACHABLE
            ? " (its host is unreachable: down, or the network link to it is cut)"
            : "";
    ucx_fail(p->u, SHOAL_ERR_IO, "the UCX connection to PE %d failed: %s%s", p->pe,
             ucs_status_string(st), why);
    __atomic_store_n(&p->u->failed, 1, __ATOMIC_RELEASE);
}
