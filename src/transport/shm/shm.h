/*
 * The intra-node transport: PEs on one host map each other's segments, so
 * RMA and atomics to them are plain loads, stores and CPU atomics through a
 * translated pointer. This module only sets up and tears down the mappings;
 * the data path is the lookup in core/peer.h.
 */
#ifndef SHOAL_TRANSPORT_SHM_H
#define SHOAL_TRANSPORT_SHM_H

#include "bootstrap/bootstrap.h"
#include "mem/route_build.h"
#include "mem/segment.h"

/* Publishes where `segs` (one per route row; fd -1 where absent) can be
 * found, learns the same of every PE, and hooks the mapping of local peers
 * on first use into `rt` (rt->map_peer), whose rows for this PE are already
 * set. node[pe] is set to the lowest PE on pe's host, for every PE (PEs
 * with the same node map each other). `generation` distinguishes repeated
 * shmem_init calls. */
shoal_status_t shoal_shm_connect(shoal_bootstrap_t *bs, unsigned generation,
                                 const shoal_segment_t segs[SHOAL_ROUTE_ROWS], shoal_route_t *rt,
                                 int *node);
/* The pid local PE `pe` published at start-up; 0 when pe is on another
 * host (or is this PE). For checking who sent an fd (fdpass.h). */
int shoal_shm_local_pid(int pe);
/* Unmaps every peer mapping made since shoal_shm_connect. */
void shoal_shm_disconnect(shoal_bootstrap_t *bs, shoal_route_t *rt);

#endif
