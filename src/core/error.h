/*
 * Fatal errors: logged once, where detected, then the whole job ends (the
 * launcher names the PE). There is no way to return an error from most
 * OpenSHMEM calls, and carrying on would corrupt memory or hang.
 */
#ifndef SHOAL_CORE_ERROR_H
#define SHOAL_CORE_ERROR_H

void shoal_fatal(const char *fmt, ...) __attribute__((noreturn, cold, format(printf, 1, 2)));

/* An atomic, signal or wait of host code aimed at device memory (`what` at
 * `addr`, on PE `pe`): ends the job saying why (the host has no atomics on
 * GPU memory and cannot load it). */
void shoal_device_unsupported(const char *fn, const char *what, const void *addr, int pe)
    __attribute__((cold, noreturn));

/* Ends the job if the library is not initialized, naming the call. */
void shoal_require_init(const char *fn);

#define SHOAL_REQUIRE_INIT(fn)                                                                     \
    do {                                                                                           \
        if (__builtin_expect(!shoal.initialized, 0))                                               \
            shoal_require_init(fn);                                                                \
    } while (0)

/* What route row `row` is called in messages ("the symmetric heap", ...). */
const char *shoal_route_row_name(unsigned row);

#endif
