/*
 * The log rate limit (src/util/log_limit.c): a burst per window goes
 * through, the rest is counted and summed up in one line once the window
 * is over, a quiet limiter needs no calls, and lines below the log level
 * are neither logged nor counted. stderr goes to a file that is read back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit_check.h"
#include "util/log_limit.h"

static FILE *captured;

static void capture_start(void)
{
    fflush(stderr);
    captured = tmpfile();
    if (captured == NULL || dup2(fileno(captured), STDERR_FILENO) < 0) {
        perror("test_log_limit: capture");
        exit(2);
    }
}

/* Lines logged since the last call that contain `needle`. */
static int lines_with(const char *needle)
{
    char line[4096];
    int n = 0;
    rewind(captured);
    while (fgets(line, sizeof(line), captured) != NULL)
        n += strstr(line, needle) != NULL;
    return n;
}

int main(void)
{
    int saved = dup(STDERR_FILENO);
    shoal_log_limit_t l;
    int allowed = 0;

    capture_start();
    shoal_log_level = SHOAL_LOG_WARN;
    shoal_log_limit_init(&l, SHOAL_LOG_WARN, 5, 1000, "config store at %s: closed idle clients",
                         "127.0.0.1:9");

    /* 2,000 lines within one second: 5 through, 1,995 counted. */
    for (int i = 0; i < 2000; i++)
        if (shoal_log_limit_allow(&l, 10000 + (uint64_t)i / 4)) {
            allowed++;
            shoal_log(l.level, "flood line %d", i);
        }
    CHECK(allowed == 5);
    CHECK(lines_with("flood line") == 5);
    CHECK(l.dropped == 1995 && l.dropped_total == 1995);
    /* Before the window ends: no summary yet, and the flush asks to be called at its end. */
    CHECK(shoal_log_limit_flush(&l, 10500) == 11000);
    CHECK(lines_with("more like this") == 0);
    /* At its end: one summary with the count, then nothing more is due. */
    CHECK(shoal_log_limit_flush(&l, 11000) == UINT64_MAX);
    CHECK(lines_with("config store at 127.0.0.1:9: closed idle clients: ... and 1,995 more like "
                     "this in the last second") == 1);
    CHECK(shoal_log_limit_flush(&l, 12000) == UINT64_MAX);
    CHECK(lines_with("more like this") == 1);

    /* A new window lets a burst through again; a window that dropped nothing has no summary. */
    allowed = 0;
    for (int i = 0; i < 3; i++)
        allowed += shoal_log_limit_allow(&l, 20000);
    CHECK(allowed == 3);
    CHECK(shoal_log_limit_flush(&l, 20100) == UINT64_MAX);
    CHECK(shoal_log_limit_allow(&l, 30000) == 1);
    CHECK(lines_with("more like this") == 1);

    /* The summary also comes from the next allowed line when nobody flushed. */
    for (int i = 0; i < 10; i++)
        shoal_log_limit_allow(&l, 30001);
    CHECK(shoal_log_limit_allow(&l, 31000) == 1);
    CHECK(lines_with("... and 6 more like this in the last second") == 1);

    /* Below the log level: nothing logged, nothing counted. */
    shoal_log_limit_t quiet;
    shoal_log_limit_init(&quiet, SHOAL_LOG_INFO, 1, 1000, "quiet");
    CHECK(shoal_log_limit_allow(&quiet, 1) == 0 && quiet.dropped == 0);
    CHECK(shoal_log_limit_flush(&quiet, 5000) == UINT64_MAX);

    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    if (failures) {
        fprintf(stderr, "test_log_limit: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_log_limit: all checks passed\n");
    return 0;
}
