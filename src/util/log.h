/*
 * Log lines for users and developers. Every line carries host, PE and pid so
 * that the interleaved output of a job can be read. Errors are logged once,
 * where they are detected, with the call, the value, the cause and what the
 * user can do.
 */
#ifndef SHOAL_UTIL_LOG_H
#define SHOAL_UTIL_LOG_H

typedef enum {
    SHOAL_LOG_ERROR = 0,
    SHOAL_LOG_WARN = 1,
    SHOAL_LOG_INFO = 2,
    SHOAL_LOG_DEBUG = 3,
} shoal_log_level_t;

extern int shoal_log_level;

/* Sets the PE shown in log lines (-1 until it is known). */
void shoal_log_set_pe(int pe);
void shoal_log(shoal_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define SHOAL_ERROR(...) shoal_log(SHOAL_LOG_ERROR, __VA_ARGS__)
#define SHOAL_WARN(...)                                                                        \
    do {                                                                                       \
        if (shoal_log_level >= SHOAL_LOG_WARN)                                                 \
            shoal_log(SHOAL_LOG_WARN, __VA_ARGS__);                                            \
    } while (0)
#define SHOAL_INFO(...)                                                                        \
    do {                                                                                       \
        if (shoal_log_level >= SHOAL_LOG_INFO)                                                 \
            shoal_log(SHOAL_LOG_INFO, __VA_ARGS__);                                            \
    } while (0)
#define SHOAL_DEBUG(...)                                                                       \
    do {                                                                                       \
        if (shoal_log_level >= SHOAL_LOG_DEBUG)                                                \
            shoal_log(SHOAL_LOG_DEBUG, __VA_ARGS__);                                           \
    } while (0)

#endif
