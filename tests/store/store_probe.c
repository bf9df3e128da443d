/*
 * A hand-made peer for the config-store tests: it speaks (or breaks) the
 * store's protocol on purpose, using the library's own codec, links and TLS
 * (compiled in from src/bootstrap). Only loopback addresses are used.
 *
 *   free-port [6]                  print a free TCP port on 127.0.0.1 (or ::1)
 *   wait ADDR                      wait (10 s at most) until something listens at ADDR
 *   greet ADDR VERSION SEC KEY     send a greeting (KEY: hex secret or -), print the verdict
 *   raw ADDR HEX                   send raw bytes, report whether the store closed
 *   frames ADDR KEY CASE           greet, authenticate, send a malformed frame
 *                                  (CASE: type, oversize, reserved, trailing, no-hello,
 *                                  bad-hello, truncated), report whether it closed
 *   fake-store PORT VERSION VERDICT  answer one greeting as a store would, then close
 *   idle PORT COUNT SECS HOLD      open COUNT idle connections (nothing sent) to
 *                                  127.0.0.1:PORT within SECS s, print "connected N
 *                                  closed M" (M: closed by the store meanwhile), hold
 *                                  them HOLD s at most, then exit
 *
 * Output lines: "verdict V version N security S", "closed", "open", "ready".
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include "bootstrap/store/link.h"
#include "bootstrap/store/sockets.h"
#include "bootstrap/store/proto.h"

static int usage(void)
{
    fprintf(stderr,
            "usage: store_probe free-port [6] | greet ADDR VERSION SEC KEY | raw ADDR "
            "HEX | frames ADDR KEY CASE | fake-store PORT VERSION VERDICT | idle PORT COUNT "
            "SECS HOLD\n");
    return 2;
}

static int die(const char *what)
{
    fprintf(stderr, "store_probe: %s\n", what);
    return 3;
}

static int parse_hex(const char *hex, uint8_t *out, size_t max, size_t *len_p)
{
    size_t n = strlen(hex);
    if (n % 2 || n / 2 > max)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    *len_p = n / 2;
    return 0;
}

static int connect_to(const char *text)
{
    shoal_store_addr_t addr;
    char why[256];
    int fd;
    if (shoal_store_addr_parse(text, 8666, &addr, why, sizeof(why)) != SHOAL_OK ||
        shoal_store_connect(&addr, shoal_store_now_ms() + 5000, &fd, why, sizeof(why)) !=
            SHOAL_OK) {
        fprintf(stderr, "store_probe: cannot connect to %s: %s\n", text, why);
        exit(3);
    }
    return fd;
}

/* Waits up to 5 s for the peer to close (reading and discarding). */
static const char *closed_or_open(int fd)
{
    uint64_t deadline = shoal_store_now_ms() + 5000;
    char buf[4096];
    while (shoal_store_wait_fd(fd, POLLIN, deadline)) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            return "closed";
    }
    return "open";
}

static void send_raw(int fd, const void *p, size_t n)
{
    if (send(fd, p, n, MSG_NOSIGNAL) != (ssize_t)n) {
        perror("store_probe: send");
        exit(3);
    }
}

static int wait_listen(int argc, char **argv)
{
    shoal_store_addr_t addr;
    char why[256];
    int fd;
    if (argc < 3 || shoal_store_addr_parse(argv[2], 8666, &addr, why, sizeof(why)) != SHOAL_OK)
        return usage();
    uint64_t deadline = shoal_store_now_ms() + 10000;
    while (shoal_store_connect(&addr, deadline, &fd, why, sizeof(why)) != SHOAL_OK) {
        if (shoal_store_now_ms() >= deadline)
            return die("nothing listens there");
        usleep(20000);
    }
    close(fd); /* before any greeting: the store forgets it quietly */
    return 0;
}

