/*
 * Log output: one write(2) per line so lines from many PEs do not interleave.
 * Writes to SHOAL_LOG_FILE are checked: the first failure (a full disk, say)
 * is reported once on stderr with the file and errno, the file is given up
 * and the PE's lines go to stderr from then on (util/outfile.h counts the
 * file as lost).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/outfile.h"

int shoal_log_level = SHOAL_LOG_WARN;
static unsigned log_subsys = ~0u; /* subsystems printed, one bit each */
static int log_pe = -1;
static char log_host[64];
static char log_file_pattern[512];
static int log_fd = -1;
static char log_path[1024];
static int log_file_failed; /* set once, by the thread whose write failed first */

/* Subsystems, each named by where its sources live (the first match wins). */
static const struct {
    const char *name;
    const char *paths[8];
} subsystems[] = {
    {"bootstrap", {"/bootstrap/"}},
    {"transport", {"/transport/"}},
    {"device", {"/device/"}},
    {"memory", {"/mem/", "core/alloc.c", "core/check_heap.c", "api/mem.c"}},
    {"coll", {"/coll/", "core/barrier.c", "core/team_ctx.c", "api/coll.c", "api/team.c"}},
    {"rma",
     {"core/rma_route.c", "core/amo_route.c", "core/signal_route.c", "core/net_path.c", "api/rma.c",
      "api/amo.c", "api/signal.c", "core/wait.c"}},
    {"init", {"core/init.c", "api/setup.c", "api/init_attr.c", "core/host_layout.c"}},
    {"core", {"/"}},
};
#define NSUBSYS (sizeof(subsystems) / sizeof(subsystems[0]))

static unsigned subsys_of(const char *file)
{
    for (unsigned i = 0; i < NSUBSYS; i++)
        for (unsigned k = 0; k < 8 && subsystems[i].paths[k] != NULL; k++)
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
    /* A file given up after a failed write stays given up: this PE's lines
     * already went to stderr, and a second report of the same full disk
     * helps nobody. */
    if (__atomic_load_n(&log_file_failed, __ATOMIC_ACQUIRE))
        return;
    char path[sizeof(log_path)];
    expand(path, sizeof(path), log_file_pattern);
    if (log_fd >= 0)
        close(log_fd);
    log_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0)
        shoal_outfile_lost(path, 0,
                           "SHOAL_LOG_FILE: cannot open %s: %s (errno %d); this PE logs to "
                           "stderr only. Name a place this user may write",
                           path, strerror(errno), errno);
    else
        memcpy(log_path, path, sizeof(log_path));
}

/* Writes a whole line to the log file; on the first failure gives the file
 * up (it stays open: another thread may be writing to that descriptor, and
 * closing it could hand the number to an unrelated file) and reports it.
 * 0 when the line is in the file. */
static int file_write(const char *line, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(log_fd, line + done, n - done);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        int err = w < 0 ? errno : ENOSPC; /* a regular file writes 0 bytes only when full */
        if (__atomic_exchange_n(&log_file_failed, 1, __ATOMIC_ACQ_REL) == 0)
            shoal_outfile_lost(log_path, 0,
                               "SHOAL_LOG_FILE: writing %s failed: %s (errno %d); the file is "
                               "incomplete and this PE's later lines go to stderr only. Free "
                               "space there or point SHOAL_LOG_FILE at a file system with room",
                               log_path, strerror(err), err);
        return -1;
    }
    return 0;
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
    int in_file = log_fd >= 0 && !__atomic_load_n(&log_file_failed, __ATOMIC_ACQUIRE) &&
                  file_write(line, (size_t)n) == 0;
    if (!in_file || level <= SHOAL_LOG_WARN)
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
