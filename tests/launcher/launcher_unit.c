/*
 * Unit test of the launcher bootstrap (src/bootstrap/launcher.c, which hands
 * the inherited socketpair to the store client) against a fake launcher
 * written here with the store's codec: it checks the frames on the wire
 * (HELLO with shoalrun's rank, no greeting), feeds replies in small pieces,
 * and plays a launcher that goes away in the middle of a GET. Each check prints what it expected;
 * the exit status is the number of failed checks.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "bootstrap/store/proto.h"
#include "util/env.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* In the child, a failed check exits with 99 so the parent sees it. */
#define CHILD_CHECK(cond)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAILED in child %s:%d: %s\n", __FILE__, __LINE__, #cond);             \
            _exit(99);                                                                             \
        }                                                                                          \
    } while (0)

static void read_full(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            fprintf(stderr, "FAILED: fake launcher read: %s\n", n == 0 ? "EOF" : strerror(errno));
            exit(1);
        }
        p += n;
        len -= (size_t)n;
    }
}

/* Reads one whole frame into `frame` and decodes it (its spans point into
 * `frame`, valid until the next call). */
static shoal_store_msg_t read_msg(int fd, shoal_store_buf_t *frame)
{
    shoal_store_msg_t m;
    size_t len = 0;
    const char *why = NULL;

    frame->off = frame->len = 0;
    if (shoal_store_buf_reserve(frame, SHOAL_STORE_FRAME_HEADER) != SHOAL_OK)
        exit(1);
    read_full(fd, frame->data, SHOAL_STORE_FRAME_HEADER);
    frame->len = SHOAL_STORE_FRAME_HEADER;
    for (;;) {
        shoal_status_t st = shoal_store_frame_peek(frame->data, frame->len, &len, &why);
        if (st == SHOAL_OK)
            break;
        if (st != SHOAL_ERR_NOT_FOUND) {
            fprintf(stderr, "FAILED: the PE sent a bad frame header: %s\n", why);
            exit(1);
        }
        /* The header announces the body: read all of it. */
        size_t body = ((size_t)frame->data[0] << 24) | ((size_t)frame->data[1] << 16) |
                      ((size_t)frame->data[2] << 8) | frame->data[3];
        if (shoal_store_buf_reserve(frame, body) != SHOAL_OK)
            exit(1);
        read_full(fd, frame->data + frame->len, body);
        frame->len += body;
    }
    if (shoal_store_decode(frame->data, len, &m, &why) != SHOAL_OK) {
        fprintf(stderr, "FAILED: the PE sent a malformed frame: %s\n", why);
        exit(1);
    }
    return m;
}

static int span_is(shoal_store_span_t s, const char *text)
{
    return s.len == strlen(text) && memcmp(s.ptr, text, s.len) == 0;
}

/* Sends a reply a few bytes at a time, so the PE must handle short reads. */
static void send_reply_slowly(int fd, const shoal_store_msg_t *m)
{
    shoal_store_buf_t frame = {0};
    if (shoal_store_encode(&frame, m) != SHOAL_OK)
        exit(1);
    for (size_t off = 0; off < frame.len; off += 3) {
        size_t n = frame.len - off < 3 ? frame.len - off : 3;
        if (write(fd, frame.data + off, n) != (ssize_t)n)
            exit(1);
        usleep(1000);
    }
    shoal_store_buf_free(&frame);
}

static void send_empty_slowly(int fd, shoal_store_msg_type_t type)
{
    shoal_store_msg_t m = {.type = type};
    send_reply_slowly(fd, &m);
}

static void send_value_slowly(int fd, const void *value, size_t len)
{
    shoal_store_msg_t m = {.type = SHOAL_STORE_MSG_VALUE};
    m.u.value.value = shoal_store_span(value, len);
    send_reply_slowly(fd, &m);
}

/* The fake launcher's side of joining: HELLO from rank 1 of 3, WELCOME. */
static void expect_hello_welcome(int fd, shoal_store_buf_t *frame)
{
    shoal_store_msg_t m = read_msg(fd, frame);
    CHECK(m.type == SHOAL_STORE_MSG_HELLO && m.u.hello.rank == 1 && m.u.hello.npes == 3 &&
              m.u.hello.pid > 0,
          "HELLO rank 1 of 3, got %s rank %u npes %u", shoal_store_msg_name(m.type), m.u.hello.rank,
          m.u.hello.npes);
    shoal_store_msg_t w = {.type = SHOAL_STORE_MSG_WELCOME};
    w.u.welcome.local_rank = 1;
    w.u.welcome.local_npes = 3;
    w.u.welcome.job_id = shoal_store_span("1234-0badf00d", 13);
    send_reply_slowly(fd, &w);
}

