/*
 * Log rate limits (see util/log_limit.h): a fixed window per kind of line,
 * a burst let through, the rest counted and summed up in one line.
 */
#include <stdarg.h>
#include <stdio.h>

#include "util/log_limit.h"

void shoal_log_limit_init(shoal_log_limit_t *l, shoal_log_level_t level, unsigned burst,
                          unsigned window_ms, const char *what, ...)
{
    va_list ap;
    *l = (shoal_log_limit_t){.level = level, .burst = burst, .window_ms = window_ms};
    va_start(ap, what);
    vsnprintf(l->what, sizeof(l->what), what, ap);
    va_end(ap);
}

/* 1234567 -> "1,234,567" */
static void with_commas(uint64_t v, char *out, size_t size)
{
    char digits[32];
    int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v), k = 0;
    for (int i = 0; i < n && (size_t)k + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[k++] = ',';
        out[k++] = digits[i];
    }
    out[k] = '\0';
}

uint64_t shoal_log_limit_flush(shoal_log_limit_t *l, uint64_t now_ms)
{
    if (l->window_end_ms == 0)
        return UINT64_MAX;
    if (now_ms < l->window_end_ms)
        return l->dropped > 0 ? l->window_end_ms : UINT64_MAX;
    if (l->dropped > 0 && shoal_log_level >= (int)l->level) {
        char count[32], span[32] = "second";
        with_commas(l->dropped, count, sizeof(count));
        if (l->window_ms != 1000)
            snprintf(span, sizeof(span), "%.1f s", l->window_ms / 1000.0);
        shoal_log(l->level, "%s: ... and %s more like this in the last %s", l->what, count, span);
    }
    l->window_end_ms = 0;
    l->used = 0;
    l->dropped = 0;
    return UINT64_MAX;
}

int shoal_log_limit_allow(shoal_log_limit_t *l, uint64_t now_ms)
{
    if (shoal_log_level < (int)l->level)
        return 0;
    shoal_log_limit_flush(l, now_ms);
    if (l->window_end_ms == 0)
        l->window_end_ms = now_ms + (l->window_ms ? l->window_ms : 1);
    if (l->used < l->burst) {
        l->used++;
        return 1;
    }
    l->dropped++;
    l->dropped_total++;
    return 0;
}
