/*
 * shoalrun as one host's part of a multi-host job (remote.c starts it there
 * through the launch agent, with SR_HOST_PART_OPTION). It runs its share of
 * the PEs as a one-host shoalrun does, except for their bootstrap: the PEs
 * join through the config store (SHOAL_STORE, hosted by PE 0's process) with
 * the job key, and the exit status of its PEs is all it judges; the store
 * itself ends the job everywhere when a PE leaves it early.
 *
 * Its standard input is the launching shoalrun's channel: the first line is
 * the job key (so it never appears on a command line), then control lines
 * ("signal N", "timeout", "hang"); EOF means the launcher is gone, and the
 * PEs are ended. Its PEs read /dev/null.
 *
 * The host of PE 0 chooses the store's port: it binds a socket to port 0
 * with SO_REUSEADDR, never listens on it, and keeps it open for the whole
 * job, so the kernel gives that port to no one else while PE 0's store,
 * also with SO_REUSEADDR, binds and listens on it. It reports the port as
 * the first line of its standard output ("shoalrun-store-port N"), before
 * any PE starts; the launcher then starts the other hosts.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shoalrun.h"

#define KEY_WAIT_MS 60000

/* Reads the key line from stdin a byte at a time, so nothing after it (the
 * control lines) is taken from the pipe. */
static int read_key(sr_part_t *part)
{
    size_t len = 0;
    char c;

    for (;;) {
        struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
        int n = poll(&p, 1, KEY_WAIT_MS);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0) {
            sr_msg("no job key on standard input within %d s", KEY_WAIT_MS / 1000);
            return -1;
        }
        ssize_t got = read(STDIN_FILENO, &c, 1);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0 || c == '\n')
            break;
        if (len + 1 >= sizeof(part->key)) {
            len = 0; /* too long: refused below */
            break;
        }
        part->key[len++] = c;
    }
    part->key[len] = '\0';
    if (len != SR_KEY_HEX_LEN || strspn(part->key, "0123456789abcdef") != len) {
        sr_msg("standard input does not start with a job key (%d hex digits)", SR_KEY_HEX_LEN);
        return -1;
    }
    return 0;
}

/* Binds a socket to any free port, without listening (see the top). */
static int reserve_port(sr_part_t *part)
{
    int one = 1, zero = 0;
    struct sockaddr_storage ss = {0};
    socklen_t len;
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd >= 0) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_any;
        len = sizeof(*s6);
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(INADDR_ANY);
        len = sizeof(*s4);
    }
    if (fd < 0) {
        sr_msg("cannot choose the config store's port: socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        sr_msg("cannot choose the config store's port: bind: %s", strerror(errno));
        close(fd);
        return -1;
    }
    part->port_fd = fd;
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

int sr_part_setup(sr_part_t *part, const char *spec)
{
    int used = 0;
    char store_host[256];
    int port = -1;

    *part = (sr_part_t){.ctl_fd = STDIN_FILENO, .port_fd = -1};
    /* FIRST,COUNT,NPES,STOREHOST,PORT,NAME (remote.c writes it). */
    if (sscanf(spec, "%d,%d,%d,%255[^,],%d,%n", &part->first_rank, &part->npes, &part->global_npes,
               store_host, &port, &used) != 5 ||
        used == 0 || part->first_rank < 0 || part->npes < 1 ||
        part->first_rank + part->npes > part->global_npes || part->global_npes > SR_MAX_NPES ||
        port < 0 || port > 65535 || spec[used] == '\0' || strlen(spec + used) > 255) {
        sr_msg("%s: malformed value '%s' (it is for shoalrun's own use)", SR_HOST_PART_OPTION,
               spec);
        return -1;
    }
    snprintf(part->name, sizeof(part->name), "%s", spec + used);
    char who[300];
    snprintf(who, sizeof(who), "shoalrun@%s", part->name);
    sr_msg_set_name(who);
    if (read_key(part) != 0)
        return -1;
    if (port == 0) {
        if ((port = reserve_port(part)) < 0)
            return -1;
        char line[64];
        int n = snprintf(line, sizeof(line), SR_PORT_LINE " %d\n", port);
        if (sr_write_all(STDOUT_FILENO, line, (size_t)n) != 0)
            return -1;
    }
    snprintf(part->store, sizeof(part->store), "%s:%d", store_host, port);
    (void)sr_set_nonblocking(part->ctl_fd);
    return 0;
}

sr_control_t sr_part_control(sr_part_t *part, int *sig_p)
{
    for (;;) {
        char *nl = memchr(part->ctl_buf, '\n', part->ctl_len);
        if (nl != NULL) {
            sr_control_t c = SR_CTL_NONE;
            *nl = '\0';
            if (sscanf(part->ctl_buf, "signal %d", sig_p) == 1 && *sig_p > 0 && *sig_p < 65)
                c = SR_CTL_SIGNAL;
            else if (strcmp(part->ctl_buf, "timeout") == 0)
                c = SR_CTL_TIMEOUT;
            else if (strcmp(part->ctl_buf, "hang") == 0)
                c = SR_CTL_HANG;
            size_t used = (size_t)(nl - part->ctl_buf) + 1;
            memmove(part->ctl_buf, nl + 1, part->ctl_len - used);
            part->ctl_len -= used;
            if (c != SR_CTL_NONE)
                return c;
            continue; /* an unknown line: ignored */
        }
        if (part->ctl_fd < 0)
            return SR_CTL_NONE;
        if (part->ctl_len == sizeof(part->ctl_buf))
            part->ctl_len = 0; /* an over-long line: dropped */
        ssize_t n = read(part->ctl_fd, part->ctl_buf + part->ctl_len,
                         sizeof(part->ctl_buf) - part->ctl_len);
        if (n > 0) {
            part->ctl_len += (size_t)n;
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return SR_CTL_NONE;
        part->ctl_fd = -1; /* EOF (or an error): the launcher is gone */
        return SR_CTL_EOF;
    }
}