static int greet(int argc, char **argv)
{
    uint8_t hello[SHOAL_STORE_HELLO_BYTES], key_id[SHOAL_STORE_KEY_ID_BYTES] = {0};
    uint8_t secret[SHOAL_STORE_SECRET_BYTES], reply[SHOAL_STORE_REPLY_BYTES];
    uint8_t version, security, verdict;
    size_t len, got = 0;

    if (argc < 6)
        return usage();
    int fd = connect_to(argv[2]);
    if (strcmp(argv[5], "-") != 0) {
        if (parse_hex(argv[5], secret, sizeof(secret), &len) != 0 || len != sizeof(secret))
            return die("bad key");
        shoal_store_key_id(secret, key_id);
    }
    shoal_store_greeting_encode(hello, (uint8_t)atoi(argv[4]), key_id);
    hello[4] = (uint8_t)atoi(argv[3]);
    send_raw(fd, hello, sizeof(hello));
    while (got < sizeof(reply) && shoal_store_wait_fd(fd, POLLIN, shoal_store_now_ms() + 5000)) {
        ssize_t n = recv(fd, reply + got, sizeof(reply) - got, 0);
        if (n <= 0 && errno != EAGAIN)
            break;
        if (n > 0)
            got += (size_t)n;
    }
    if (got < sizeof(reply) ||
        shoal_store_reply_decode(reply, &version, &security, &verdict) != SHOAL_OK) {
        printf("closed\n");
        return 0;
    }
    printf("verdict %u version %u security %u\n", verdict, version, security);
    printf("%s\n", closed_or_open(fd));
    return 0;
}

static int raw(int argc, char **argv)
{
    uint8_t bytes[4096];
    size_t len;
    if (argc < 4 || parse_hex(argv[3], bytes, sizeof(bytes), &len) != 0)
        return usage();
    int fd = connect_to(argv[2]);
    send_raw(fd, bytes, len);
    printf("%s\n", closed_or_open(fd));
    return 0;
}

