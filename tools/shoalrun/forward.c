/*
 * The PEs' standard streams. Each PE writes its stdout and stderr into pipes
 * that shoalrun keeps reading (so a PE never blocks on a full pipe while the
 * launcher is busy elsewhere) and copies to its own stdout and stderr one
 * whole line at a time, so lines of different PEs never mix. A line longer
 * than SR_LINE_MAX (1 MiB) is passed on in pieces. With --tag-output every line
 * starts with "[PE n] ", and an unfinished last line is ended with a newline
 * so that the next tag starts a line; without it the bytes pass unchanged.
 *
 * Standard input goes to PE 0 through a pipe as well: sharing the terminal
 * directly would not work, since the PEs run in a process group of their own
 * and would be stopped by SIGTTIN when they read from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shoalrun.h"

#define SR_LINE_MAX (1024 * 1024)
#define SR_LINE_FIRST (4 * 1024)
#define SR_STDIN_CHUNK (64 * 1024)

/* Set once writing to our stdout or stderr failed (e.g. the reader of a pipe
 * went away): the PEs keep running and their output is dropped. */
static bool dest_broken[3];
static sr_buf_t scratch;

void sr_stream_init(sr_stream_t *s, int fd, int dest, int rank, bool tag)
{
    *s = (sr_stream_t){.fd = fd, .dest = dest, .rank = rank, .tag = tag};
}

static void append_piece(sr_stream_t *s, const char *data, size_t len)
{
    if (s->tag && !s->mid_line) {
        char tag[32];
        int n = snprintf(tag, sizeof(tag), "[PE %d] ", s->rank);
        sr_buf_append(&scratch, tag, (size_t)n);
    }
    sr_buf_append(&scratch, data, len);
}

/* Moves the complete lines of s->buf (and at EOF the rest) into scratch. */
static void take_lines(sr_stream_t *s, bool eof)
{
    size_t start = 0;

    for (;;) {
        char *nl = memchr(s->buf + start, '\n', s->len - start);
        if (nl == NULL)
            break;
        size_t end = (size_t)(nl - s->buf) + 1;
        sr_hang_note_line(s->buf + start, end - start);
        append_piece(s, s->buf + start, end - start);
        s->mid_line = false;
        start = end;
    }
    if (start < s->len && (eof || (start == 0 && s->len == SR_LINE_MAX))) {
        /* An unfinished line at EOF, or one too long to hold. */
        append_piece(s, s->buf + start, s->len - start);
        s->mid_line = true;
        if (eof && s->tag)
            sr_buf_append(&scratch, "\n", 1);
        start = s->len;
    }
    memmove(s->buf, s->buf + start, s->len - start);
    s->len -= start;
}

static void flush_scratch(int dest)
{
    if (scratch.len > 0 && !dest_broken[dest] && sr_write_all(dest, scratch.data, scratch.len) != 0)
        dest_broken[dest] = true;
    scratch.len = 0;
    scratch.off = 0;
}

void sr_stream_read(sr_stream_t *s, bool drain)
{
    while (s->fd >= 0) {
        if (s->len == s->cap && s->cap < SR_LINE_MAX) {
            /* Grow for a long line; most streams never need more than the first. */
            s->cap = s->cap ? 2 * s->cap : SR_LINE_FIRST;
            s->buf = sr_xrealloc(s->buf, s->cap);
        }
        ssize_t n = read(s->fd, s->buf + s->len, s->cap - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n > 0)
            s->len += (size_t)n;
        take_lines(s, n <= 0);
        flush_scratch(s->dest);
        if (n <= 0) {
            if (n < 0)
                sr_msg("reading the output of PE %d: %s", s->rank, strerror(errno));
            sr_stream_close(s);
            return;
        }
        if (!drain)
            return;
    }
}

void sr_stream_close(sr_stream_t *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = 0;
    s->cap = 0;
}

void sr_stdin_init(sr_stdin_t *in, int dest)
{
    *in = (sr_stdin_t){.src = STDIN_FILENO, .dest = dest};
}

bool sr_stdin_wants_input(const sr_stdin_t *in)
{
    return in->src >= 0 && in->dest >= 0 && in->pending.len == in->pending.off;
}

bool sr_stdin_wants_output(const sr_stdin_t *in)
{
    return in->dest >= 0 && in->pending.len > in->pending.off;
}

/* Called when poll() says stdin is readable; one read, so that a blocking
 * stdin (which we must not switch to non-blocking: the caller shares it)
 * cannot stall the loop. */
void sr_stdin_read(sr_stdin_t *in)
{
    sr_buf_reserve(&in->pending, SR_STDIN_CHUNK);
    ssize_t n = read(in->src, in->pending.data + in->pending.len, SR_STDIN_CHUNK);
    if (n > 0) {
        in->pending.len += (size_t)n;
        sr_stdin_write(in);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        /* EOF, or EIO when we are in the background of a terminal. */
        in->src = -1;
        if (in->pending.len == in->pending.off)
            sr_stdin_close(in);
    }
}

void sr_stdin_write(sr_stdin_t *in)
{
    while (sr_stdin_wants_output(in)) {
        ssize_t n =
            write(in->dest, in->pending.data + in->pending.off, in->pending.len - in->pending.off);
        if (n > 0)
            in->pending.off += (size_t)n;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        else if (errno != EINTR) {
            sr_stdin_close(in); /* EPIPE: PE 0 closed its stdin */
            return;
        }
    }
    if (in->src < 0)
        sr_stdin_close(in);
}

void sr_stdin_close(sr_stdin_t *in)
{
    if (in->dest >= 0)
        close(in->dest);
    in->dest = -1;
    in->src = -1;
    sr_buf_free(&in->pending);
}
