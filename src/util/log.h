/*
 * Log lines for users and developers. Every line carries host, PE and pid so
 * that the interleaved output of a job can be read. Errors are logged once,
 * where they are detected, with the call, the value, the cause and what the
 * user can do.
 *
 * Info and debug lines name their subsystem (from the source file's folder:
 * init, bootstrap, memory, rma, coll, transport, core) and can be limited to
 * some of them (SHOAL_DEBUG_SUBSYS=init,transport, which also turns debug
 * lines on). With SHOAL_LOG_FILE every line goes to a file per PE as well
 * (errors and warnings still reach stderr).
 */
#ifndef SHOAL_UTIL_LOG_H
#define SHOAL_UTIL_LOG_H

#include "util/status.h"

typedef enum {
    SHOAL_LOG_ERROR = 0,
    SHOAL_LOG_WARN = 1,
    SHOAL_LOG_INFO = 2,
    SHOAL_LOG_DEBUG = 3,
} shoal_log_level_t;

extern int shoal_log_level;

/* Sets the PE shown in log lines (-1 until it is known); opens the PE's log
 * file when one was configured. */
void shoal_log_set_pe(int pe);
/* `subsys`: a comma-separated list of subsystem names, NULL or "" for all;
 * `file`: a path pattern (%h host, %p pid, %r PE) or NULL/"" for none.
 * SHOAL_ERR_INVALID (and a warning listing the names) on an unknown name. */
shoal_status_t shoal_log_configure(const char *subsys, const char *file);
/* Whether lines from source file `file` are selected. */
int shoal_log_subsys_on(const char *file);
void shoal_log(shoal_log_level_t level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void shoal_log_from(shoal_log_level_t level, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define SHOAL_ERROR(...) shoal_log(SHOAL_LOG_ERROR, __VA_ARGS__)
#define SHOAL_WARN(...)                                                                            \
    do {                                                                                           \
        if (shoal_log_level >= SHOAL_LOG_WARN)                                                     \
            shoal_log(SHOAL_LOG_WARN, __VA_ARGS__);                                                \
    } while (0)
#define SHOAL_INFO(...)                                                                            \
    do {                                                                                           \
        if (shoal_log_level >= SHOAL_LOG_INFO && shoal_log_subsys_on(__FILE__))                    \
            shoal_log_from(SHOAL_LOG_INFO, __FILE__, __VA_ARGS__);                                 \
    } while (0)
#define SHOAL_DEBUG(...)                                                                           \
    do {                                                                                           \
        if (shoal_log_level >= SHOAL_LOG_DEBUG && shoal_log_subsys_on(__FILE__))                   \
            shoal_log_from(SHOAL_LOG_DEBUG, __FILE__, __VA_ARGS__);                                \
    } while (0)

#endif
