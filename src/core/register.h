/*
 * Buffers registered after the fact (shmemx_buffer_register): the
 * collective steps. Every PE passes a buffer of the same size (at an address
 * of its own); the buffer becomes a route row of its own, so RMA, AMO,
 * signals and collectives reach it by offset, until it is unregistered.
 */
#ifndef SHOAL_CORE_REGISTER_H
#define SHOAL_CORE_REGISTER_H

#include <stddef.h>

/* Collective over the world. 0 on every PE, or -1 on every PE after the PE
 * whose input was wrong said why (naming `fn`, the argument and the fix). */
int shoal_register_collective(const char *fn, void *ptr, size_t size);
int shoal_unregister_collective(const char *fn, void *ptr);

#endif