/* Sends a whole buffer over a link, waiting as needed. */
static int link_send(shoal_store_link_t *l, const uint8_t *p, size_t n)
{
    uint64_t deadline = shoal_store_now_ms() + 5000;
    while (n > 0) {
        long k = shoal_store_link_write(l, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (k == SHOAL_STORE_IO_WANT_READ || k == SHOAL_STORE_IO_WANT_WRITE) {
            if (!shoal_store_wait_fd(l->fd, k == SHOAL_STORE_IO_WANT_READ ? POLLIN : POLLOUT,
                                     deadline))
                return -1;
        } else {
            return -1; /* closed already: fine for the caller */
        }
    }
    return 0;
}

/* Reads through the link until it closes (5 s at most). */
static const char *link_closed_or_open(shoal_store_link_t *l)
{
    uint64_t deadline = shoal_store_now_ms() + 5000;
    uint8_t buf[4096];
    for (;;) {
        long k = shoal_store_link_read(l, buf, sizeof(buf));
        if (k > 0)
            continue;
        if (k == SHOAL_STORE_IO_EOF || k == SHOAL_STORE_IO_ERROR)
            return "closed";
        if (!shoal_store_wait_fd(l->fd, k == SHOAL_STORE_IO_WANT_WRITE ? POLLOUT : POLLIN,
                                 deadline))
            return "open";
    }
}

static void put_header(shoal_store_buf_t *b, uint32_t body, uint16_t type, uint16_t reserved)
{
    uint8_t h[8] = {
        (uint8_t)(body >> 24), (uint8_t)(body >> 16), (uint8_t)(body >> 8),     (uint8_t)body,
        (uint8_t)(type >> 8),  (uint8_t)type,         (uint8_t)(reserved >> 8), (uint8_t)reserved};
    shoal_store_buf_append(b, h, sizeof(h));
}

static int frames(int argc, char **argv)
{
    uint8_t hello[SHOAL_STORE_HELLO_BYTES], key_id[SHOAL_STORE_KEY_ID_BYTES] = {0};
    uint8_t secret[SHOAL_STORE_SECRET_BYTES], reply[SHOAL_STORE_REPLY_BYTES];
    shoal_store_link_t *link = NULL;
    shoal_store_tls_t *tls = NULL;
    shoal_store_buf_t out = {0};
    size_t len, got = 0;
    int psk = 0;

    if (argc < 5)
        return usage();
    const char *what = argv[4];
    int fd = connect_to(argv[2]);
    if (strcmp(argv[3], "-") != 0) {
        if (parse_hex(argv[3], secret, sizeof(secret), &len) != 0 || len != sizeof(secret))
            return die("bad key");
        shoal_store_key_id(secret, key_id);
        psk = 1;
    }
    shoal_store_greeting_encode(hello, psk ? SHOAL_STORE_SEC_PSK : SHOAL_STORE_SEC_PLAIN, key_id);
    send_raw(fd, hello, sizeof(hello));
    while (got < sizeof(reply) && shoal_store_wait_fd(fd, POLLIN, shoal_store_now_ms() + 5000)) {
        ssize_t n = recv(fd, reply + got, sizeof(reply) - got, 0);
        if (n <= 0 && errno != EAGAIN)
            return die("the store closed during the greeting");
        if (n > 0)
            got += (size_t)n;
    }
    if (got < sizeof(reply) || reply[6] != SHOAL_STORE_GREET_OK)
        return die("the store refused the greeting");
    if (psk) {
        if (shoal_store_tls_create(0, SHOAL_STORE_SEC_PSK, secret, NULL, &tls) != SHOAL_OK ||
            shoal_store_link_tls_create(tls, fd, NULL, &link) != SHOAL_OK)
            return die("TLS setup failed");
        uint64_t deadline = shoal_store_now_ms() + 5000;
        int rc;
        while ((rc = shoal_store_link_handshake(link)) != 0) {
            if ((rc != SHOAL_STORE_IO_WANT_READ && rc != SHOAL_STORE_IO_WANT_WRITE) ||
                !shoal_store_wait_fd(fd, rc == SHOAL_STORE_IO_WANT_READ ? POLLIN : POLLOUT,
                                     deadline))
                return die("TLS handshake failed");
        }
    } else if (shoal_store_link_tcp_create(fd, &link) != SHOAL_OK) {
        return die("link failed");
    }

    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_HELLO};
    static const char host[] = "probe|host|ns";
    m.u.hello.rank = 0;
    m.u.hello.npes = 1;
    m.u.hello.host = shoal_store_span(host, sizeof(host) - 1);
    if (strcmp(what, "type") == 0) {
        put_header(&out, 0, 77, 0);
    } else if (strcmp(what, "oversize") == 0) {
        put_header(&out, 0x7fffffff, SHOAL_STORE_MSG_PUT, 0);
    } else if (strcmp(what, "reserved") == 0) {
        put_header(&out, 0, SHOAL_STORE_MSG_BARRIER, 1);
    } else if (strcmp(what, "trailing") == 0) {
        put_header(&out, 4, SHOAL_STORE_MSG_BARRIER, 0);
        shoal_store_buf_append(&out, "xxxx", 4);
    } else if (strcmp(what, "no-hello") == 0) {
        m.type = SHOAL_STORE_MSG_BARRIER;
        shoal_store_encode(&out, &m);
    } else if (strcmp(what, "bad-hello") == 0) {
        /* rank 5 of 2 PEs: the decoder refuses it */
        put_header(&out, 12 + 2 + 1, SHOAL_STORE_MSG_HELLO, 0);
        uint8_t body[] = {0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 'h'};
        shoal_store_buf_append(&out, body, sizeof(body));
    } else if (strcmp(what, "truncated") == 0) {
        /* a PUT whose value length runs past the end of its body */
        put_header(&out, 2 + 1 + 4, SHOAL_STORE_MSG_PUT, 0);
        uint8_t body[] = {0, 1, 'k', 0, 0, 1, 0};
        shoal_store_buf_append(&out, body, sizeof(body));
    } else {
        return usage();
    }
    link_send(link, out.data, out.len);
    printf("%s\n", link_closed_or_open(link));
    shoal_store_buf_free(&out);
    shoal_store_link_destroy(link);
    shoal_store_tls_destroy(tls);
    return 0;
}

static int fake_store(int argc, char **argv)
{
    shoal_store_sockaddr_t sa = {0}, bound;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&sa.ss;
    uint8_t hello[SHOAL_STORE_HELLO_BYTES], reply[SHOAL_STORE_REPLY_BYTES];
    int lfd, fd;
    size_t got = 0;

    if (argc < 5)
        return usage();
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)atoi(argv[2]));
    s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.len = sizeof(*s4);
    if (shoal_store_listen(&sa, &lfd, &bound) != SHOAL_OK)
        return die("cannot listen");
    printf("ready\n");
    fflush(stdout);
    if (!shoal_store_wait_fd(lfd, POLLIN, shoal_store_now_ms() + 20000))
        return die("nobody came");
    fd = accept(lfd, NULL, NULL);
    while (got < sizeof(hello) && shoal_store_wait_fd(fd, POLLIN, shoal_store_now_ms() + 5000)) {
        ssize_t n = recv(fd, hello + got, sizeof(hello) - got, 0);
        if (n <= 0 && errno != EAGAIN)
            return die("the client closed");
        if (n > 0)
            got += (size_t)n;
    }
    shoal_store_reply_encode(reply, hello[5], (uint8_t)atoi(argv[4]));
    reply[4] = (uint8_t)atoi(argv[3]);
    send_raw(fd, reply, sizeof(reply));
    printf("%s\n", closed_or_open(fd));
    return 0;
}

