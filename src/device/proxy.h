/*
 * The device proxy: kernels reach PEs of other hosts through it.
 *
 * A device operation whose target this GPU cannot map (a PE of another
 * host) is written by the kernel into this PE's ring (<shmemx_device_proxy.h>:
 * fixed-size slots in host memory registered with CUDA, a ticket counter,
 * a ready word per slot as the doorbell). One proxy thread per PE drains
 * the ring in ticket order and issues each request through the network
 * transport (transport/transport.h): put, get, put with signal, atomics
 * (fetching ones hand their result back in the slot), fence and quiet.
 *
 * The other hosts' device heaps are not registered with the network (a
 * network card reaches host memory only, here), so a request aimed at one
 * is relayed: this proxy writes it, with its data, into the target PE's
 * inbox (the same ring form, in the target's host symmetric heap, filled
 * over the network: a fetch-add for the ticket, one put-with-signal for the
 * slot and its ready word), and the target's proxy carries it out on its
 * own device heap with a copy, then frees the slot or marks it done for
 * the origin to read.
 *
 * Ordering and completion (docs/device.md): requests are carried out in
 * the order of their tickets; a put-with-signal is one transport call (or
 * one relayed request), so the signal follows its data; a device quiet is
 * a request too, and it is done only when the transport's quiet returned
 * and every relayed request has been carried out by its target's proxy.
 */
#ifndef SHOAL_DEVICE_PROXY_H
#define SHOAL_DEVICE_PROXY_H

#include <stddef.h>

#include <shmemx_device_proxy.h>

#include "bootstrap/bootstrap.h"
#include "mem/route.h"
#include "util/status.h"

typedef struct {
    shoal_bootstrap_t *bs;
    shoal_route_t *rt;
    const int *node; /* [npes]: lowest PE of each PE's host */
    void *inbox;     /* shoal_proxy_inbox_bytes() of host symmetric heap, zeroed */
} shoal_proxy_job_t;

/* Bytes of host symmetric heap the inbox takes (the same on every PE). */
size_t shoal_proxy_inbox_bytes(void);

/* Local: makes this PE's ring, registers it with CUDA and starts the proxy
 * thread. The inbox must be initialized on every PE before any PE uses its
 * view (the caller synchronizes). On success *ring_dev is the ring as the
 * GPU addresses it; on failure the cause is written to msg. */
shoal_status_t shoal_proxy_start(const shoal_proxy_job_t *job, const char *fn,
                                 struct shmemx_dev_proxy_ring **ring_dev, char *msg, size_t msglen);

/* Waits until every request kernels made so far is complete (at
 * shmem_finalize, before its barrier: other PEs' relays still get served). */
void shoal_proxy_quiesce(void);

/* Stops the proxy thread and undoes the ring (after the finalize barrier,
 * before the network transport closes). */
void shoal_proxy_stop(void);

#endif
