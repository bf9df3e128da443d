/*
 * The untyped point-to-point synchronization core. Each typed wait/test
 * routine describes its type (size and signedness) and passes the comparison
 * value widened to 64 bits; the loads and comparisons happen here.
 */
#ifndef SHOAL_CORE_WAIT_H
#define SHOAL_CORE_WAIT_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t size; /* 2, 4 or 8 */
    uint8_t is_signed;
} shoal_dtype_t;

#define SHOAL_DTYPE_OF(TYPE) ((shoal_dtype_t){sizeof(TYPE), (TYPE)-1 < (TYPE)1})

/* Widens a value of an integer type to the 64-bit form the core compares. */
#define SHOAL_WIDEN(TYPE, v) ((TYPE)-1 < (TYPE)1 ? (uint64_t)(int64_t)(v) : (uint64_t)(v))

typedef enum {
    SHOAL_WAIT_ALL,
    SHOAL_WAIT_ANY,
    SHOAL_WAIT_SOME,
} shoal_wait_mode_t;

/* Checks `cmp` and ends the job with an error naming `fn` if it is invalid. */
void shoal_check_cmp(const char *fn, int cmp);

int shoal_test_one(const void *ivar, shoal_dtype_t dt, int cmp, uint64_t value);
void shoal_wait_one(const char *fn, const void *ivar, shoal_dtype_t dt, int cmp, uint64_t value);

/* The _all/_any/_some families. `values` is NULL for the scalar forms (then
 * `value` is used for every element) or the typed array of the _vector forms.
 * `block` selects wait (1) or test (0). Returns, per mode: ALL → 1 when all
 * matched; ANY → the index found or SIZE_MAX; SOME → how many indices found. */
size_t shoal_wait_set(const char *fn, shoal_wait_mode_t mode, int block, const void *ivars,
                      size_t nelems, size_t *indices, const int *status, shoal_dtype_t dt, int cmp,
                      uint64_t value, const void *values);

#endif