/* A stranger that takes connections and says nothing: each is connected
 * without blocking, and counted once the kernel says it is up (the store
 * may close it at any time after; that is counted too). */
static int idle(int argc, char **argv)
{
    if (argc < 6)
        return usage();
    int port = atoi(argv[2]), count = atoi(argv[3]);
    uint64_t now = shoal_store_now_ms();
    uint64_t connect_end = now + (uint64_t)atoi(argv[4]) * 1000;
    uint64_t hold_end = now + (uint64_t)atoi(argv[5]) * 1000;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct rlimit rl = {(rlim_t)count + 64, (rlim_t)count + 64};
    struct pollfd *fds = calloc((size_t)count, sizeof(*fds));
    int connected = 0, closed = 0, waiting = 0;

    if (count <= 0 || port <= 0 || fds == NULL)
        return usage();
    /* Its own limit: the job's is what the test is about. */
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        return die("cannot raise RLIMIT_NOFILE for the connections");
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < count; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return die("socket failed");
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
            connected++;
            fds[i] = (struct pollfd){.fd = fd, .events = POLLIN};
        } else if (errno == EINPROGRESS) {
            waiting++;
            fds[i] = (struct pollfd){.fd = fd, .events = POLLOUT};
        } else {
            close(fd);
            fds[i].fd = -1;
        }
    }
    /* Until every connect has an answer (or time is up), then hold. */
    for (int reported = 0;;) {
        now = shoal_store_now_ms();
        if (!reported && (waiting == 0 || now >= connect_end)) {
            printf("connected %d closed %d (%d still connecting)\n", connected, closed, waiting);
            fflush(stdout);
            reported = 1;
        }
        if (now >= hold_end)
            break;
        uint64_t end = reported ? hold_end : connect_end;
        int rc = poll(fds, (nfds_t)count, (int)(end - now < 200 ? end - now : 200));
        for (int i = 0; rc > 0 && i < count; i++) {
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            if (fds[i].events == POLLOUT) {
                int err = 0;
                socklen_t len = sizeof(err);
                getsockopt(fds[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
                waiting--;
                if (err == 0) {
                    connected++;
                    fds[i].events = POLLIN;
                    continue;
                }
            } else {
                closed++;
            }
            close(fds[i].fd);
            fds[i].fd = -1;
        }
    }
    free(fds);
    return 0;
}

static int free_port(int argc, char **argv)
{
    int v6 = argc > 2 && strcmp(argv[2], "6") == 0;
    shoal_store_sockaddr_t sa = {0}, bound;
    int fd;
    if (v6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&sa.ss;
        s6->sin6_family = AF_INET6;
        s6->sin6_addr = in6addr_loopback;
        sa.len = sizeof(*s6);
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&sa.ss;
        s4->sin_family = AF_INET;
        s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sa.len = sizeof(*s4);
    }
    if (shoal_store_listen(&sa, &fd, &bound) != SHOAL_OK)
        return die("cannot bind");
    shoal_store_addr_t a;
    shoal_store_sockaddr_split(&bound, &a);
    printf("%u\n", (unsigned)a.port);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    if (strcmp(argv[1], "free-port") == 0)
        return free_port(argc, argv);
    if (strcmp(argv[1], "greet") == 0)
        return greet(argc, argv);
    if (strcmp(argv[1], "wait") == 0)
        return wait_listen(argc, argv);
    if (strcmp(argv[1], "raw") == 0)
        return raw(argc, argv);
    if (strcmp(argv[1], "frames") == 0)
        return frames(argc, argv);
    if (strcmp(argv[1], "fake-store") == 0)
        return fake_store(argc, argv);
    if (strcmp(argv[1], "idle") == 0)
        return idle(argc, argv);
    return usage();
}
