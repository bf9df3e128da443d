/*
 * How a PE waits: spin briefly (lowest latency when a core is free), then
 * yield the CPU (so that, with more PEs than cores, the PE being waited for
 * runs), then sleep in short steps (so that a long wait costs no CPU). The
 * limits are settings (SHOAL_WAIT_*). Spinning is off when this host's PEs
 * outnumber the CPUs they may use together, and a wait stops spinning early
 * when another PE of the host last waited on its CPU.
 */
#ifndef SHOAL_CORE_BACKOFF_H
#define SHOAL_CORE_BACKOFF_H

#include <stdint.h>

#include "transport/transport.h"
#include "util/lock.h"

struct shoal_hang_what;

typedef struct {
    uint32_t polls;
    uint32_t sleep_ns;
    uint64_t yield_start_ns; /* 0 until yielding starts */
    /* What the wait is, for hang reports (core/hang.h): published when the
     * wait first yields, so a wait that ends while spinning costs nothing. */
    const struct shoal_hang_what *what;
    int recorded; /* published: the wait calls shoal_hang_leave when it ends */
} shoal_backoff_t;

#define SHOAL_BACKOFF_INIT                                                                         \
    {                                                                                              \
        0, 0, 0, NULL, 0                                                                           \
    }
#define SHOAL_BACKOFF_FOR(what_p)                                                                  \
    {                                                                                              \
        0, 0, 0, (what_p), 0                                                                       \
    }

/* Called after each unsuccessful poll. */
void shoal_backoff_slow(shoal_backoff_t *b);
/* Decides shoal_wait_spin for this job (shmem_init, once the PEs of this
 * host are known). */
void shoal_backoff_policy_init(void);
/* After this many polls a spinning wait checks whether another PE of this
 * host waits on its CPU (core/backoff.c). */
#define SHOAL_BACKOFF_SHARE_POLL 32
void shoal_backoff_share_check(shoal_backoff_t *b);
/* Serves other hosts' operations on this PE (a network transport is in use). */
void shoal_backoff_net(void);

extern uint32_t shoal_wait_spin;

static inline void shoal_backoff(shoal_backoff_t *b)
{
    if (__builtin_expect(b->polls++ < shoal_wait_spin, 1)) {
        /* What this PE waits for may need its answer to another host. */
        if (__builtin_expect(shoal_net != NULL, 0) && (b->polls & 15) == 0)
            shoal_backoff_net();
        if (__builtin_expect(b->polls == SHOAL_BACKOFF_SHARE_POLL, 0))
            shoal_backoff_share_check(b);
        shoal_cpu_relax();
        return;
    }
    shoal_backoff_slow(b);
}

#endif
