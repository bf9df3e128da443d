/*
 * Lets an unchanged standard test program (tests/api/rma.c and friends) start
 * from a unique ID instead of the environment: compiled with
 * `-include uid_shim.h`, its shmem_init() becomes store_test_uid_init(),
 * defined in uid_shim.c.
 */
#ifndef SHOAL_TESTS_STORE_UID_SHIM_H
#define SHOAL_TESTS_STORE_UID_SHIM_H

#include <stddef.h>

#define shmem_init store_test_uid_init

void store_test_uid_init(void);

/* The same, with a heap size (0: the default); returns shmemx_init_attr's result. */
int store_test_uid_start(size_t heap_size);

#endif
