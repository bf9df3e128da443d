/*
 * Addresses and sockets for the config store (see store/sockets.h). IPv4 and
 * IPv6 alike; link-local IPv6 addresses of an interface carry its scope.
 */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "bootstrap/store/sockets.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/log.h"

uint64_t shoal_store_now_ms(void)
{
    return shoal_clock_ns() / 1000000u;
}

static int parse_port(const char *s, uint16_t *port_p)
{
    unsigned long v = 0;
    if (*s == '\0' || strlen(s) > 5)
        return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    if (v > 65535)
        return -1;
    *port_p = (uint16_t)v;
    return 0;
}

shoal_status_t shoal_store_addr_parse(const char *text, uint16_t default_port,
                                      shoal_store_addr_t *addr_p, char *why, size_t why_size)
{
    shoal_store_addr_t a = {.port = default_port};
    const char *host = text, *port = NULL;
    size_t host_len;

    if (text == NULL || *text == '\0') {
        snprintf(why, why_size, "the address is empty");
        return SHOAL_ERR_INVALID;
    }
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (close == NULL) {
            snprintf(why, why_size, "'[' without ']'");
            return SHOAL_ERR_INVALID;
        }
        host = text + 1;
        host_len = (size_t)(close - host);
        if (close[1] == ':')
            port = close + 2;
        else if (close[1] != '\0') {
            snprintf(why, why_size, "text after ']' must be ':port'");
            return SHOAL_ERR_INVALID;
        }
    } else {
        const char *colon = strchr(text, ':');
        if (colon != NULL && strchr(colon + 1, ':') != NULL) {
            host_len = strlen(text); /* a bare IPv6 literal, no port */
        } else if (colon != NULL) {
            host_len = (size_t)(colon - text);
            port = colon + 1;
        } else {
            host_len = strlen(text);
        }
    }
    if (host_len == 0 || host_len >= sizeof(a.host)) {
        snprintf(why, why_size, "the host part is empty or longer than %zu characters",
                 sizeof(a.host) - 1);
        return SHOAL_ERR_INVALID;
    }
    memcpy(a.host, host, host_len);
    a.host[host_len] = '\0';
    for (size_t i = 0; i < host_len; i++) {
        unsigned char c = (unsigned char)a.host[i];
        if (c <= ' ' || c == '/' || c == '[' || c == ']' || c >= 0x7f) {
            snprintf(why, why_size, "the host contains a character not allowed in an address");
            return SHOAL_ERR_INVALID;
        }
    }
    if (port != NULL && parse_port(port, &a.port) != 0) {
        snprintf(why, why_size, "the port '%s' is not a number from 0 to 65535", port);
        return SHOAL_ERR_INVALID;
    }
    *addr_p = a;
    return SHOAL_OK;
}

void shoal_store_addr_format(const shoal_store_addr_t *addr, char *out, size_t size)
{
    if (strchr(addr->host, ':') != NULL)
        snprintf(out, size, "[%s]:%u", addr->host, (unsigned)addr->port);
    else
        snprintf(out, size, "%s:%u", addr->host, (unsigned)addr->port);
}

void shoal_store_sockaddr_split(const shoal_store_sockaddr_t *sa, shoal_store_addr_t *addr_p)
{
    shoal_store_addr_t a = {.port = 0};
    char serv[16];
    if (getnameinfo((const struct sockaddr *)&sa->ss, sa->len, a.host, sizeof(a.host), serv,
                    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        strcpy(a.host, "?");
        strcpy(serv, "0");
    }
    a.port = (uint16_t)atoi(serv);
    *addr_p = a;
}

void shoal_store_sockaddr_format(const shoal_store_sockaddr_t *sa, char *out, size_t size)
{
    shoal_store_addr_t a;
    shoal_store_sockaddr_split(sa, &a);
    shoal_store_addr_format(&a, out, size);
}

shoal_status_t shoal_store_resolve(const shoal_store_addr_t *addr, shoal_store_sockaddr_t *sa_p,
                                   char *why, size_t why_size)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char serv[8];
    int rc;

    snprintf(serv, sizeof(serv), "%u", (unsigned)addr->port);
    rc = getaddrinfo(addr->host, serv, &hints, &res);
    if (rc != 0 || res == NULL) {
        snprintf(why, why_size, "cannot resolve '%s': %s", addr->host,
                 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return SHOAL_ERR_UNREACHABLE;
    }
    memcpy(&sa_p->ss, res->ai_addr, res->ai_addrlen);
    sa_p->len = res->ai_addrlen;
    freeaddrinfo(res);
    return SHOAL_OK;
}

static void set_port(shoal_store_sockaddr_t *sa, uint16_t port)
{
    if (sa->ss.ss_family == AF_INET)
        ((struct sockaddr_in *)&sa->ss)->sin_port = htons(port);
    else
        ((struct sockaddr_in6 *)&sa->ss)->sin6_port = htons(port);
}

static void from_ifaddr(const struct ifaddrs *ifa, uint16_t port, shoal_store_sockaddr_t *sa_p)
{
    memset(sa_p, 0, sizeof(*sa_p));
    if (ifa->ifa_addr->sa_family == AF_INET) {
        memcpy(&sa_p->ss, ifa->ifa_addr, sizeof(struct sockaddr_in));
        sa_p->len = sizeof(struct sockaddr_in);
    } else {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa_p->ss;
        memcpy(s6, ifa->ifa_addr, sizeof(struct sockaddr_in6));
        if (IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) && s6->sin6_scope_id == 0)
            s6->sin6_scope_id = if_nametoindex(ifa->ifa_name);
        sa_p->len = sizeof(struct sockaddr_in6);
    }
    set_port(sa_p, port);
}

