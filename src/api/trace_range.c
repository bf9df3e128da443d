/*
 * The trace's user ranges and the binding's caller names (shmemx.h):
 * argument-free forwards to the tracer in core/trace.c.
 */
#include <shmemx.h>

#include "api/api.h"

SHOAL_API_DEF(void, shmemx_trace_begin)(const char *name)
{
    shoal_trace_range_begin(SHOAL_FN, name);
}

SHOAL_API_DEF(void, shmemx_trace_end)(const char *name)
{
    shoal_trace_range_end(SHOAL_FN, name);
}

SHOAL_API_DEF(void, shmemx_trace_caller)(const char *name)
{
    shoal_trace_set_caller(name);
}
