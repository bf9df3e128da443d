/*
 * Segment exchange between the PEs of one host. Every PE listens on an
 * abstract unix socket (no file system entry, gone when the process is), and
 * publishes its name and host identity through the bootstrap. Each PE then
 * connects to every local peer, accepts every local peer, sends its memfds
 * (SCM_RIGHTS) on each accepted connection and receives theirs on its own
 * connections. Connects complete into the listen backlog, so the three
 * phases cannot deadlock.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport/shm/shm.h"
#include "util/host.h"
#include "util/log.h"

/* What a PE publishes: who it is and where to reach it. */
typedef struct {
    char host_id[160]; /* hostname + boot id + network namespace */
    char sock_name[96];
} shm_addr_t;

/* What travels with the fds. */
typedef struct {
    int32_t rank;
    uint32_t nfds;
    uint64_t size[SHOAL_ROUTE_ROWS];
    int32_t present[SHOAL_ROUTE_ROWS];
} shm_hello_t;

static socklen_t abstract_addr(struct sockaddr_un *sa, const char *name)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    size_t n = strlen(name);
    memcpy(sa->sun_path + 1, name, n); /* leading NUL: abstract namespace */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

static shoal_status_t send_fds(int sock, const shm_hello_t *hello, const int *fds)
{
    char cbuf[CMSG_SPACE(sizeof(int) * SHOAL_ROUTE_ROWS)];
    struct iovec iov = {.iov_base = (void *)hello, .iov_len = sizeof(*hello)};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    memset(cbuf, 0, sizeof(cbuf));
    if (hello->nfds > 0) {
        msg.msg_control = cbuf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * hello->nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * hello->nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * hello->nfds);
    }
    ssize_t n;
    do
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(*hello)) {
        SHOAL_ERROR("sending symmetric segment descriptors to a local peer failed: %m");
        return SHOAL_ERR_IO;
    }
    return SHOAL_OK;
}

static shoal_status_t recv_fds(int sock, shm_hello_t *hello, int *fds)
{
    char cbuf[CMSG_SPACE(sizeof(int) * SHOAL_ROUTE_ROWS)];
    struct iovec iov = {.iov_base = hello, .iov_len = sizeof(*hello)};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf)};
    ssize_t n;
    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(*hello)) {
        SHOAL_ERROR("receiving symmetric segment descriptors from a local peer failed (%zd "
                    "bytes): %s",
                    n, n < 0 ? strerror(errno) : "peer closed the connection");
        return SHOAL_ERR_IO;
    }
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    unsigned got = 0;
    if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        got = (unsigned)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    if (got != hello->nfds || got > SHOAL_ROUTE_ROWS) {
        SHOAL_ERROR("a local peer sent %u segment descriptors, expected %u", got, hello->nfds);
        if (c != NULL)
            for (unsigned i = 0; i < got && i < SHOAL_ROUTE_ROWS; i++)
                close(((int *)CMSG_DATA(c))[i]);
        return SHOAL_ERR_IO;
    }
    if (got > 0)
        memcpy(fds, CMSG_DATA(c), sizeof(int) * got);
    return SHOAL_OK;
}

static shoal_status_t map_peer(shoal_bootstrap_t *bs, int pe, const shm_hello_t *hello,
                               const int *fds, const shoal_segment_t *segs, shoal_route_t *rt)
{
    shoal_status_t status = SHOAL_OK;
    unsigned next_fd = 0;
    for (int s = 0; s < SHOAL_ROUTE_ROWS; s++) {
        if (!hello->present[s])
            continue;
        int fd = fds[next_fd++];
        if (segs[s].base == NULL) {
            close(fd);
            continue;
        }
        if (hello->size[s] != segs[s].size) {
            if (s == SHOAL_ROUTE_HEAP) {
                SHOAL_ERROR("symmetric heap sizes differ: PE %d has %zu bytes, PE %d has %llu; "
                            "give every PE the same SHMEM_SYMMETRIC_SIZE",
                            bs->rank, segs[s].size, pe, (unsigned long long)hello->size[s]);
                status = SHOAL_ERR_INVALID;
            } else {
                SHOAL_WARN("PE %d runs a different executable (data segment of %llu bytes, "
                           "here %zu); its global variables are not symmetric with this PE's",
                           pe, (unsigned long long)hello->size[s], segs[s].size);
            }
            close(fd);
            continue;
        }
        char *base;
        if (status == SHOAL_OK && shoal_segment_map_peer(fd, segs[s].size, &base) == SHOAL_OK)
            shoal_route_set_peer(rt, pe, (unsigned)s, base);
        else if (status == SHOAL_OK)
            status = SHOAL_ERR_SYSTEM;
        close(fd);
    }
    return status;
}

