/*
 * Which host this process is on, as the PEs compare it: PEs with equal
 * identities share memory (and count as local to each other).
 */
#ifndef SHOAL_UTIL_HOST_IDENTITY_H
#define SHOAL_UTIL_HOST_IDENTITY_H

#include <stddef.h>

/* "hostname|boot id|network namespace" (a boot or a network namespace of its
 * own is another host: memory cannot be shared, nor a socket reached), or
 * "node:NAME" when SHOAL_NODE=NAME replaces it (tests split one machine into
 * pretend hosts that way). */
void shoal_host_identity(char *out, size_t size);

/* The identity as people read it in a message: "host, net:[N]" (the boot id
 * left out), or the identity itself when it has another form. */
void shoal_host_label(const char *identity, char *out, size_t size);

#endif
