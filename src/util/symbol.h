/*
 * The name of a variable from its address: the dynamic symbol table
 * (dladdr) first, then the main program's full symbol table (.symtab, read
 * once from /proc/self/exe), which also holds the globals and statics a
 * program does not export. Used by diagnostics only; not async-signal-safe.
 */
#ifndef SHOAL_UTIL_SYMBOL_H
#define SHOAL_UTIL_SYMBOL_H

#include <stddef.h>

/* Writes the name of the data object holding `addr` to name (cap bytes) and
 * the byte offset of addr in it to *off_p; returns 0, or -1 when no symbol
 * covers it (a stripped program, or not a global). */
int shoal_symbol_of(const void *addr, char *name, size_t cap, size_t *off_p);

#endif
