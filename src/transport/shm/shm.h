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
/* A row added at run time (core/mem_rows.c): local PE `pe` published `fd`
 * (its number there, -1: none) with inode `ino` for `row`, which is mapped
 * on first use as the start-up rows are; `base` is the row's address in that
 * PE: a segment's memfd starts with the row; a registered buffer's memfd
 * (mem/share_pages.c) holds it at the file offset of its page.
 * Ignored for PEs of other hosts. */
void shoal_shm_row_set(int pe, unsigned row, int fd, uint64_t ino, uint64_t base);
/* A row removed at run time: unmaps every peer's copy of `row` mapped here
 * and forgets their fds; this PE's own entry is left to the caller. */
void shoal_shm_row_unmap(shoal_route_t *rt, unsigned row);
/* The pid local PE `pe` published at start-up; 0 when pe is on another
 * host (or is this PE). For checking who sent an fd (fdpass.h). */
int shoal_shm_local_pid(int pe);
/* Unmaps every peer mapping made since shoal_shm_connect. */
void shoal_shm_disconnect(shoal_bootstrap_t *bs, shoal_route_t *rt);

#endif