/* As the library does: the settings are read, then the bootstrap starts. */
static shoal_status_t launcher_init(shoal_bootstrap_t *bs)
{
    shoal_env_load(&shoal_env);
    return shoal_bootstrap_launcher_init(bs);
}

static void set_job_env(int fd)
{
    char text[16];
    snprintf(text, sizeof(text), "%d", fd);
    setenv("SHOAL_LAUNCHER_FD", text, 1);
    setenv("SHOAL_RANK", "1", 1);
    setenv("SHOAL_NPES", "3", 1);
    setenv("SHOAL_LOCAL_RANK", "1", 1);
    setenv("SHOAL_LOCAL_NPES", "3", 1);
    setenv("SHOAL_JOB_ID", "1234-0badf00d", 1);
}

static void test_environment_errors(void)
{
    shoal_bootstrap_t bs;

    unsetenv("SHOAL_LAUNCHER_FD");
    CHECK(launcher_init(&bs) == SHOAL_ERR_NOT_FOUND,
          "no SHOAL_LAUNCHER_FD must mean 'not found' so the next bootstrap is tried");

    set_job_env(987); /* not open */
    CHECK(launcher_init(&bs) == SHOAL_ERR_INVALID, "a closed fd is an error");

    int fd = open("/dev/null", O_RDONLY);
    set_job_env(fd); /* open, but not a socket */
    CHECK(launcher_init(&bs) == SHOAL_ERR_INVALID, "a file that is not a "
                                                   "socket is an error");
    close(fd);

    set_job_env(STDERR_FILENO);
    setenv("SHOAL_RANK", "x1", 1);
    CHECK(launcher_init(&bs) == SHOAL_ERR_INVALID, "a bad rank is an error");
    setenv("SHOAL_RANK", "3", 1);
    CHECK(launcher_init(&bs) == SHOAL_ERR_INVALID, "rank >= npes is an error");
    unsetenv("SHOAL_NPES");
    CHECK(launcher_init(&bs) == SHOAL_ERR_INVALID, "no job size is an error");
}

