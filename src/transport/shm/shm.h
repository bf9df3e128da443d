/*
 * The intra-node transport: PEs on one host map each other's segments, so
 * RMA and atomics to them are plain loads, stores and CPU atomics through a
 * translated pointer. This module only sets up and tears down the mappings;
 * the data path is the lookup in core/peer.h.
 */
#ifndef SHOAL_TRANSPORT_SHM_H
#define SHOAL_TRANSPORT_SHM_H

#include "bootstrap/bootstrap.h"
#include "mem/segment.h"

/* Where this PE sees each peer's segments; NULL where it has no mapping. */
typedef struct {
    char *base[SHOAL_SEGMENT_COUNT];
    size_t size[SHOAL_SEGMENT_COUNT];
} shoal_shm_peer_t;

/* Exchanges segment fds with the PEs on this host and maps theirs into
 * peers[0..npes-1]. node[pe] is set to the lowest PE on pe's host, for
 * every PE (PEs with the same node map each other). `generation` distinguishes repeated shmem_init calls. */
shoal_status_t shoal_shm_connect(shoal_bootstrap_t *bs, unsigned generation,
                                 const shoal_segment_t segs[SHOAL_SEGMENT_COUNT],
                                 shoal_shm_peer_t *peers, int *node);
/* Unmaps every peer mapping made by shoal_shm_connect. */
void shoal_shm_disconnect(shoal_bootstrap_t *bs, shoal_shm_peer_t *peers);

#endif
