/*
 * ucp_probe: the floor of UCX itself for the operations Shoal and OSHMEM
 * time between two hosts -- 8-byte put + worker flush, 8-byte get, 64-bit
 * fetch-add -- in plain UCP, with no SHMEM library around it. Both sides
 * busy-poll their worker in one thread (no wakeup, no progress thread, a
 * single-thread worker), so nothing but UCX and the wire is measured.
 *
 * The server maps a buffer, sends its worker address and packed rkey over a
 * TCP socket, then progresses its worker until the client closes the socket.
 * The client times N repetitions of each operation and prints one line per
 * operation: "bench=ucp_probe op=OP usec=MEDIAN min=MIN". Every put is read
 * back by the next get's check and every fetch-add's old value is checked,
 * so a probe that does not move data fails.
 *
 * Then windows of WIN non-blocking 64 KiB gets (bw_rma's getmem_nbi row):
 * get_win_req waits for each get's own request, as Shoal's quiet does;
 * get_win_flush frees the requests at once and flushes the worker, as
 * OSHMEM's quiet does. Reported per message (window time / WIN); the last
 * window's bytes are checked against the server's pattern.
 *
 * --shoal-like: the context, worker and endpoint as Shoal's UCX transport
 * makes them (features AM, AMO32 and WAKEUP besides RMA and AMO64, workers
 * shared between threads with a mutex, thread mode SERIALIZED -- Shoal
 * keeps its threads apart with its own lock --, peer error handling),
 * still polled by one thread: the difference to the plain probe is what
 * those settings cost UCX itself (OSHMEM's worker is the plain one). With
 * thread mode MULTI, as Shoal had it before, across two namespaces, medians
 * of 5 interleaved runs: get and fetch-add +0.1 us, put + flush +0.45 us.
 *
 * usage: ucp_probe [--shoal-like] -l PORTFILE          (server: listens on a free port and
 *                                       writes its number to PORTFILE)
 *        ucp_probe [--shoal-like] HOST PORT [-n N]     (client)
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "ucp_probe: " __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static ucp_context_h ctx;
static ucp_worker_h worker;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        CHECK(n > 0, "write to the control socket failed");
        p += n;
        len -= (size_t)n;
    }
}

static void recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        CHECK(n > 0, "read from the control socket failed");
        p += n;
        len -= (size_t)n;
    }
}

/* Length-prefixed blob over the control socket. */
static void send_blob(int fd, const void *buf, uint64_t len)
{
    send_all(fd, &len, sizeof(len));
    send_all(fd, buf, len);
}

static void *recv_blob(int fd)
{
    uint64_t len;
    recv_all(fd, &len, sizeof(len));
    void *buf = malloc(len);
    CHECK(buf != NULL, "out of memory");
    recv_all(fd, buf, len);
    return buf;
}

static void wait_req(ucs_status_ptr_t req, const char *what)
{
    ucs_status_t st = UCS_OK;
    if (UCS_PTR_IS_ERR(req)) {
        st = UCS_PTR_STATUS(req);
    } else if (req != NULL) {
        while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
            ucp_worker_progress(worker);
        ucp_request_free(req);
    }
    CHECK(st == UCS_OK, "%s failed: %s", what, ucs_status_string(st));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *op, double *lat, int n)
{
    qsort(lat, (size_t)n, sizeof(*lat), cmp_double);
    printf("bench=ucp_probe op=%s usec=%.2f min=%.2f\n", op, lat[n / 2], lat[0]);
}

/* The server's buffer: words for put, get and fetch-add, then 64 KiB for
 * the windowed gets, filled with pattern(i). */
#define WIN 64
#define WIN_BYTES 65536
#define WIN_OFF 4096
static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 37 + 11);
}

