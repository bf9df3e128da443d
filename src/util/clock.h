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

#endif
