/*
 * Rate limits for log lines that someone else can make us write: a store
 * hammered by connections, a client sending garbage, a peer that refuses
 * over and over. Each kind of line (one limiter each, usually one per call
 * site) gets a burst of lines per window; the rest are only counted, and
 * once the window is over one line says how many were left out
 * ("... and 1,990 more like this in the last second"). The caller passes
 * the time, so I/O-free code (the store's logic, which a fuzzer drives) can
 * use it. A limiter is not thread-safe: the caller serializes.
 */
#ifndef SHOAL_UTIL_LOG_LIMIT_H
#define SHOAL_UTIL_LOG_LIMIT_H

#include <stdint.h>

#include "util/log.h"

typedef struct {
    char what[192];          /* names the kind of line in the summary */
    shoal_log_level_t level; /* of the lines and the summary */
    unsigned burst;          /* lines per window */
    unsigned window_ms;
    uint64_t window_end_ms; /* 0: no window open */
    unsigned used;          /* lines let through in this window */
    uint64_t dropped;       /* lines left out in this window */
    uint64_t dropped_total; /* over the limiter's life, for tests and reports */
} shoal_log_limit_t;

/* The usual burst: lines of one kind per second. Enough for every line of
 * a short burst of distinct events (a test's run of malformed clients),
 * few enough that a flood costs nothing. */
#define SHOAL_LOG_LIMIT_BURST 10

/* `what` (printf format) begins the summary line: "<what>: ... and N more
 * like this in the last second". */
void shoal_log_limit_init(shoal_log_limit_t *l, shoal_log_level_t level, unsigned burst,
                          unsigned window_ms, const char *what, ...)
    __attribute__((format(printf, 5, 6)));

/* 1 when a line of this kind may be logged now (the caller logs it), 0 when
 * it is only counted. Closes a window that is over first, logging its
 * summary. 0 also when the level is not logged at all. */
int shoal_log_limit_allow(shoal_log_limit_t *l, uint64_t now_ms);

/* Logs the summary of a window that is over; returns when it next needs a
 * call to do so (UINT64_MAX: nothing left out, no call needed). A loop
 * that may go quiet calls this so that the count is not lost. */
uint64_t shoal_log_limit_flush(shoal_log_limit_t *l, uint64_t now_ms);

/* Logs at the limiter's level unless the limit says no. */
#define SHOAL_LOG_LIMITED(limit, now_ms, ...)                                                      \
    do {                                                                                           \
        if (shoal_log_limit_allow((limit), (now_ms)))                                              \
            shoal_log((limit)->level, __VA_ARGS__);                                                \
    } while (0)

#endif
