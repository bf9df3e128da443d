/*
 * Start-up and tear-down of the network transport (net_setup.c). The data path
 * uses `shoal_net` (transport.h) and the route table's `net` flag.
 */
#ifndef SHOAL_TRANSPORT_NET_SETUP_H
#define SHOAL_TRANSPORT_NET_SETUP_H

#include "bootstrap/bootstrap.h"
#include "mem/route.h"
#include "transport/transport.h"

/* Collective. Starts a network transport when some PE's memory is not
 * mapped here, registers every row of `rt` with it and sets rt->net; with
 * every PE mapped it does nothing. */
shoal_status_t shoal_net_open(shoal_bootstrap_t *bs, unsigned generation, shoal_route_t *rt,
                              const int *node);

/* The calling thread is about to block in the bootstrap while peers may
 * still need this PE (transport.h, `idle`). */
static inline void shoal_net_idle(void)
{
    if (shoal_net != NULL)
        shoal_transport_idle(shoal_net);
}

/* Collective. Completes, disconnects and frees the transport, if any. */
void shoal_net_close(shoal_route_t *rt);

#endif
