/*
 * Symmetric segments: a PE's host symmetric memory is a set of memfd-backed
 * regions (the heap, and the executable's data segment), each a row of the
 * route table (mem/route.h). Each is described by its local address, its
 * size and the memfd that peers map.
 */
#ifndef SHOAL_MEM_SEGMENT_H
#define SHOAL_MEM_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

typedef struct {
    char *base; /* address in this PE (NULL when the segment is absent) */
    size_t size;
    int fd; /* memfd, -1 when absent */
} shoal_segment_t;

/* Creates a memfd of `size` bytes mapped shared at a fresh address that is a
 * multiple of `align` (a power of two; 0 for the page size). */
shoal_status_t shoal_segment_create(const char *name, size_t size, size_t align,
                                    shoal_segment_t *seg_p);
void shoal_segment_destroy(shoal_segment_t *seg);

/* Maps a peer's segment (received as an fd) into this process. */
shoal_status_t shoal_segment_map_peer(int fd, size_t size, char **base_p);
void shoal_segment_unmap_peer(char *base, size_t size);

/* Remaps the executable's writable data (.data and .bss after RELRO) onto a
 * memfd so that peers can map it. Done once per process; later calls return
 * the same segment. */
shoal_status_t shoal_segment_globals(shoal_segment_t *seg_p);

#endif