/* The wildcard or the loopback address of the family, with `port`. */
static void special_addr(int ipv6, int loopback, uint16_t port, shoal_store_sockaddr_t *sa_p)
{
    memset(sa_p, 0, sizeof(*sa_p));
    if (ipv6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa_p->ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = loopback ? in6addr_loopback : in6addr_any;
        sa_p->len = sizeof(*s6);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&sa_p->ss;
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(loopback ? INADDR_LOOPBACK : INADDR_ANY);
        sa_p->len = sizeof(*s4);
    }
    set_port(sa_p, port);
}

shoal_status_t shoal_store_iface_addr(const char *name, int ipv6, uint16_t port,
                                      shoal_store_sockaddr_t *sa_p, char *why, size_t why_size)
{
    struct ifaddrs *list, *ifa;
    int family = ipv6 ? AF_INET6 : AF_INET;
    int found_iface = 0;

    if (strcmp(name, "*") == 0) {
        special_addr(ipv6, 0, port, sa_p);
        return SHOAL_OK;
    }
    if (getifaddrs(&list) != 0) {
        snprintf(why, why_size, "getifaddrs failed: %s", strerror(errno));
        return SHOAL_ERR_SYSTEM;
    }
    for (ifa = list; ifa != NULL; ifa = ifa->ifa_next) {
        if (strcmp(ifa->ifa_name, name) != 0)
            continue;
        found_iface = 1;
        if (ifa->ifa_addr != NULL && ifa->ifa_addr->sa_family == family) {
            from_ifaddr(ifa, port, sa_p);
            freeifaddrs(list);
            return SHOAL_OK;
        }
    }
    freeifaddrs(list);
    snprintf(why, why_size,
             found_iface ? "network interface '%s' has no %s address"
                         : "there is no network interface '%s' (%s)",
             name, ipv6 ? "IPv6" : "IPv4");
    return SHOAL_ERR_NOT_FOUND;
}

shoal_status_t shoal_store_default_addr(int ipv6, uint16_t port, shoal_store_sockaddr_t *sa_p)
{
    struct ifaddrs *list, *ifa;
    int family = ipv6 ? AF_INET6 : AF_INET;

    if (getifaddrs(&list) == 0) {
        for (ifa = list; ifa != NULL; ifa = ifa->ifa_next) {
            if (ifa->ifa_addr == NULL || ifa->ifa_addr->sa_family != family ||
                !(ifa->ifa_flags & IFF_UP) || (ifa->ifa_flags & IFF_LOOPBACK))
                continue;
            if (family == AF_INET6 &&
                IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)ifa->ifa_addr)->sin6_addr))
                continue;
            from_ifaddr(ifa, port, sa_p);
            freeifaddrs(list);
            return SHOAL_OK;
        }
        freeifaddrs(list);
    }
    special_addr(ipv6, 1, port, sa_p);
    return SHOAL_OK;
}

