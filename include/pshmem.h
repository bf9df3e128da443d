/*
 * The OpenSHMEM profiling interface (spec 1.5, "Profiling Interface"): every
 * routine of shmem.h and shmemx.h under a name shifted by a leading `p`
 * (pshmem_long_put, pshmemx_heap_info, and for the deprecated names
 * pstart_pes, p_my_pe, pshmalloc, ...). The plain names are weak aliases of
 * these in libshoal, so a tool library placed in front of it (linked before
 * it, or LD_PRELOADed) may define shmem_long_put, do its work and call
 * pshmem_long_put. Shoal never calls its own plain names, so a tool sees only
 * the program's calls.
 *
 * The declarations are the same lists that declare the plain names
 * (shmem/routines.h, shmem/routines_x.h), included again with SHMEM_FN
 * adding the prefix. The types and constants are those of shmem.h and
 * shmemx.h, included here. The C11 type-generic interfaces are macros over
 * the typed routines, so, as the spec says, they have no pshmem_ twins; a
 * tool sees the typed routine a generic call selects.
 */
#ifndef PSHMEM_H
#define PSHMEM_H

#include <shmem.h>
#include <shmemx.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_FN(name) p##name
#include <shmem/routines.h>
#include <shmem/routines_x.h>

#ifdef __cplusplus
}
#include <shmem/complex_cxx.h>
#endif
#undef SHMEM_FN

#endif
