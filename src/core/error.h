/*
 * Fatal errors: logged once, where detected, then the whole job ends (the
 * launcher names the PE). There is no way to return an error from most
 * OpenSHMEM calls, and carrying on would corrupt memory or hang.
 */
#ifndef SHOAL_CORE_ERROR_H
#define SHOAL_CORE_ERROR_H

void shoal_fatal(const char *fmt, ...) __attribute__((noreturn, cold, format(printf, 1, 2)));

/* Ends the job if the library is not initialized, naming the call. */
void shoal_require_init(const char *fn);

#define SHOAL_REQUIRE_INIT(fn)                                                                     \
    do {                                                                                           \
        if (__builtin_expect(!shoal.initialized, 0))                                               \
            shoal_require_init(fn);                                                                \
    } while (0)

#endif
