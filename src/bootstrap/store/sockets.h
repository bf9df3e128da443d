/*
 * Addresses and sockets for the config store: parsing "host:port" and
 * "[v6addr]:port", the address of a network interface chosen by name,
 * listening sockets, and non-blocking connects bounded by a deadline.
 */
#ifndef SHOAL_BOOTSTRAP_STORE_SOCKETS_H
#define SHOAL_BOOTSTRAP_STORE_SOCKETS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util/status.h"

#define SHOAL_STORE_HOST_MAX 256
#define SHOAL_STORE_ADDR_TEXT 300 /* "[host]:port" */

typedef struct {
    char host[SHOAL_STORE_HOST_MAX]; /* without brackets */
    uint16_t port;
} shoal_store_addr_t;

/* A resolved socket address. */
typedef struct {
    struct sockaddr_storage ss;
    socklen_t len;
} shoal_store_sockaddr_t;

/* Milliseconds on the monotonic clock. */
uint64_t shoal_store_now_ms(void);

/* Parses "host", "host:port", "[v6]" or "[v6]:port" (a bare IPv6 literal
 * is a host without port); a missing port is `default_port`. On error
 * returns SHOAL_ERR_INVALID and the rule broken in `why`. */
shoal_status_t shoal_store_addr_parse(const char *text, uint16_t default_port,
                                      shoal_store_addr_t *addr_p, char *why, size_t why_size);
/* "host:port", or "[host]:port" when the host contains ':'. */
void shoal_store_addr_format(const shoal_store_addr_t *addr, char *out, size_t size);
void shoal_store_sockaddr_format(const shoal_store_sockaddr_t *sa, char *out, size_t size);
/* The numeric host and port of a socket address. */
void shoal_store_sockaddr_split(const shoal_store_sockaddr_t *sa, shoal_store_addr_t *addr_p);

/* Resolves host and port to the first usable address (numeric or by name);
 * on failure the resolver's reason is in `why`. */
shoal_status_t shoal_store_resolve(const shoal_store_addr_t *addr, shoal_store_sockaddr_t *sa_p,
                                   char *why, size_t why_size);

/* The address of network interface `name` (IPv4 unless `ipv6`; "*" means
 * every interface, the wildcard address), with `port`. */
shoal_status_t shoal_store_iface_addr(const char *name, int ipv6, uint16_t port,
                                      shoal_store_sockaddr_t *sa_p, char *why, size_t why_size);
/* The address of the first interface that is up and not loopback, or the
 * loopback address when there is none. */
shoal_status_t shoal_store_default_addr(int ipv6, uint16_t port, shoal_store_sockaddr_t *sa_p);

/* A non-blocking, close-on-exec listening socket bound to `sa`; the bound
 * address (with the port chosen for port 0) in *bound_p. Logs the cause. */
shoal_status_t shoal_store_listen(const shoal_store_sockaddr_t *sa, int *fd_p,
                                  shoal_store_sockaddr_t *bound_p);

/*
 * Starts a TCP connection to `addr`, resolving its host each time, and waits
 * for it until `deadline_ms` (monotonic). Returns SHOAL_OK and a
 * non-blocking socket, or SHOAL_ERR_UNREACHABLE / SHOAL_ERR_TIMEOUT with the
 * cause in `why` (the caller decides whether to retry).
 */
shoal_status_t shoal_store_connect(const shoal_store_addr_t *addr, uint64_t deadline_ms, int *fd_p,
                                   char *why, size_t why_size);

/* TCP_NODELAY, and keepalive with a user timeout so that a dead link or
 * host is noticed within SHOAL_NET_TIMEOUT seconds (the read or write then
 * fails with ETIMEDOUT). */
void shoal_store_tune_socket(int fd);

/* 1 when a socket's errno `err` says the peer's host or the link to it is
 * unreachable (timed out, no route) rather than that the peer closed. */
int shoal_store_errno_unreachable(int err);

/* Waits until `fd` is readable (events POLLIN) or writable (POLLOUT), or
 * `deadline_ms` passes. Returns 1 when ready, 0 on timeout. */
int shoal_store_wait_fd(int fd, short events, uint64_t deadline_ms);

#endif