shoal_status_t shoal_store_listen(const shoal_store_sockaddr_t *sa, int *fd_p,
                                  shoal_store_sockaddr_t *bound_p)
{
    char text[SHOAL_STORE_ADDR_TEXT];
    int one = 1, zero = 0;
    int fd = socket(sa->ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    shoal_store_sockaddr_format(sa, text, sizeof(text));
    if (fd < 0) {
        SHOAL_ERROR("config store: socket() for %s failed: %m", text);
        return SHOAL_ERR_SYSTEM;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (sa->ss.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    if (bind(fd, (const struct sockaddr *)&sa->ss, sa->len) != 0) {
        int err = errno;
        SHOAL_ERROR("config store: cannot listen on %s: %s; %s", text, strerror(err),
                    err == EADDRINUSE
                        ? "another job's store (or another program) uses this port: choose "
                          "another port in SHOAL_STORE, the same on every PE"
                        : "the address must belong to this host (check SHOAL_STORE and "
                          "SHOAL_STORE_LISTEN_IFACE)");
        close(fd);
        return err == EADDRINUSE ? SHOAL_ERR_UNREACHABLE : SHOAL_ERR_INVALID;
    }
    if (listen(fd, 1024) != 0) {
        SHOAL_ERROR("config store: listen() on %s failed: %m", text);
        close(fd);
        return SHOAL_ERR_SYSTEM;
    }
    bound_p->len = sizeof(bound_p->ss);
    if (getsockname(fd, (struct sockaddr *)&bound_p->ss, &bound_p->len) != 0) {
        SHOAL_ERROR("config store: getsockname() on %s failed: %m", text);
        close(fd);
        return SHOAL_ERR_SYSTEM;
    }
    *fd_p = fd;
    return SHOAL_OK;
}

int shoal_store_wait_fd(int fd, short events, uint64_t deadline_ms)
{
    for (;;) {
        /* Look at least once, even when the deadline has passed. */
        uint64_t now = shoal_store_now_ms();
        uint64_t left = now >= deadline_ms ? 0 : deadline_ms - now;
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (rc > 0)
            return 1;
        if (rc < 0 && errno != EINTR)
            return 1; /* let the caller's next call report the error */
        if (shoal_store_now_ms() >= deadline_ms)
            return 0;
    }
}

void shoal_store_tune_socket(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    /* A link cut or a host gone without a word (no FIN, no RST) is noticed
     * within SHOAL_NET_TIMEOUT: a quiet connection is probed (the peer's
     * kernel answers, however busy its process is) and dropped when the
     * probes go unanswered; one with data in flight is dropped when
     * nothing was acknowledged for that long (TCP_USER_TIMEOUT; without
     * it a retransmitting connection lasts ~15 minutes). The store and
     * the PEs then see ETIMEDOUT and name the unreachable host. */
    const shoal_env_t *env = shoal_env_get(); /* NULL: a bad setting, reported by init */
    unsigned s = env != NULL ? env->net_timeout : 0;
    if (s == 0)
        return;
    /* Probes a tenth of the timeout apart: the kernel checks the timeout
     * at each probe, so the drop comes at most one step after it. */
    int step = s >= 10 ? (int)s / 10 : 1;
    int cnt = (int)s / step - 1 > 0 ? (int)s / step - 1 : 1;
    unsigned user_ms = s * 1000u;
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &step, sizeof(step));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &step, sizeof(step));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms));
}

int shoal_store_errno_unreachable(int err)
{
    return err == ETIMEDOUT || err == EHOSTUNREACH || err == ENETUNREACH || err == EHOSTDOWN ||
           err == ENETDOWN;
}

shoal_status_t shoal_store_connect(const shoal_store_addr_t *addr, uint64_t deadline_ms, int *fd_p,
                                   char *why, size_t why_size)
{
    shoal_store_sockaddr_t sa;
    shoal_status_t status = shoal_store_resolve(addr, &sa, why, why_size);
    int fd, err = 0;
    socklen_t err_len = sizeof(err);

    if (status != SHOAL_OK)
        return status;
    fd = socket(sa.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(why, why_size, "socket() failed: %s", strerror(errno));
        return SHOAL_ERR_UNREACHABLE;
    }
    shoal_store_tune_socket(fd);
    if (connect(fd, (const struct sockaddr *)&sa.ss, sa.len) != 0 && errno != EINPROGRESS) {
        snprintf(why, why_size, "%s", strerror(errno));
        close(fd);
        return SHOAL_ERR_UNREACHABLE;
    }
    if (!shoal_store_wait_fd(fd, POLLOUT, deadline_ms)) {
        snprintf(why, why_size, "no answer (the connection attempt timed out)");
        close(fd);
        return SHOAL_ERR_TIMEOUT;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &err_len) != 0)
        err = errno;
    if (err != 0) {
        snprintf(why, why_size, "%s", strerror(err));
        close(fd);
        return err == ETIMEDOUT ? SHOAL_ERR_TIMEOUT : SHOAL_ERR_UNREACHABLE;
    }
    *fd_p = fd;
    return SHOAL_OK;
}
