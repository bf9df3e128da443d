/*
 * CHECK for the multi-host test programs: on failure, one line naming the
 * file, line, PE and condition, then the whole job ends with status 1.
 */
#ifndef SHOAL_TESTS_MH_CHECK_H
#define SHOAL_TESTS_MH_CHECK_H

#include <stdio.h>

#include <shmem.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d PE %d: `%s`: ", __FILE__, __LINE__, shmem_my_pe(), #cond); \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)

#endif
