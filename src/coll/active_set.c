/*
 * The deprecated active-set description (PE_start, logPE_stride, PE_size).
 */
#include <pthread.h>

#include "coll/coll.h"
#include "core/error.h"
#include "util/env.h"
#include "util/log.h"

/* Call sites already warned about a PE outside the active set. Past the last
 * slot, further call sites are not warned about (said once). */
#define SHOAL_ACTIVE_SET_WARN_SITES 64
static const void *warned_sites[SHOAL_ACTIVE_SET_WARN_SITES];
static int nwarned;
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 the first time `caller` is seen, 0 after. */
static int first_at_site(const void *caller, int *full_p)
{
    int first = 1;
    *full_p = 0;
    pthread_mutex_lock(&warned_lock);
    for (int i = 0; i < nwarned && first; i++)
        if (warned_sites[i] == caller)
            first = 0;
    if (first) {
        if (nwarned < SHOAL_ACTIVE_SET_WARN_SITES) {
            warned_sites[nwarned++] = caller;
            *full_p = nwarned == SHOAL_ACTIVE_SET_WARN_SITES;
        } else {
            first = 0;
        }
    }
    pthread_mutex_unlock(&warned_lock);
    return first;
}

int shoal_active_set(const char *fn, int PE_start, int logPE_stride, int PE_size,
                     const void *caller, shoal_peset_t *set_p)
{
    SHOAL_REQUIRE_INIT(fn);
    if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1)
        shoal_fatal("%s: active set (PE_start %d, logPE_stride %d, PE_size %d) is malformed", fn,
                    PE_start, logPE_stride, PE_size);
    const long stride = 1L << logPE_stride;
    const long last = PE_start + stride * (PE_size - 1);
    if (last >= SHOAL_NPES)
        shoal_fatal("%s: active set (PE_start %d, logPE_stride %d, PE_size %d) reaches PE %ld; "
                    "the job has %d PEs",
                    fn, PE_start, logPE_stride, PE_size, last, SHOAL_NPES);
    const long offset = SHOAL_MY_PE - PE_start;
    if (offset < 0 || offset % stride != 0 || offset / stride >= PE_size) {
        if (shoal_env.debug)
            shoal_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                        "PE_size %d) it was called with (SHMEM_DEBUG makes this fatal)",
                        fn, SHOAL_MY_PE, PE_start, logPE_stride, PE_size);
        int full;
        if (first_at_site(caller, &full))
            SHOAL_WARN("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                       "PE_size %d) it was called with; returning at once (called from %p; "
                       "warned once per call site%s); call it only on the set's PEs, or set "
                       "SHMEM_DEBUG=1 to make this an error",
                       fn, SHOAL_MY_PE, PE_start, logPE_stride, PE_size, caller,
                       full ? ", no more call sites will be reported" : "");
        return 0;
    }
    *set_p = (shoal_peset_t){PE_start, (int)stride, PE_size, (int)(offset / stride)};
    return 1;
}
