/*
 * The spec's six comparisons (SHMEM_CMP_EQ ... in shmem.h), named once for
 * every message that shows one: the argument check of the waits, the hang
 * report ("SHMEM_CMP_EQ") and the device monitor's report ("==").
 */
#ifndef SHOAL_UTIL_CMP_NAMES_H
#define SHOAL_UTIL_CMP_NAMES_H

#include <shmem.h>

/* X(NAME, OPERATOR) for each comparison, in the spec's order. */
#define SHOAL_CMP_LIST(X)                                                                          \
    X(EQ, "==")                                                                                    \
    X(NE, "!=")                                                                                    \
    X(GT, ">")                                                                                     \
    X(LE, "<=")                                                                                    \
    X(LT, "<")                                                                                     \
    X(GE, ">=")

/* Whether `cmp` is one of the six. */
static inline int shoal_cmp_valid(int cmp)
{
    switch (cmp) {
#define SHOAL_CMP_CASE_(name, op) case SHMEM_CMP_##name:
        SHOAL_CMP_LIST(SHOAL_CMP_CASE_)
#undef SHOAL_CMP_CASE_
        return 1;
    default:
        return 0;
    }
}

/* "SHMEM_CMP_EQ" for SHMEM_CMP_EQ; "?" for a value that is none of them. */
static inline const char *shoal_cmp_name(int cmp)
{
    switch (cmp) {
#define SHOAL_CMP_CASE_(name, op)                                                                  \
    case SHMEM_CMP_##name:                                                                         \
        return "SHMEM_CMP_" #name;
        SHOAL_CMP_LIST(SHOAL_CMP_CASE_)
#undef SHOAL_CMP_CASE_
    default:
        return "?";
    }
}

/* "==" for SHMEM_CMP_EQ; "?" for a value that is none of them. */
static inline const char *shoal_cmp_op(int cmp)
{
    switch (cmp) {
#define SHOAL_CMP_CASE_(name, op)                                                                  \
    case SHMEM_CMP_##name:                                                                         \
        return op;
        SHOAL_CMP_LIST(SHOAL_CMP_CASE_)
#undef SHOAL_CMP_CASE_
    default:
        return "?";
    }
}

#endif
