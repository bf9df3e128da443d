/*
 * The CHECK macro shared by the unit tests: counts failures and goes on, so
 * one run reports every failed check.
 */
#ifndef SHOAL_TESTS_UNIT_CHECK_H
#define SHOAL_TESTS_UNIT_CHECK_H

#include <stdio.h>

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#endif
