/*
 * The deprecated active-set description (PE_start, logPE_stride, PE_size).
 */
#include "coll/coll.h"
#include "core/error.h"

shoal_peset_t shoal_active_set(const char *fn, int PE_start, int logPE_stride, int PE_size)
{
    SHOAL_REQUIRE_INIT(fn);
    if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1)
        shoal_fatal("%s: active set (PE_start %d, logPE_stride %d, PE_size %d) is malformed",
                    fn, PE_start, logPE_stride, PE_size);
    const long stride = 1L << logPE_stride;
    const long last = PE_start + stride * (PE_size - 1);
    if (last >= SHOAL_NPES)
        shoal_fatal("%s: active set (PE_start %d, logPE_stride %d, PE_size %d) reaches PE %ld; "
                    "the job has %d PEs",
                    fn, PE_start, logPE_stride, PE_size, last, SHOAL_NPES);
    const long offset = SHOAL_MY_PE - PE_start;
    if (offset < 0 || offset % stride != 0 || offset / stride >= PE_size)
        shoal_fatal("%s: PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                    "%d) it was called with",
                    fn, SHOAL_MY_PE, PE_start, logPE_stride, PE_size);
    return (shoal_peset_t){PE_start, (int)stride, PE_size, (int)(offset / stride)};
}
