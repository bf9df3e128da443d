/*
 * Small helpers used across shoalrun: its own messages, complete writes,
 * the monotonic clock, and memory that either is there or ends the job
 * (the launcher cannot do anything sensible without it).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shoalrun.h"

static char msg_name[300] = "shoalrun";

void sr_msg_set_name(const char *name)
{
    snprintf(msg_name, sizeof(msg_name), "%s", name);
}

void sr_vmsg(const char *fmt, va_list ap)
{
    /* Big enough for the timeout message listing SR_MAX_NPES PEs. */
    char line[32768];
    int n = snprintf(line, sizeof(line), "%s: ", msg_name);

    n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    (void)sr_write_all(STDERR_FILENO, line, (size_t)n);
}

void sr_msg(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sr_vmsg(fmt, ap);
    va_end(ap);
}

int sr_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n >= 0) {
            p += n;
            len -= (size_t)n;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            /* Our stdout may be a non-blocking fd shared with the caller. */
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            (void)poll(&pfd, 1, -1);
        } else if (errno != EINTR) {
            return -1;
        }
    }
    return 0;
}

int sr_set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
        return -1;
    return 0;
}

/* Whether `path` names a regular file; *exec_p: one we may execute. */
static bool is_file(const char *path, bool *exec_p)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    *exec_p = access(path, X_OK) == 0;
    return true;
}

char *sr_which(const char *name, bool then_cwd, char **present_p)
{
    const char *path = getenv("PATH");
    char *first_found = NULL; /* a file that is there but not executable */
    /* PATH's entries (an empty entry means the current folder), then "." if asked. */
    size_t plen = path ? strlen(path) : 0;
    char *dirs = sr_xmalloc(plen + 3);
    snprintf(dirs, plen + 3, "%s%s", path ? path : "", then_cwd ? (plen ? ":." : ".") : "");
    for (char *dir = dirs[0] != '\0' ? dirs : NULL, *next; dir != NULL; dir = next) {
        next = strchr(dir, ':');
        if (next != NULL)
            *next++ = '\0';
        char *cand = sr_xmalloc(strlen(dir) + strlen(name) + 3);
        sprintf(cand, "%s/%s", dir[0] ? dir : ".", name);
        bool exec = false;
        if (is_file(cand, &exec) && exec) {
            free(first_found);
            free(dirs);
            return cand;
        }
        if (is_file(cand, &exec) && first_found == NULL)
            first_found = cand;
        else
            free(cand);
    }
    free(dirs);
    if (present_p != NULL)
        *present_p = first_found;
    else
        free(first_found);
    return NULL;
}

double sr_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void *sr_xmalloc(size_t size)
{
    return sr_xrealloc(NULL, size);
}

void *sr_xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p == NULL) {
        sr_msg("out of memory (allocating %zu bytes); ending the job", size);
        sr_proc_emergency_exit();
    }
    return p;
}

void sr_buf_reserve(sr_buf_t *buf, size_t extra)
{
    if (buf->off > 0 && buf->off == buf->len) {
        buf->off = 0;
        buf->len = 0;
    }
    if (buf->len + extra <= buf->cap)
        return;
    if (buf->off > 0) {
        /* Reuse the consumed front before growing. */
        memmove(buf->data, buf->data + buf->off, buf->len - buf->off);
        buf->len -= buf->off;
        buf->off = 0;
        if (buf->len + extra <= buf->cap)
            return;
    }
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < buf->len + extra)
        cap *= 2;
    buf->data = sr_xrealloc(buf->data, cap);
    buf->cap = cap;
}

void sr_buf_append(sr_buf_t *buf, const void *data, size_t len)
{
    if (len == 0)
        return;
    sr_buf_reserve(buf, len);
    memcpy(buf->data + buf->len, data, len);
    buf->len += len;
}

void sr_buf_free(sr_buf_t *buf)
{
    free(buf->data);
    *buf = (sr_buf_t){0};
}
