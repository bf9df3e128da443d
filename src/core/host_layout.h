/*
 * How a PE set lies over hosts: the question collectives ask before they
 * choose an algorithm ("does this set span hosts, who leads each host").
 * Answered from the host map made at start-up, once per distinct set, and
 * kept until shmem_finalize.
 */
#ifndef SHOAL_CORE_HOST_LAYOUT_H
#define SHOAL_CORE_HOST_LAYOUT_H

#include "core/team.h"

typedef struct {
    int nhosts;   /* hosts the set spans (1 on a one-host job) */
    int my_host;  /* this PE's host, counted in leader order */
    int leader;   /* set index of this host's leader (local[0]) */
    int nlocal;   /* members on this host */
    int *local;   /* [nlocal] their set indices, ascending */
    int *leaders; /* [nhosts] set index of each host's leader, ascending */
} shoal_hosts_t;

/* The hosts of `set` (this PE must be a member). Thread-safe; the answer
 * stays valid until finalize. */
const shoal_hosts_t *shoal_hosts_of(const char *fn, const shoal_peset_t *set);

/* Whether world PEs a and b are on the same host. */
static inline int shoal_same_host(int a, int b)
{
    return shoal.node[a] == shoal.node[b];
}

/* Frees every cached answer (finalize). */
void shoal_hosts_finalize(void);

#endif