shoal_status_t shoal_shm_connect(shoal_bootstrap_t *bs, unsigned generation,
                                 const shoal_segment_t segs[SHOAL_ROUTE_ROWS], shoal_route_t *rt,
                                 int *node)
{
    shoal_status_t status;
    shm_addr_t mine, theirs;
    char key[64];
    int *conns = NULL, *reps = NULL;
    shoal_bootstrap_gather_t all = {0};
    char (*ids)[sizeof(mine.host_id)] = NULL;
    int listener = -1, nlocal = 0;
    const int me = bs->rank, npes = bs->npes;

    node[me] = me;
    if (npes == 1)
        return SHOAL_OK;

    memset(&mine, 0, sizeof(mine));
    shoal_host_identity(mine.host_id, sizeof(mine.host_id));
    snprintf(mine.sock_name, sizeof(mine.sock_name), "shoal-%s-g%u-pe%d", bs->job_id,
             generation, me);

    listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    socklen_t salen = abstract_addr(&sa, mine.sock_name);
    if (listener < 0 || bind(listener, (struct sockaddr *)&sa, salen) != 0 ||
        listen(listener, npes) != 0) {
        SHOAL_ERROR("cannot listen on the abstract unix socket @%s for segment exchange: %m",
                    mine.sock_name);
        status = SHOAL_ERR_SYSTEM;
        goto out_close;
    }

    snprintf(key, sizeof(key), "shm.addr.%u", generation);
    status = shoal_bootstrap_allgather(bs, key, &mine, sizeof(mine), &all);
    if (status != SHOAL_OK)
        goto out_close;

    conns = malloc(sizeof(int) * (size_t)npes);
    if (conns == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out_close;
    }
    for (int pe = 0; pe < npes; pe++)
        conns[pe] = -1;
    /* Every PE's host identity, to number the hosts by their lowest PE. */
    ids = calloc((size_t)npes, sizeof(*ids));
    reps = malloc(sizeof(int) * (size_t)npes);
    if (ids == NULL || reps == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out_conns;
    }
    if (me >= 0 && me < npes) /* always; tells gcc the index is in range */
        memcpy(ids[me], mine.host_id, sizeof(mine.host_id));
    /* Phase 1: connect to every local peer. */
    for (int pe = 0; pe < npes; pe++) {
        if (pe == me)
            continue;
        size_t len;
        const void *v = shoal_bootstrap_gather_at(&all, pe, &len);
        if (len != sizeof(theirs)) {
            SHOAL_ERROR("PE %d published a segment address of %zu bytes, expected %zu (a "
                        "different Shoal build?)",
                        pe, len, sizeof(theirs));
            status = SHOAL_ERR_IO;
            goto out_conns;
        }
        memcpy(&theirs, v, sizeof(theirs));
        theirs.host_id[sizeof(theirs.host_id) - 1] = '\0';
        memcpy(ids[pe], theirs.host_id, sizeof(theirs.host_id));
        if (strcmp(theirs.host_id, mine.host_id) != 0)
            continue;
        nlocal++;
        conns[pe] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        salen = abstract_addr(&sa, theirs.sock_name);
        int rc;
        do
            rc = connect(conns[pe], (struct sockaddr *)&sa, salen);
        while (rc != 0 && errno == EINTR);
        if (rc != 0) {
            SHOAL_ERROR("cannot connect to local PE %d at @%s: %m", pe, theirs.sock_name);
            status = SHOAL_ERR_UNREACHABLE;
            goto out_conns;
        }
    }

    /* Phase 2: accept every local peer and send our segments. */
    int fds[SHOAL_ROUTE_ROWS];
    shm_hello_t hello = {.rank = me, .nfds = 0};
    for (int s = 0; s < SHOAL_ROUTE_ROWS; s++) {
        hello.present[s] = segs[s].base != NULL;
        hello.size[s] = segs[s].size;
        if (hello.present[s])
            fds[hello.nfds++] = segs[s].fd;
    }
    for (int i = 0; i < nlocal; i++) {
        int c;
        do
            c = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        while (c < 0 && errno == EINTR);
        if (c < 0) {
            SHOAL_ERROR("accepting a local peer's connection failed: %m");
            status = SHOAL_ERR_SYSTEM;
            goto out_conns;
        }
        status = send_fds(c, &hello, fds);
        close(c);
        if (status != SHOAL_OK)
            goto out_conns;
    }

    /* Phase 3: receive each local peer's segments and map them. */
    for (int pe = 0; pe < npes; pe++) {
        if (conns[pe] < 0)
            continue;
        shm_hello_t their_hello;
        int their_fds[SHOAL_ROUTE_ROWS];
        status = recv_fds(conns[pe], &their_hello, their_fds);
        if (status == SHOAL_OK && their_hello.rank != pe) {
            SHOAL_ERROR("local socket of PE %d answered as PE %d", pe, their_hello.rank);
            status = SHOAL_ERR_IO;
        }
        if (status == SHOAL_OK)
            status = map_peer(bs, pe, &their_hello, their_fds, segs, rt);
        if (status != SHOAL_OK)
            goto out_conns;
    }
    SHOAL_DEBUG("mapped the segments of %d local peers", nlocal);

    /* node[pe]: the first PE with pe's identity, found among one
     * representative per host seen so far. */
    int nreps = 0;
    for (int pe = 0; pe < npes; pe++) {
        int r = 0;
        while (r < nreps && strcmp(ids[reps[r]], ids[pe]) != 0)
            r++;
        if (r == nreps)
            reps[nreps++] = pe;
        node[pe] = reps[r];
    }

out_conns:
    free(ids);
    free(reps);
    for (int pe = 0; pe < npes; pe++)
        if (conns[pe] >= 0)
            close(conns[pe]);
    free(conns);
out_close:
    shoal_bootstrap_gather_free(&all);
    if (listener >= 0)
        close(listener);
    return status;
}

void shoal_shm_disconnect(shoal_bootstrap_t *bs, shoal_route_t *rt)
{
    for (int pe = 0; pe < bs->npes; pe++) {
        if (pe == bs->rank)
            continue;
        for (unsigned r = 0; r < SHOAL_ROUTE_ROWS; r++) {
            uintptr_t base = shoal_route_peer_base(rt, pe, r);
            if (base != 0)
                shoal_segment_unmap_peer((char *)base, rt->row[r].size);
            shoal_route_set_peer(rt, pe, r, NULL);
        }
    }
}
