/*
 * Unit test of the launcher bootstrap (src/bootstrap/launcher.c) against a
 * fake launcher written here: it checks the bytes on the wire, feeds replies
 * in small pieces, and plays a launcher that goes away in the middle of a
 * GET. Each check prints what it expected; the exit status is the number of
 * failed checks.
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
#include "bootstrap/launcher_proto.h"

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

/* Reads one message; key and value are NUL-terminated copies. */
static shoal_launcher_msg_t read_msg(int fd, char *key, char *value, size_t value_cap)
{
    shoal_launcher_msg_t h;
    read_full(fd, &h, sizeof(h));
    if (h.key_len > SHOAL_LAUNCHER_MAX_KEY || h.value_len >= value_cap) {
        fprintf(stderr, "FAILED: message too long (key %u, value %u)\n", h.key_len, h.value_len);
        exit(1);
    }
    read_full(fd, key, h.key_len);
    key[h.key_len] = '\0';
    read_full(fd, value, h.value_len);
    value[h.value_len] = '\0';
    return h;
}

/* Sends a reply a few bytes at a time, so the PE must handle short reads. */
static void send_reply_slowly(int fd, uint32_t type, const char *value, uint32_t len)
{
    char buf[sizeof(shoal_launcher_msg_t) + 256];
    shoal_launcher_msg_t h = {.type = type, .value_len = len};
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), value, len);
    for (size_t off = 0; off < sizeof(h) + len; off += 3) {
        size_t n = sizeof(h) + len - off < 3 ? sizeof(h) + len - off : 3;
        if (write(fd, buf + off, n) != (ssize_t)n)
            exit(1);
        usleep(1000);
    }
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
    CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_ERR_NOT_FOUND,
          "no SHOAL_LAUNCHER_FD must mean 'not found' so the next bootstrap is tried");

    set_job_env(987); /* not open */
    CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_ERR_INVALID, "a closed fd is an error");

    int fd = open("/dev/null", O_RDONLY);
    set_job_env(fd); /* open, but not a socket */
    CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_ERR_INVALID, "a file that is not a "
                                                                   "socket is an error");
    close(fd);

    set_job_env(STDERR_FILENO);
    setenv("SHOAL_RANK", "x1", 1);
    CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_ERR_INVALID, "a bad rank is an error");
    setenv("SHOAL_RANK", "3", 1);
    CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_ERR_INVALID, "rank >= npes is an error");
    setenv("SHOAL_RANK", "1", 1);
    unsetenv("SHOAL_JOB_ID");
    CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_ERR_INVALID, "no job id is an error");
}

/* The child is a PE using the bootstrap; the parent is the launcher. */
static void test_conversation(void)
{
    int sv[2];
    char key[SHOAL_LAUNCHER_MAX_KEY + 1], value[4096];
    shoal_launcher_msg_t h;
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
        CHILD_CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_OK);
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

    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_PUT && strcmp(key, "addr") == 0 &&
              strcmp(value, "v4lue") == 0,
          "PUT addr=v4lue, got type %u key '%s' value '%s'", h.type, key, value);
    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_GET && h.arg == 2 && strcmp(key, "peer") == 0 &&
              h.value_len == 0,
          "GET pe 2 'peer', got type %u arg %d key '%s'", h.type, h.arg, key);
    send_reply_slowly(sv[0], SHOAL_LAUNCHER_MSG_VALUE, "hello", 5);
    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_BARRIER && h.key_len == 0 && h.value_len == 0,
          "BARRIER, got type %u", h.type);
    send_reply_slowly(sv[0], SHOAL_LAUNCHER_MSG_BARRIER_DONE, "", 0);
    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_EVENT && h.arg == SHOAL_BOOTSTRAP_EVENT_INITIALIZED,
          "EVENT initialized, got type %u arg %d", h.type, h.arg);
    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_GET && h.arg == 0 && strcmp(key, "big") == 0,
          "GET pe 0 'big', got type %u", h.type);
    memset(value, 'b', 200);
    send_reply_slowly(sv[0], SHOAL_LAUNCHER_MSG_VALUE, value, 200);
    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_BARRIER, "BARRIER after the errors, got type %u", h.type);
    send_reply_slowly(sv[0], SHOAL_LAUNCHER_MSG_BARRIER_DONE, "", 0);
    h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_ABORT && h.arg == 7 && strcmp(value, "bye from PE 1") == 0,
          "ABORT 7 'bye from PE 1', got type %u arg %d value '%s'", h.type, h.arg, value);

    waitpid(pid, &wstatus, 0);
    CHECK(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 7,
          "the PE exits with the abort status 7 (wstatus 0x%x)", wstatus);
    close(sv[0]);
}

/* The launcher closes the connection while the PE waits in GET: the PE must
 * say so and exit with 1 rather than hang. */
static void test_launcher_gone(void)
{
    int sv[2], err[2];
    char key[SHOAL_LAUNCHER_MAX_KEY + 1], value[64], text[4096] = "";
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
        CHILD_CHECK(shoal_bootstrap_launcher_init(&bs) == SHOAL_OK);
        shoal_bootstrap_get(&bs, 0, "never", buf, sizeof(buf), &len);
        _exit(98); /* must not return */
    }
    close(sv[1]);
    close(err[1]);
    shoal_launcher_msg_t h = read_msg(sv[0], key, value, sizeof(value));
    CHECK(h.type == SHOAL_LAUNCHER_MSG_GET, "GET first, got type %u", h.type);
    close(sv[0]);

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
