/*
 * Log output: one write(2) per line so lines from many PEs do not interleave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

int shoal_log_level = SHOAL_LOG_WARN;
static int log_pe = -1;
static char log_host[64];

void shoal_log_set_pe(int pe)
{
    log_pe = pe;
}

void shoal_log(shoal_log_level_t level, const char *fmt, ...)
{
    static const char *const level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    char line[2048];
    int n;
    va_list ap;

    if (log_host[0] == '\0' && gethostname(log_host, sizeof(log_host) - 1) != 0)
        strcpy(log_host, "?");
    if (log_pe >= 0)
        n = snprintf(line, sizeof(line), "shoal[%s:PE %d:pid %ld] %s: ", log_host, log_pe,
                     (long)getpid(), level_names[level]);
    else
        n = snprintf(line, sizeof(line), "shoal[%s:pid %ld] %s: ", log_host, (long)getpid(),
                     level_names[level]);
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n);
    (void)ignored;
}
