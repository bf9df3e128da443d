/*
 * The library's one monotonic clock, for timeouts, back-off and the times
 * that reports print. CLOCK_MONOTONIC is one clock for every process of a
 * machine, so a time one PE stores in shared memory means the same to its
 * host's other PEs.
 */
#ifndef SHOAL_UTIL_CLOCK_H
#define SHOAL_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds since an arbitrary start (the boot, on Linux). */
static inline uint64_t shoal_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The same clock in milliseconds, with the fraction (deadlines, phase times). */
static inline double shoal_clock_ms(void)
{
    return (double)shoal_clock_ns() / 1e6;
}

/* The next sleep of a wait that sleeps between polls: the step doubles
 * (from 1 us) up to `cap_ns`. With `grow` the cap rises with the time
 * already waited, to 1/64 of it and at most 1 ms: a wait of seconds (a PE
 * held at a barrier, a hung job, a cut network) then wakes about a
 * thousand times a second instead of twenty thousand, and ends late by
 * under 2% of its length. */
#define SHOAL_SLEEP_CAP_MAX_NS 1000000u
static inline uint32_t shoal_sleep_next(uint32_t step_ns, uint64_t waited_ns, uint32_t cap_ns,
                                        int grow)
{
    if (grow) {
        uint64_t share =
            waited_ns / 64 < SHOAL_SLEEP_CAP_MAX_NS ? waited_ns / 64 : SHOAL_SLEEP_CAP_MAX_NS;
        if (share > cap_ns)
            cap_ns = (uint32_t)share;
    }
    if (step_ns == 0)
        return 1000u < cap_ns || cap_ns == 0 ? 1000u : cap_ns;
    return step_ns * 2 > cap_ns ? (cap_ns ? cap_ns : 1000u) : step_ns * 2;
}

#endif
