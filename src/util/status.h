/*
 * One status type for the whole library. Errors are negative; the enum and
 * the string table are generated from one X-macro list so they cannot drift.
 */
#ifndef SHOAL_UTIL_STATUS_H
#define SHOAL_UTIL_STATUS_H

#define SHOAL_STATUS_LIST(X)                                                                       \
    X(SHOAL_OK, 0, "success")                                                                      \
    X(SHOAL_ERR_INVALID, -1, "invalid argument")                                                   \
    X(SHOAL_ERR_NOMEM, -2, "out of memory")                                                        \
    X(SHOAL_ERR_SYSTEM, -3, "system call failed")                                                  \
    X(SHOAL_ERR_IO, -4, "I/O error or peer closed the connection")                                 \
    X(SHOAL_ERR_NOT_FOUND, -5, "not found")                                                        \
    X(SHOAL_ERR_TRUNCATED, -6, "value larger than the buffer")                                     \
    X(SHOAL_ERR_UNREACHABLE, -7, "peer not reachable")                                             \
    X(SHOAL_ERR_TIMEOUT, -8, "timed out")                                                          \
    X(SHOAL_ERR_UNSUPPORTED, -9, "not supported")

typedef enum {
#define SHOAL_STATUS_ENUM(name, value, text) name = value,
    SHOAL_STATUS_LIST(SHOAL_STATUS_ENUM)
#undef SHOAL_STATUS_ENUM
} shoal_status_t;

const char *shoal_status_str(shoal_status_t status);

#endif
