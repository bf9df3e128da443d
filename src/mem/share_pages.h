/*
 * Memory registered after the fact (shmemx_buffer_register): making a
 * program's own buffer mappable by the other PEs of its host, and giving it
 * back afterwards. This file knows memory only; the collective steps (the
 * agreement between PEs, the route row) are core's (core/register.c).
 *
 * Which memory is shared how:
 * - private anonymous memory (malloc, NumPy and torch CPU buffers, mmap
 *   MAP_PRIVATE|MAP_ANONYMOUS, the brk heap): zero-copy. The pages that hold
 *   the buffer are copied into the process's registration memfd (at the
 *   file offset equal to their address), which is then moved over the same
 *   addresses, so the buffer keeps its address and contents and peers map
 *   the memfd as they map the heap. Unsharing copies the pages no other
 *   registration holds back into fresh private anonymous memory at the same
 *   address. The bytes of those pages outside the buffer survive both ways,
 *   and buffers that share a page may both be registered.
 * - anything else (file-backed or already shared mappings, the stack, memory
 *   with no write permission): refused, naming the kind; there is no copy
 *   path. Copy such data into malloc'd memory first.
 *
 * Rule: no other thread may write the buffer's pages (the buffer and the
 * bytes that share its first and last pages) while they are shared or
 * unshared: a write that lands between the copy and the remap is lost.
 */
#ifndef SHOAL_MEM_SHARE_PAGES_H
#define SHOAL_MEM_SHARE_PAGES_H

#include <stddef.h>

#include "util/status.h"

typedef struct {
    char *page_lo;   /* the first page holding the buffer */
    size_t page_len; /* the pages holding it, in bytes */
    int fd;          /* the memfd behind those pages (the process's one, not
                      * owned), -1 when not shared */
} shoal_reg_pages_t;

/* Whether [ptr, ptr + size) is memory this file can share, without changing
 * anything: SHOAL_OK, or an error with a sentence naming the kind of memory
 * written into why (up to whylen bytes). */
shoal_status_t shoal_reg_pages_check(const void *ptr, size_t size, char *why, size_t whylen);

/* Moves the pages of [ptr, ptr + size) onto a fresh memfd, in place (see
 * the top of this file). `fn` names the call in messages. Checks first, as
 * shoal_reg_pages_check does. */
shoal_status_t shoal_reg_pages_share(const char *fn, void *ptr, size_t size,
                                     shoal_reg_pages_t *pages_p);

/* Puts the pages no other registration holds back into private anonymous
 * memory at the same address, with their contents; the last registration
 * gone closes the memfd (peers' mappings keep it alive until they unmap). */
shoal_status_t shoal_reg_pages_unshare(const char *fn, shoal_reg_pages_t *pages);

#endif
