/*
 * SCM_RIGHTS between the PEs of one host (see fdpass.h). Sends and
 * receives are interleaved without blocking: a datagram socket queues only
 * a few datagrams (net.unix.max_dgram_qlen, 10 by default), so PEs that
 * all sent before receiving would wait for each other once a host has more
 * PEs than that.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "transport/shm/fdpass.h"
#include "util/clock.h"
#include "util/log.h"

typedef struct {
    int32_t rank;
    uint32_t magic;
    uint64_t seq;
} fdpass_msg_t;

#define FDPASS_MAGIC 0x5fd0a55u

static socklen_t socket_addr(struct sockaddr_un *sa, const char *prefix, int rank)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    /* sun_path[0] stays NUL: the abstract namespace. */
    int n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "%s%d", prefix, rank);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

shoal_status_t shoal_fdpass_open(shoal_fdpass_t *fp, const char *job_id, unsigned generation,
                                 const char *what, int rank, char *msg, size_t msglen)
{
    struct sockaddr_un sa;
    int one = 1;
    fp->rank = rank;
    snprintf(fp->prefix, sizeof(fp->prefix), "shoal-%.40s-g%u-%s-", job_id, generation, what);
    fp->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    socklen_t len = socket_addr(&sa, fp->prefix, rank);
    if (fp->sock < 0 || setsockopt(fp->sock, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)) != 0 ||
        bind(fp->sock, (struct sockaddr *)&sa, len) != 0) {
        snprintf(msg, msglen,
                 "cannot bind the unix socket @%s%d that passes fds to this host's PEs: %s",
                 fp->prefix, rank, strerror(errno));
        if (fp->sock >= 0)
            close(fp->sock);
        fp->sock = -1;
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}

void shoal_fdpass_close(shoal_fdpass_t *fp)
{
    if (fp->sock >= 0)
        close(fp->sock);
    fp->sock = -1;
}

/* Tries to send fd to `peer`: 1 sent, 0 try again later, -1 failed. */
static int try_send(shoal_fdpass_t *fp, int peer, uint64_t seq, int fd, char *msg, size_t msglen)
{
    struct sockaddr_un sa;
    fdpass_msg_t m = {.rank = fp->rank, .magic = FDPASS_MAGIC, .seq = seq};
    struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } c;
    memset(&c, 0, sizeof(c));
    struct msghdr mh = {.msg_name = &sa,
                        .msg_namelen = socket_addr(&sa, fp->prefix, peer),
                        .msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = c.buf,
                        .msg_controllen = sizeof(c.buf)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    ssize_t n = sendmsg(fp->sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == (ssize_t)sizeof(m))
        return 1;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ENOBUFS))
        return 0;
    snprintf(msg, msglen, "passing an fd to local PE %d over @%s%d failed: %s", peer, fp->prefix,
             peer, n < 0 ? strerror(errno) : "short send");
    return -1;
}

/* Receives one datagram, if any: 1 and *fd_p, *rank_p set when it is a valid
 * one of this exchange; 0 nothing (or a datagram dropped); -1 failed. */
static int try_recv(shoal_fdpass_t *fp, uint64_t seq, const int *peers, const pid_t *pids,
                    int npeers, int *index_p, int *fd_p, char *msg, size_t msglen)
{
    fdpass_msg_t m;
    struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
    union {
        char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 4)];
        struct cmsghdr align;
    } c;
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf, .msg_controllen = sizeof(c.buf)};
    ssize_t n = recvmsg(fp->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return 0;
    if (n < 0) {
        snprintf(msg, msglen, "receiving an fd from a local PE failed: %s", strerror(errno));
        return -1;
    }
    int fd = -1, nfds = 0;
    const struct ucred *cred = NULL;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS)
            cred = (const struct ucred *)CMSG_DATA(cm);
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
            int *fds = (int *)CMSG_DATA(cm);
            int k = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k; i++) {
                if (nfds++ == 0)
                    fd = fds[i];
                else
                    close(fds[i]);
            }
        }
    }
    int index = -1;
    for (int i = 0; n == (ssize_t)sizeof(m) && i < npeers; i++)
        if (peers[i] == m.rank)
            index = i;
    if (n != (ssize_t)sizeof(m) || m.magic != FDPASS_MAGIC || nfds != 1 || index < 0 ||
        cred == NULL || cred->pid != pids[index] || m.seq != seq || (mh.msg_flags & MSG_CTRUNC)) {
        SHOAL_WARN("dropped a datagram on @%s%d that is not a local PE's fd of this exchange "
                   "(%zd bytes, %d fds, from pid %d)",
                   fp->prefix, fp->rank, n, nfds, cred != NULL ? (int)cred->pid : -1);
        if (fd >= 0)
            close(fd);
        return 0;
    }
    *index_p = index;
    *fd_p = fd;
    return 1;
}

shoal_status_t shoal_fdpass_exchange(shoal_fdpass_t *fp, uint64_t seq, int fd, const int *peers,
                                     const pid_t *pids, int npeers, int *their_fds,
                                     unsigned timeout_ms, char *msg, size_t msglen)
{
    shoal_status_t status = SHOAL_OK;
    char *sent = calloc((size_t)npeers + 1, 1);
    int nsent = 0, nrecv = 0;
    if (sent == NULL) {
        snprintf(msg, msglen, "out of memory passing fds to this host's PEs");
        return SHOAL_ERR_NOMEM;
    }
    for (int i = 0; i < npeers; i++)
        their_fds[i] = -1;
    const double deadline = shoal_clock_ms() + timeout_ms;
    while (nsent < npeers || nrecv < npeers) {
        int progress = 0;
        for (int i = 0; i < npeers; i++) {
            if (sent[i])
                continue;
            int r = try_send(fp, peers[i], seq, fd, msg, msglen);
            if (r < 0) {
                status = SHOAL_ERR_IO;
                goto out;
            }
            sent[i] = (char)r;
            nsent += r;
            progress |= r;
        }
        for (;;) {
            int index, got;
            int r = try_recv(fp, seq, peers, pids, npeers, &index, &got, msg, msglen);
            if (r < 0) {
                status = SHOAL_ERR_IO;
                goto out;
            }
            if (r == 0)
                break;
            progress = 1;
            if (their_fds[index] >= 0) {
                close(got); /* a duplicate; the first one counts */
                continue;
            }
            their_fds[index] = got;
            nrecv++;
        }
        if (nsent == npeers && nrecv == npeers)
            break;
        if (shoal_clock_ms() > deadline) {
            int len = snprintf(msg, msglen,
                               "passing fds between this host's PEs timed out after %u ms; "
                               "not heard from local PE",
                               timeout_ms);
            for (int i = 0; i < npeers && len > 0 && (size_t)len < msglen; i++)
                if (their_fds[i] < 0)
                    len += snprintf(msg + len, msglen - (size_t)len, " %d", peers[i]);
            status = SHOAL_ERR_TIMEOUT;
            goto out;
        }
        if (!progress) {
            struct pollfd p = {.fd = fp->sock, .events = POLLIN};
            poll(&p, 1, 1); /* the queue of a peer may be full: look again soon */
        }
    }
out:
    if (status != SHOAL_OK)
        for (int i = 0; i < npeers; i++) {
            if (their_fds[i] >= 0)
                close(their_fds[i]);
            their_fds[i] = -1;
        }
    free(sent);
    return status;
}
