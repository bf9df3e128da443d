/*
 * Log output: one write(2) per line so lines from many PEs do not interleave.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

int shoal_log_level = SHOAL_LOG_WARN;
static unsigned log_subsys = ~0u; /* subsystems printed, one bit each */
static int log_pe = -1;
static char log_host[64];
static char log_file_pattern[512];
static int log_fd = -1;

/* Subsystems, each named by where its sources live (the first match wins). */
static const struct {
    const char *name;
    const char *paths[5];
} subsystems[] = {
    {"bootstrap", {"/bootstrap/"}},
    {"transport", {"/transport/"}},
    {"device", {"/device/"}},
    {"memory", {"/mem/", "core/alloc.c", "core/check_heap.c", "api/mem.c"}},
    {"coll", {"/coll/", "core/barrier.c", "core/team.c", "api/coll.c", "api/team.c"}},
    {"rma", {"core/rma.c", "api/rma.c", "api/amo.c", "api/signal.c", "core/wait.c"}},
    {"init", {"core/init.c", "api/setup.c", "api/init_attr.c", "core/hosts.c"}},
    {"core", {"/"}},
};
#define NSUBSYS (sizeof(subsystems) / sizeof(subsystems[0]))

static unsigned subsys_of(const char *file)
{
    for (unsigned i = 0; i < NSUBSYS; i++)
        for (unsigned k = 0; k < 5 && subsystems[i].paths[k] != NULL; k++)
            if (strstr(file, subsystems[i].paths[k]) != NULL)
                return i;
    return NSUBSYS - 1;
}

int shoal_log_subsys_on(const char *file)
{
    return (log_subsys >> subsys_of(file)) & 1u;
}

static void host_name(void)
{
    if (log_host[0] == '\0' && gethostname(log_host, sizeof(log_host) - 1) != 0)
        strcpy(log_host, "?");
}

/* The pattern with %h, %p and %r filled in. */
static void expand(char *out, size_t size, const char *pattern)
{
    size_t n = 0;
    for (const char *p = pattern; *p != '\0' && n + 1 < size; p++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p' || p[1] == 'r')) {
            char part[80];
            if (p[1] == 'h')
                snprintf(part, sizeof(part), "%s", log_host);
            else if (p[1] == 'p')
                snprintf(part, sizeof(part), "%ld", (long)getpid());
            else
                snprintf(part, sizeof(part), "%d", log_pe);
            n += (size_t)snprintf(out + n, size - n, "%s", part);
            p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n < size ? n : size - 1] = '\0';
}

void shoal_log_set_pe(int pe)
{
    log_pe = pe;
    if (log_file_pattern[0] == '\0' || pe < 0)
        return;
    host_name();
    char path[1024];
    expand(path, sizeof(path), log_file_pattern);
    if (log_fd >= 0)
        close(log_fd);
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0)
        shoal_log(SHOAL_LOG_WARN, "SHOAL_LOG_FILE: cannot open %s: %m; logging to stderr only",
                  path);
}

shoal_status_t shoal_log_configure(const char *subsys, const char *file)
{
    shoal_status_t status = SHOAL_OK;
    snprintf(log_file_pattern, sizeof(log_file_pattern), "%s", file != NULL ? file : "");
    if (subsys == NULL || subsys[0] == '\0') {
        log_subsys = ~0u;
        return SHOAL_OK;
    }
    log_subsys = 0;
    for (const char *p = subsys; *p != '\0';) {
        size_t len = strcspn(p, ",");
        unsigned i = 0;
        while (i < NSUBSYS &&
               !(strlen(subsystems[i].name) == len && strncmp(subsystems[i].name, p, len) == 0))
            i++;
        if (i < NSUBSYS) {
            log_subsys |= 1u << i;
        } else if (len > 0) {
            shoal_log(SHOAL_LOG_WARN,
                      "SHOAL_DEBUG_SUBSYS: unknown subsystem '%.*s' (known: bootstrap, "
                      "transport, device, memory, coll, rma, init, core); ignoring it",
                      (int)len, p);
            status = SHOAL_ERR_INVALID;
        }
        p += len + (p[len] == ',');
    }
    if (shoal_log_level < SHOAL_LOG_DEBUG)
        shoal_log_level = SHOAL_LOG_DEBUG;
    return status;
}

static void vlog(shoal_log_level_t level, const char *file, const char *fmt, va_list ap)
{
    static const char *const level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    char line[2048], where[32] = "";
    int n;

    host_name();
    if (file != NULL)
        snprintf(where, sizeof(where), "(%s)", subsystems[subsys_of(file)].name);
    if (log_pe >= 0)
        n = snprintf(line, sizeof(line), "shoal[%s:PE %d:pid %ld] %s%s: ", log_host, log_pe,
                     (long)getpid(), level_names[level], where);
    else
        n = snprintf(line, sizeof(line), "shoal[%s:pid %ld] %s%s: ", log_host, (long)getpid(),
                     level_names[level], where);
    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    ssize_t ignored;
    if (log_fd >= 0)
        ignored = write(log_fd, line, (size_t)n);
    if (log_fd < 0 || level <= SHOAL_LOG_WARN)
        ignored = write(STDERR_FILENO, line, (size_t)n);
    (void)ignored;
}

void shoal_log(shoal_log_level_t level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, NULL, fmt, ap);
    va_end(ap);
}

void shoal_log_from(shoal_log_level_t level, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, file, fmt, ap);
    va_end(ap);
}