static void serve(const char *portfile)
{
    static uint64_t buf[(WIN_OFF + WIN_BYTES) / 8];
    for (size_t i = 0; i < WIN_BYTES; i++)
        ((unsigned char *)buf)[WIN_OFF + i] = pattern(i);
    ucp_mem_map_params_t mp = {.field_mask =
                                   UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
                               .address = buf,
                               .length = sizeof(buf)};
    ucp_mem_h mem;
    CHECK(ucp_mem_map(ctx, &mp, &mem) == UCS_OK, "ucp_mem_map failed");
    void *rkey;
    size_t rkey_len;
    CHECK(ucp_rkey_pack(ctx, mem, &rkey, &rkey_len) == UCS_OK, "ucp_rkey_pack failed");
    ucp_address_t *addr;
    size_t addr_len;
    CHECK(ucp_worker_get_address(worker, &addr, &addr_len) == UCS_OK, "no worker address");

    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sa_len = sizeof(sa);
    CHECK(bind(ls, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(ls, 1) == 0 &&
              getsockname(ls, (struct sockaddr *)&sa, &sa_len) == 0,
          "cannot listen on a TCP port");
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", portfile);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL && fprintf(f, "%d\n", ntohs(sa.sin_port)) > 0 && fclose(f) == 0 &&
              rename(tmp, portfile) == 0,
          "cannot write the port to %s", portfile);
    int fd = accept(ls, NULL, NULL);
    CHECK(fd >= 0, "accept failed");
    uint64_t base = (uintptr_t)buf;
    send_blob(fd, addr, addr_len);
    send_blob(fd, rkey, rkey_len);
    send_blob(fd, &base, sizeof(base));
    /* Serve until the client hangs up; look at the socket now and then. */
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    for (unsigned i = 0;; i++) {
        ucp_worker_progress(worker);
        if ((i & 1023) == 0 && poll(&pfd, 1, 0) > 0)
            break;
    }
    close(fd);
    close(ls);
    ucp_rkey_buffer_release(rkey);
    ucp_worker_release_address(worker, addr);
    ucp_mem_unmap(ctx, mem);
}

static int dial(const char *host, const char *port)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    CHECK(getaddrinfo(host, port, &hints, &ai) == 0, "cannot resolve %s", host);
    int fd = -1;
    for (int tries = 0; tries < 100; tries++) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        close(fd);
        fd = -1;
        usleep(50000); /* the server may not listen yet */
    }
    freeaddrinfo(ai);
    CHECK(fd >= 0, "cannot connect to %s:%s", host, port);
    return fd;
}

/* --shoal-like also asks for peer error handling on the endpoint, as Shoal's
 * endpoints do (UCP_ERR_HANDLING_MODE_PEER). */
static int peer_errors;

