/*
 * The name of a variable from its address: the dynamic symbol table
 * (dladdr) first, then the main program's full symbol table (.symtab, read
 * once from /proc/self/exe), which also holds the globals and statics a
 * program does not export. Used by diagnostics only; not async-signal-safe.
 */
#ifndef SHOAL_UTIL_SYMBOL_H
#define SHOAL_UTIL_SYMBOL_H

#include <stddef.h>
#include <stdint.h>

/* Writes the name of the data object holding `addr` to name (cap bytes) and
 * the byte offset of addr in it to *off_p; returns 0, or -1 when no symbol
 * covers it (a stripped program, or not a global). */
int shoal_symbol_of(const void *addr, char *name, size_t cap, size_t *off_p);

/* The same for link-time address `vaddr` of the ELF executable `path`, from
 * its .symtab alone (for a merge of trace files after the program ended:
 * shoal-trace). The last file's table is kept for the next call. */
int shoal_symbol_in_file(const char *path, uint64_t vaddr, char *name, size_t cap, size_t *off_p);

#endif
