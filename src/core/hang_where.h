/*
 * Naming the addresses a hang record holds (core/hang_report.c's helper).
 * A record's address is its owning PE's; it is placed in a route row
 * through the owner's published row bases (the same row lookup as the data
 * path's, mem/route.h), then named in this process, which runs the same
 * executable with the same heap layout: a global's symbol, or the heap
 * offset and the allocation around it. Values are read through this PE's
 * mapping of the owner's copy.
 */
#ifndef SHOAL_CORE_HANG_WHERE_H
#define SHOAL_CORE_HANG_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "core/hang.h"

/* Where the owner's address is: row and offset, and the pointer at which
 * this process reads the owner's copy (NULL: not mapped here). */
typedef struct {
    int row; /* SHOAL_ROUTE_HEAP, SHOAL_ROUTE_GLOBALS, or -1: not symmetric */
    uint64_t off;
    const void *ptr;
} shoal_hang_where_t;

/* The `len` bytes at `addr` of PE `pe`, whose published state is `h`. */
shoal_hang_where_t shoal_hang_locate(int pe, const shoal_hang_pe_t *h, uint64_t addr, size_t len);

/* The pointer to the same place on PE `owner` (NULL: not mapped here). */
const void *shoal_hang_on_pe(const shoal_hang_where_t *w, int owner);

/* A short name: "flag", "counts+8", or `fallback` ("ivar", "heap+4160"). */
void shoal_hang_short_name(const shoal_hang_where_t *w, const char *fallback, char *out,
                           size_t cap);

/* What the address is, in full ("global 'flag' + 8 bytes", "symmetric heap
 * offset 64, in the allocation of ..."). */
void shoal_hang_describe(const shoal_hang_where_t *w, uint64_t addr, char *out, size_t cap);

/* Reads a `size`-byte integer at p (relaxed), sign-extended when
 * `is_signed`: 0, or -1 when p is NULL. */
int shoal_hang_read_value(const void *p, unsigned size, int is_signed, uint64_t *v_p);

#endif