static void drive(const char *host, const char *port, int n)
{
    int fd = dial(host, port);
    void *addr = recv_blob(fd), *packed = recv_blob(fd);
    uint64_t *base_p = recv_blob(fd), base = *base_p;
    ucp_ep_params_t ep_params = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS, .address = addr};
    if (peer_errors) {
        ep_params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
        ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    }
    ucp_ep_h ep;
    CHECK(ucp_ep_create(worker, &ep_params, &ep) == UCS_OK, "ucp_ep_create failed");
    ucp_rkey_h rkey;
    CHECK(ucp_ep_rkey_unpack(ep, packed, &rkey) == UCS_OK, "ucp_ep_rkey_unpack failed");

    int nwin = n / WIN > 20 ? n / WIN : 20; /* windows of gets, below */
    double *lat = malloc(sizeof(double) * (size_t)(n > nwin ? n : nwin));
    ucp_request_param_t p = {.op_attr_mask = 0};
    uint64_t val, got;
    /* Warm up the connection (wire-up happens on first use). */
    val = 1;
    wait_req(ucp_put_nbx(ep, &val, 8, base, rkey, &p), "put");
    wait_req(ucp_worker_flush_nbx(worker, &p), "flush");

    for (int r = 0; r < n; r++) {
        val = 0x5eed0000u + (uint64_t)r;
        double t0 = now_us();
        wait_req(ucp_put_nbx(ep, &val, 8, base, rkey, &p), "put");
        wait_req(ucp_worker_flush_nbx(worker, &p), "flush");
        lat[r] = now_us() - t0;
    }
    report("put_flush", lat, n);

    for (int r = 0; r < n; r++) {
        got = 0;
        double t0 = now_us();
        wait_req(ucp_get_nbx(ep, &got, 8, base, rkey, &p), "get");
        lat[r] = now_us() - t0;
        CHECK(got == 0x5eed0000u + (uint64_t)(n - 1), "get read %#llx, not the last put's value",
              (unsigned long long)got);
    }
    report("get", lat, n);

    /* Fetch-add on the next word, which starts at 0: old values count up. */
    ucp_request_param_t fp = {.op_attr_mask =
                                  UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
                              .datatype = ucp_dt_make_contig(8),
                              .reply_buffer = &got};
    for (int r = 0; r < n; r++) {
        uint64_t one = 1;
        double t0 = now_us();
        wait_req(ucp_atomic_op_nbx(ep, UCP_ATOMIC_OP_ADD, &one, 1, base + 8, rkey, &fp), "fadd");
        lat[r] = now_us() - t0;
        CHECK(got == (uint64_t)r, "fetch-add %d returned %llu", r, (unsigned long long)got);
    }
    report("fetch_add", lat, n);

    /* Windows of non-blocking 64 KiB gets, completed two ways. */
    static unsigned char win[WIN][WIN_BYTES];
    for (int flush = 0; flush <= 1; flush++) {
        for (int r = 0; r < nwin; r++) {
            ucs_status_ptr_t reqs[WIN];
            memset(win[WIN - 1], 0, WIN_BYTES);
            double t0 = now_us();
            for (int w = 0; w < WIN; w++) {
                reqs[w] = ucp_get_nbx(ep, win[w], WIN_BYTES, base + WIN_OFF, rkey, &p);
                CHECK(!UCS_PTR_IS_ERR(reqs[w]), "get failed: %s",
                      ucs_status_string(UCS_PTR_STATUS(reqs[w])));
                if (flush && reqs[w] != NULL)
                    ucp_request_free(reqs[w]);
            }
            if (flush)
                wait_req(ucp_worker_flush_nbx(worker, &p), "flush");
            else
                for (int w = 0; w < WIN; w++)
                    wait_req(reqs[w], "get");
            lat[r] = (now_us() - t0) / WIN;
            for (size_t i = 0; i < WIN_BYTES; i++)
                CHECK(win[WIN - 1][i] == pattern(i), "windowed get: byte %zu is %u, expected %u", i,
                      win[WIN - 1][i], pattern(i));
        }
        report(flush ? "get_win_flush" : "get_win_req", lat, nwin);
    }

    ucp_rkey_destroy(rkey);
    ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                              .flags = UCP_EP_CLOSE_FLAG_FORCE};
    ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &cp);
    if (req != NULL && !UCS_PTR_IS_ERR(req)) {
        while (ucp_request_check_status(req) == UCS_INPROGRESS)
            ucp_worker_progress(worker);
        ucp_request_free(req);
    }
    close(fd); /* tells the server to stop */
    free(lat);
    free(addr);
    free(packed);
    free(base_p);
}

int main(int argc, char **argv)
{
    int n = 10000, shoal_like = 0;
    const char *host = NULL, *sport = NULL, *portfile = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-l") == 0 && i + 1 < argc)
            portfile = argv[++i];
        else if (strcmp(argv[i], "--shoal-like") == 0)
            shoal_like = peer_errors = 1;
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (host == NULL)
            host = argv[i];
        else
            sport = argv[i];
    }
    CHECK(portfile != NULL || (host != NULL && sport != NULL && n > 0),
          "usage: ucp_probe [--shoal-like] -l PORTFILE | ucp_probe [--shoal-like] HOST PORT "
          "[-n N]");

    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 |
                    (shoal_like ? UCP_FEATURE_AMO32 | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP : 0),
        .mt_workers_shared = shoal_like,
    };
    if (shoal_like && getenv("UCX_USE_MT_MUTEX") == NULL)
        setenv("UCX_USE_MT_MUTEX", "y", 1);
    CHECK(ucp_init(&params, NULL, &ctx) == UCS_OK, "ucp_init failed");
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode =
                                  shoal_like ? UCS_THREAD_MODE_SERIALIZED : UCS_THREAD_MODE_SINGLE};
    CHECK(ucp_worker_create(ctx, &wp, &worker) == UCS_OK, "ucp_worker_create failed");
    if (portfile != NULL)
        serve(portfile);
    else
        drive(host, sport, n);
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
    return 0;
}
