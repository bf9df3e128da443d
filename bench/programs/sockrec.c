/*
 * sockrec.c: an LD_PRELOAD recorder of a process's socket calls, for
 * looking at where a network round trip spends its time (see bench/README.md,
 * "Looking inside a round trip").
 *
 * Records every sendto/send/sendmsg/writev/recvfrom/recv/recvmsg/readv
 * that moved bytes, and every ppoll/poll, with CLOCK_MONOTONIC stamps at entry and return, the
 * result and the thread id; at exit writes SOCKREC_OUT.<pid>, one line per
 * call: "t_enter_ns t_return_ns KIND result tid" (KIND: S send, W sendmsg,
 * V writev, R receive, M recvmsg, v readv, P ppoll, Q poll; Open MPI's TCP
 * BTL moves its messages with writev/readv). The namespaces of one machine share the
 * clock, so two PEs' files can be merged by time.
 *
 *   cc -O2 -shared -fPIC -o sockrec.so bench/programs/sockrec.c -ldl
 *   SOCKREC_OUT=/var/tmp/rec.0 LD_PRELOAD=$PWD/sockrec.so PROG ...
 *
 * Keeps up to 4 M calls in memory; later ones are not recorded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define SOCKREC_MAX (1L << 22)

typedef struct {
    uint64_t t0, t1;
    long result;
    int tid;
    char kind;
} sockrec_event_t;

static sockrec_event_t *events;
static long nevents;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void record(char kind, uint64_t t0, long result)
{
    if (events == NULL)
        events = malloc(sizeof(*events) * SOCKREC_MAX);
    if (events == NULL || nevents >= SOCKREC_MAX)
        return;
    /* Transfers only when they moved bytes; polls always. */
    if (result <= 0 && kind != 'P' && kind != 'Q')
        return;
    long i = __atomic_fetch_add(&nevents, 1, __ATOMIC_RELAXED);
    if (i < SOCKREC_MAX)
        events[i] = (sockrec_event_t){t0, now_ns(), result, (int)gettid(), kind};
}

__attribute__((destructor)) static void sockrec_dump(void)
{
    const char *out = getenv("SOCKREC_OUT");
    if (out == NULL || events == NULL)
        return;
    char name[512];
    snprintf(name, sizeof(name), "%s.%d", out, (int)getpid());
    FILE *f = fopen(name, "w");
    if (f == NULL)
        return;
    long n = nevents < SOCKREC_MAX ? nevents : SOCKREC_MAX;
    for (long i = 0; i < n; i++)
        fprintf(f, "%llu %llu %c %ld %d\n", (unsigned long long)events[i].t0,
                (unsigned long long)events[i].t1, events[i].kind, events[i].result, events[i].tid);
    fclose(f);
}

/* One wrapper per call: find the real one, time it, record it. */
#define SOCKREC_WRAP(ret, name, kind, params, args)                                                \
    ret name params                                                                                \
    {                                                                                              \
        static ret(*real) params;                                                                  \
        if (real == NULL)                                                                          \
            real = (ret(*) params)dlsym(RTLD_NEXT, #name);                                         \
        uint64_t t0 = now_ns();                                                                    \
        ret r = real args;                                                                         \
        record(kind, t0, (long)r);                                                                 \
        return r;                                                                                  \
    }

SOCKREC_WRAP(ssize_t, sendto, 'S',
             (int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
              socklen_t addrlen),
             (fd, buf, len, flags, addr, addrlen))
SOCKREC_WRAP(ssize_t, send, 'S', (int fd, const void *buf, size_t len, int flags),
             (fd, buf, len, flags))
SOCKREC_WRAP(ssize_t, sendmsg, 'W', (int fd, const struct msghdr *msg, int flags), (fd, msg, flags))
SOCKREC_WRAP(ssize_t, recvfrom, 'R',
             (int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *addrlen),
             (fd, buf, len, flags, addr, addrlen))
SOCKREC_WRAP(ssize_t, recv, 'R', (int fd, void *buf, size_t len, int flags), (fd, buf, len, flags))
SOCKREC_WRAP(ssize_t, writev, 'V', (int fd, const struct iovec *iov, int n), (fd, iov, n))
SOCKREC_WRAP(ssize_t, readv, 'v', (int fd, const struct iovec *iov, int n), (fd, iov, n))
SOCKREC_WRAP(ssize_t, recvmsg, 'M', (int fd, struct msghdr *msg, int flags), (fd, msg, flags))
SOCKREC_WRAP(int, ppoll, 'P',
             (struct pollfd * fds, nfds_t nfds, const struct timespec *timeout,
              const sigset_t *sigmask),
             (fds, nfds, timeout, sigmask))
SOCKREC_WRAP(int, poll, 'Q', (struct pollfd * fds, nfds_t nfds, int timeout), (fds, nfds, timeout))
