/*
 * The slow part of waiting: yield, then sleep with a growing step.
 */
#include <sched.h>
#include <time.h>

#include "core/backoff.h"
#include "core/hang.h"
#include "util/env.h"

/* Set by shmem_init from SHOAL_WAIT_SPIN (or 0 when PEs outnumber CPUs). */
uint32_t shoal_wait_spin;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Waits serve other hosts' operations on this PE themselves: what this PE
 * waits for often depends on them, and the transport's progress thread
 * would need a CPU of its own to answer as fast. */
void shoal_backoff_net(void)
{
    shoal_net->ops->progress(shoal_net);
}

void shoal_backoff_slow(shoal_backoff_t *b)
{
    /* A PE that serves other hosts keeps polling (yielding) rather than
     * sleeping: waking from a sleep adds ~20 us to each of their requests. */
    if (shoal_net != NULL && shoal_net->ops->progress(shoal_net) != 0)
        b->yield_start_ns = b->sleep_ns = 0;
    if (b->yield_start_ns == 0) {
        b->yield_start_ns = now_ns();
        if (b->what != NULL && !b->recorded) { /* from now on a hang report shows it */
            shoal_hang_enter(b->what, b->yield_start_ns);
            b->recorded = 1;
        }
    }
    if (b->sleep_ns == 0) {
        if ((b->polls & 63) != 0 ||
            now_ns() - b->yield_start_ns < (uint64_t)shoal_env.wait_yield_us * 1000u) {
            sched_yield();
            return;
        }
        b->sleep_ns = 1000;
    }
    if (shoal_net != NULL) {
        /* Woken early by the network; after serving a request, poll again. */
        if (shoal_net->ops->sleep(shoal_net, b->sleep_ns) != 0) {
            b->yield_start_ns = now_ns();
            b->sleep_ns = 0;
            return;
        }
    } else {
        struct timespec ts = {0, (long)b->sleep_ns};
        nanosleep(&ts, NULL);
    }
    uint32_t max_ns = shoal_env.wait_sleep_us * 1000u;
    b->sleep_ns = b->sleep_ns * 2 > max_ns ? (max_ns ? max_ns : 1000) : b->sleep_ns * 2;
}
