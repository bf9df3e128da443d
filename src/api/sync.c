/*
 * Point-to-point synchronization entry points, generated from the sync type
 * table. Each describes its type and widens its comparison value; the
 * untyped core does the loads, comparisons and waiting.
 */
#include <shmem.h>

#include "api/api.h"
#include "core/error.h"
#include "core/state.h"
#include "core/wait.h"

#define SHOAL_DEF_SYNC(TYPE, NAME, ...)                                                            \
    SHOAL_API_DEF(void, shmem_##NAME##_wait_until)(TYPE * ivar, int cmp, TYPE cmp_value)           \
    {                                                                                              \
        if (SHOAL_UNLIKELY(shoal_trace_on))                                                        \
            shoal_trace_wait_one(SHOAL_FN, ivar, SHOAL_DTYPE_OF(TYPE), cmp,                        \
                                 SHOAL_WIDEN(TYPE, cmp_value));                                    \
        else                                                                                       \
            shoal_wait_one(SHOAL_FN, ivar, SHOAL_DTYPE_OF(TYPE), cmp,                              \
                           SHOAL_WIDEN(TYPE, cmp_value));                                          \
    }                                                                                              \
    SHOAL_API_DEF(int, shmem_##NAME##_test)(TYPE * ivar, int cmp, TYPE cmp_value)                  \
    {                                                                                              \
        shoal_check_cmp(SHOAL_FN, cmp);                                                            \
        return shoal_test_one(ivar, SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value));      \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_##NAME##_wait_until_all)                                             \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value)                      \
    {                                                                                              \
        SHOAL_API_TRACE(WAIT, -1, 0, NULL);                                                        \
        shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ALL, 1, ivars, nelems, NULL, status,                   \
                       SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value), NULL);             \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_wait_until_any)                                           \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value)                      \
    {                                                                                              \
        SHOAL_API_TRACE(WAIT, -1, 0, NULL);                                                        \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ANY, 1, ivars, nelems, NULL, status,            \
                              SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value), NULL);      \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_wait_until_some)                                          \
    (TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp, TYPE cmp_value)    \
    {                                                                                              \
        SHOAL_API_TRACE(WAIT, -1, 0, NULL);                                                        \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_SOME, 1, ivars, nelems, indices, status,        \
                              SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value), NULL);      \
    }                                                                                              \
    SHOAL_API_DEF(void, shmem_##NAME##_wait_until_all_vector)                                      \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values)                    \
    {                                                                                              \
        SHOAL_API_TRACE(WAIT, -1, 0, NULL);                                                        \
        shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ALL, 1, ivars, nelems, NULL, status,                   \
                       SHOAL_DTYPE_OF(TYPE), cmp, 0, cmp_values);                                  \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_wait_until_any_vector)                                    \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values)                    \
    {                                                                                              \
        SHOAL_API_TRACE(WAIT, -1, 0, NULL);                                                        \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ANY, 1, ivars, nelems, NULL, status,            \
                              SHOAL_DTYPE_OF(TYPE), cmp, 0, cmp_values);                           \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_wait_until_some_vector)                                   \
    (TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp, TYPE *cmp_values)  \
    {                                                                                              \
        SHOAL_API_TRACE(WAIT, -1, 0, NULL);                                                        \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_SOME, 1, ivars, nelems, indices, status,        \
                              SHOAL_DTYPE_OF(TYPE), cmp, 0, cmp_values);                           \
    }                                                                                              \
    SHOAL_API_DEF(int, shmem_##NAME##_test_all)                                                    \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value)                      \
    {                                                                                              \
        return (int)shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ALL, 0, ivars, nelems, NULL, status,       \
                                   SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value), NULL); \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_test_any)                                                 \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE cmp_value)                      \
    {                                                                                              \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ANY, 0, ivars, nelems, NULL, status,            \
                              SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value), NULL);      \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_test_some)                                                \
    (TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp, TYPE cmp_value)    \
    {                                                                                              \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_SOME, 0, ivars, nelems, indices, status,        \
                              SHOAL_DTYPE_OF(TYPE), cmp, SHOAL_WIDEN(TYPE, cmp_value), NULL);      \
    }                                                                                              \
    SHOAL_API_DEF(int, shmem_##NAME##_test_all_vector)                                             \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values)                    \
    {                                                                                              \
        return (int)shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ALL, 0, ivars, nelems, NULL, status,       \
                                   SHOAL_DTYPE_OF(TYPE), cmp, 0, cmp_values);                      \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_test_any_vector)                                          \
    (TYPE * ivars, size_t nelems, const int *status, int cmp, TYPE *cmp_values)                    \
    {                                                                                              \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_ANY, 0, ivars, nelems, NULL, status,            \
                              SHOAL_DTYPE_OF(TYPE), cmp, 0, cmp_values);                           \
    }                                                                                              \
    SHOAL_API_DEF(size_t, shmem_##NAME##_test_some_vector)                                         \
    (TYPE * ivars, size_t nelems, size_t * indices, const int *status, int cmp, TYPE *cmp_values)  \
    {                                                                                              \
        return shoal_wait_set(SHOAL_FN, SHOAL_WAIT_SOME, 0, ivars, nelems, indices, status,        \
                              SHOAL_DTYPE_OF(TYPE), cmp, 0, cmp_values);                           \
    }
SHMEM_SYNC_TYPES(SHOAL_DEF_SYNC)

/* Deprecated: wait until *ivar != cmp_value. */
#define SHOAL_DEF_WAIT_LEGACY(TYPE, NAME, ...)                                                     \
    SHOAL_API_DEF(void, shmem_##NAME##_wait)(TYPE * ivar, TYPE cmp_value)                          \
    {                                                                                              \
        pshmem_##NAME##_wait_until(ivar, SHMEM_CMP_NE, cmp_value);                                 \
    }
SHMEM_LEGACY_WAIT_TYPES(SHOAL_DEF_WAIT_LEGACY)

SHOAL_API_DEF(void, shmem_wait)(long *ivar, long cmp_value)
{
    pshmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value);
}

SHOAL_API_DEF(void, shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    SHOAL_API_TRACE(WAIT, -1, 0, ivar);
    pshmem_long_wait_until(ivar, cmp, cmp_value);
}