/* The child is a PE using the bootstrap; the parent is the launcher. */
static void test_conversation(void)
{
    int sv[2];
    shoal_store_buf_t frame = {0};
    int wstatus;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        shoal_bootstrap_t bs;
        char buf[64];
        size_t len = 0;

        close(sv[0]);
        set_job_env(sv[1]);
        CHILD_CHECK(launcher_init(&bs) == SHOAL_OK);
        CHILD_CHECK(strcmp(bs.ops->name, "launcher") == 0);
        CHILD_CHECK(bs.ops->version == SHOAL_BOOTSTRAP_VERSION);
        CHILD_CHECK(bs.rank == 1 && bs.npes == 3 && bs.local_rank == 1 && bs.local_npes == 3);
        CHILD_CHECK(strcmp(bs.job_id, "1234-0badf00d") == 0);
        CHILD_CHECK(fcntl(sv[1], F_GETFD) & FD_CLOEXEC);
        CHILD_CHECK(shoal_bootstrap_put(&bs, "addr", "v4lue", 5) == SHOAL_OK);
        CHILD_CHECK(shoal_bootstrap_fence(&bs) == SHOAL_OK);
        CHILD_CHECK(shoal_bootstrap_get(&bs, 2, "peer", buf, sizeof(buf), &len) == SHOAL_OK);
        CHILD_CHECK(len == 5 && memcmp(buf, "hello", 5) == 0);
        CHILD_CHECK(shoal_bootstrap_barrier(&bs) == SHOAL_OK);
        shoal_bootstrap_notify(&bs, SHOAL_BOOTSTRAP_EVENT_INITIALIZED);
        CHILD_CHECK(shoal_bootstrap_get(&bs, 0, "big", buf, 10, &len) == SHOAL_ERR_TRUNCATED);
        CHILD_CHECK(shoal_bootstrap_get(&bs, 3, "peer", buf, 10, &len) == SHOAL_ERR_INVALID);
        CHILD_CHECK(shoal_bootstrap_put(&bs, "", "x", 1) == SHOAL_ERR_INVALID);
        CHILD_CHECK(shoal_bootstrap_barrier(&bs) == SHOAL_OK); /* still in step */
        bs.ops->abort(&bs, 7, "bye from PE 1");
    }
    close(sv[1]);

    shoal_store_msg_t m;
    expect_hello_welcome(sv[0], &frame);
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_PUT && span_is(m.u.put.key, "addr") &&
              span_is(m.u.put.value, "v4lue"),
          "PUT addr=v4lue, got %s", shoal_store_msg_name(m.type));
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_GET && m.u.get.pe == 2 && span_is(m.u.get.key, "peer"),
          "GET pe 2 'peer', got %s pe %u", shoal_store_msg_name(m.type), m.u.get.pe);
    send_value_slowly(sv[0], "hello", 5);
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_BARRIER, "BARRIER, got %s", shoal_store_msg_name(m.type));
    send_empty_slowly(sv[0], SHOAL_STORE_MSG_BARRIER_DONE);
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_EVENT && m.u.event.event == SHOAL_BOOTSTRAP_EVENT_INITIALIZED,
          "EVENT initialized, got %s", shoal_store_msg_name(m.type));
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_GET && m.u.get.pe == 0 && span_is(m.u.get.key, "big"),
          "GET pe 0 'big', got %s", shoal_store_msg_name(m.type));
    char big[200];
    memset(big, 'b', sizeof(big));
    send_value_slowly(sv[0], big, sizeof(big));
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_BARRIER, "BARRIER after the errors, got %s",
          shoal_store_msg_name(m.type));
    send_empty_slowly(sv[0], SHOAL_STORE_MSG_BARRIER_DONE);
    m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_ABORT && m.u.abort.status == 7 && m.u.abort.origin == 1 &&
              span_is(m.u.abort.message, "bye from PE 1"),
          "ABORT 7 from PE 1 'bye from PE 1', got %s", shoal_store_msg_name(m.type));

    waitpid(pid, &wstatus, 0);
    CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 7,
          "the PE exits with the abort status 7 (wstatus 0x%x)", wstatus);
    close(sv[0]);
    shoal_store_buf_free(&frame);
}

/* The launcher closes the connection while the PE waits in GET: the PE must
 * say so and exit with 1 rather than hang. */
static void test_launcher_gone(void)
{
    int sv[2], err[2];
    char text[4096] = "";
    shoal_store_buf_t frame = {0};
    int wstatus;

    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0 || pipe(err) != 0)
        exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        shoal_bootstrap_t bs;
        char buf[16];
        size_t len;

        close(sv[0]);
        close(err[0]);
        dup2(err[1], STDERR_FILENO);
        alarm(10); /* a hang would fail the test through SIGALRM */
        set_job_env(sv[1]);
        CHILD_CHECK(launcher_init(&bs) == SHOAL_OK);
        shoal_bootstrap_get(&bs, 0, "never", buf, sizeof(buf), &len);
        _exit(98); /* must not return */
    }
    close(sv[1]);
    close(err[1]);
    expect_hello_welcome(sv[0], &frame);
    shoal_store_msg_t m = read_msg(sv[0], &frame);
    CHECK(m.type == SHOAL_STORE_MSG_GET, "GET first, got %s", shoal_store_msg_name(m.type));
    close(sv[0]);
    shoal_store_buf_free(&frame);

    size_t len = 0;
    ssize_t n;
    while ((n = read(err[0], text + len, sizeof(text) - 1 - len)) > 0)
        len += (size_t)n;
    text[len] = '\0';
    close(err[0]);
    waitpid(pid, &wstatus, 0);
    CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 1,
          "the PE exits with 1 when the launcher is gone (wstatus 0x%x)", wstatus);
    CHECK(strstr(text, "ERROR") != NULL && strstr(text, "launcher") != NULL &&
              strstr(text, "went away") != NULL,
          "the PE logs that the launcher went away; it logged: %s", text);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    test_environment_errors();
    test_conversation();
    test_launcher_gone();
    if (failures == 0)
        printf("launcher_unit: all checks passed\n");
    return failures;
}
