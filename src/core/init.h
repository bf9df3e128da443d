/*
 * Library start-up and shut-down.
 */
#ifndef SHOAL_CORE_INIT_H
#define SHOAL_CORE_INIT_H

#include "util/status.h"

#include <stddef.h>

/* Settings given through the API (shmemx_init_attr) rather than the
 * environment; they win over the environment. Zero means "not given". */
typedef struct {
    size_t symmetric_size;
} shoal_init_overrides_t;

extern shoal_init_overrides_t shoal_init_overrides;

/* Collective over all PEs; a second call while initialized does nothing.
 * On failure everything it started is released again, and
 * shoal_init_failure() says which step failed and why, in words (the step's
 * own message, where it has one, was logged where the failure was found). */
shoal_status_t shoal_init(int requested_thread_level);
const char *shoal_init_failure(void);
void shoal_finalize(void);
/* Ends the whole job with `status` (shmem_global_exit). */
void shoal_global_exit(int status) __attribute__((noreturn));

#endif
