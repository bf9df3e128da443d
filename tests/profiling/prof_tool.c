/*
 * A small profiling tool, as a tool vendor would write one against the
 * OpenSHMEM profiling interface: it defines the shmem_* routines of
 * counted.h, counts each call and forwards it to the pshmem_* twin. Built
 * as a shared library that a program links in front of libshoal or gets
 * through LD_PRELOAD. It knows nothing of Shoal beyond <pshmem.h>.
 */
#include <stdarg.h>

#include <pshmem.h>

#include "counted.h"

static long counts[PROF_NCOUNTED];

#define PROF_COUNT(NAME) __atomic_fetch_add(&counts[PROF_ID_##NAME], 1, __ATOMIC_RELAXED)

#define PROF_WRAP_VOID(NAME, PARAMS, ARGS)                                                         \
    void NAME PARAMS                                                                               \
    {                                                                                              \
        PROF_COUNT(NAME);                                                                          \
        p##NAME ARGS;                                                                              \
    }
#define PROF_WRAP_VALUE(RET, NAME, PARAMS, ARGS)                                                   \
    RET NAME PARAMS                                                                                \
    {                                                                                              \
        PROF_COUNT(NAME);                                                                          \
        return p##NAME ARGS;                                                                       \
    }
PROF_VOID(PROF_WRAP_VOID)
PROF_VALUE(PROF_WRAP_VALUE)

/* Shoal reads no extra arguments; a real tool would take its own here. */
void shmem_pcontrol(int level, ...)
{
    PROF_COUNT(shmem_pcontrol);
    pshmem_pcontrol(level);
}

__attribute__((visibility("default"))) const long *prof_tool_counts(void)
{
    return counts;
}
