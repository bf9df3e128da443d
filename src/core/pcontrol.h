/*
 * The profiling level a program sets with shmem_pcontrol, kept in the
 * library state for Shoal's own tracing and profiling to honour. The
 * levels are the spec's recommendation:
 *   <= 0  profiling off
 *      1  on, at the default level of detail (the level until a program
 *         calls shmem_pcontrol, across re-initializations too)
 *      2  on, and flush the profile buffers now: each such call counts one
 *         flush request, so a tracer can notice every one
 *    > 2  on, with effects a profiling library defines through the extra
 *         arguments; Shoal treats it as 1 and ignores those arguments
 * A tool interposing shmem_pcontrol sees the call first and decides whether
 * to forward it to pshmem_pcontrol.
 */
#ifndef SHOAL_CORE_PCONTROL_H
#define SHOAL_CORE_PCONTROL_H

#include "core/state.h"

#define SHOAL_PCONTROL_OFF 0
#define SHOAL_PCONTROL_DEFAULT 1
#define SHOAL_PCONTROL_FLUSH 2

/* The level last set (any int, as given). */
static inline int shoal_pcontrol_level(void)
{
    return __atomic_load_n(&shoal.pcontrol_level, __ATOMIC_RELAXED);
}

/* Whether Shoal's profiling is on at this level. */
static inline int shoal_pcontrol_enabled(void)
{
    return shoal_pcontrol_level() > SHOAL_PCONTROL_OFF;
}

/* How many times a program asked for a flush (level 2). */
static inline unsigned shoal_pcontrol_flushes(void)
{
    return __atomic_load_n(&shoal.pcontrol_flushes, __ATOMIC_ACQUIRE);
}

static inline void shoal_pcontrol_set(int level)
{
    __atomic_store_n(&shoal.pcontrol_level, level, __ATOMIC_RELAXED);
    if (level == SHOAL_PCONTROL_FLUSH)
        __atomic_fetch_add(&shoal.pcontrol_flushes, 1, __ATOMIC_RELEASE);
}

#endif
