/*
 * The plain TCP link of the config store (used when TLS is turned off, and
 * for the greeting before TLS starts). send() uses MSG_NOSIGNAL, so a peer
 * that went away is an error code, never a SIGPIPE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/store/link.h"

static int tcp_handshake(shoal_store_link_t *l)
{
    (void)l;
    return 0;
}

static long tcp_read(shoal_store_link_t *l, void *buf, size_t len)
{
    for (;;) {
        ssize_t n = recv(l->fd, buf, len, 0);
        if (n > 0)
            return (long)n;
        if (n == 0)
            return SHOAL_STORE_IO_EOF;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return SHOAL_STORE_IO_WANT_READ;
        snprintf(l->error, sizeof(l->error), "%s", strerror(errno));
        l->sys_errno = errno;
        return errno == ECONNRESET ? SHOAL_STORE_IO_EOF : SHOAL_STORE_IO_ERROR;
    }
}

static long tcp_write(shoal_store_link_t *l, const void *buf, size_t len)
{
    for (;;) {
        ssize_t n = send(l->fd, buf, len, MSG_NOSIGNAL);
        if (n >= 0)
            return n > 0 ? (long)n : SHOAL_STORE_IO_WANT_WRITE;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return SHOAL_STORE_IO_WANT_WRITE;
        snprintf(l->error, sizeof(l->error), "%s", strerror(errno));
        l->sys_errno = errno;
        return (errno == EPIPE || errno == ECONNRESET) ? SHOAL_STORE_IO_EOF : SHOAL_STORE_IO_ERROR;
    }
}

static void tcp_destroy(shoal_store_link_t *l)
{
    if (l->fd >= 0)
        close(l->fd);
    free(l);
}

static const shoal_store_link_ops_t tcp_ops = {
    .version = 1,
    .name = "tcp",
    .handshake = tcp_handshake,
    .read = tcp_read,
    .write = tcp_write,
    .destroy = tcp_destroy,
};

shoal_status_t shoal_store_link_tcp_create(int fd, shoal_store_link_t **link_p)
{
    shoal_store_link_t *l = calloc(1, sizeof(*l));
    if (l == NULL)
        return SHOAL_ERR_NOMEM;
    l->ops = &tcp_ops;
    l->fd = fd;
    *link_p = l;
    return SHOAL_OK;
}
