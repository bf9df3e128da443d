/*
 * The config store when its process runs out of file descriptors: a store
 * is hosted here under RLIMIT_NOFILE 96, every descriptor left is taken,
 * and a stranger (a child process) keeps connecting. accept then fails
 * with EMFILE; the store must back off rather than spin on the listener
 * (the process's CPU time over 3 s stays small), log a bounded number of
 * lines, and serve again once descriptors are free (a greeting is
 * answered). Before #29 the store thread spun on EMFILE and logged 17,000
 * lines in 4 s.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "../unit/unit_check.h"
#include "bootstrap/store/server_thread.h"
#include "bootstrap/store/sockets.h"
#include "bootstrap/store/proto.h"
#include "util/log.h"

#define NOFILE 96
#define STRANGER_CONNECTIONS 40
#define WINDOW_MS 3000

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static int lines_with(FILE *f, const char *needle)
{
    char line[4096];
    int n = 0;
    fflush(stderr);
    rewind(f);
    while (fgets(line, sizeof(line), f) != NULL)
        n += strstr(line, needle) != NULL;
    return n;
}

/* The stranger: waits for the go, then opens idle connections, one every
 * 50 ms, and holds them until killed (30 s at most). */
static void stranger(int go_fd, uint16_t port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    char c;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (read(go_fd, &c, 1) != 1)
        _exit(1);
    for (int i = 0; i < STRANGER_CONNECTIONS; i++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
            close(fd);
        usleep(50000);
    }
    sleep(30);
    _exit(0);
}

/* A greeting without TLS, as a PE of this job sends it; 1 when answered OK. */
static int greeted(const shoal_store_addr_t *addr)
{
    uint8_t hello[SHOAL_STORE_HELLO_BYTES], key_id[SHOAL_STORE_KEY_ID_BYTES] = {0};
    uint8_t reply[SHOAL_STORE_REPLY_BYTES], version, security, verdict;
    uint64_t deadline = shoal_store_now_ms() + 10000;
    char why[256];
    size_t got = 0;
    int fd;

    if (shoal_store_connect(addr, deadline, &fd, why, sizeof(why)) != SHOAL_OK)
        return 0;
    shoal_store_greeting_encode(hello, SHOAL_STORE_SEC_PLAIN, key_id);
    if (send(fd, hello, sizeof(hello), MSG_NOSIGNAL) != (ssize_t)sizeof(hello)) {
        close(fd);
        return 0;
    }
    while (got < sizeof(reply) && shoal_store_wait_fd(fd, POLLIN, deadline)) {
        ssize_t n = recv(fd, reply + got, sizeof(reply) - got, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            break;
        if (n > 0)
            got += (size_t)n;
    }
    close(fd);
    return got == sizeof(reply) &&
           shoal_store_reply_decode(reply, &version, &security, &verdict) == SHOAL_OK &&
           verdict == SHOAL_STORE_GREET_OK;
}

int main(void)
{
    struct rlimit rl = {NOFILE, NOFILE};
    shoal_store_host_conf_t conf = {
        .npes = 2, .join_timeout_ms = 60000, .security = SHOAL_STORE_SEC_PLAIN};
    struct sockaddr_in *s4 = (struct sockaddr_in *)&conf.listen.ss;
    shoal_store_sockaddr_t bound;
    shoal_store_addr_t addr;
    int saved_stderr = dup(STDERR_FILENO), go[2], filler[NOFILE], nfiller = 0;
    FILE *log = tmpfile();

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (log == NULL || dup2(fileno(log), STDERR_FILENO) < 0 || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        perror("store_emfile: setup");
        return 2;
    }
    shoal_log_level = SHOAL_LOG_WARN;
    s4->sin_family = AF_INET;
    s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    conf.listen.len = sizeof(*s4);
    if (shoal_store_host_start(&conf, &bound) != SHOAL_OK || pipe(go) != 0) {
        dup2(saved_stderr, STDERR_FILENO);
        fprintf(stderr, "store_emfile: cannot start the store\n");
        return 2;
    }
    shoal_store_sockaddr_split(&bound, &addr);

    pid_t child = fork();
    if (child == 0)
        stranger(go[0], addr.port);
    close(go[0]);

    /* Take every descriptor left, then let the stranger in. */
    int fd;
    while (nfiller < NOFILE && (fd = open("/dev/null", O_RDONLY)) >= 0)
        filler[nfiller++] = fd;
    CHECK(errno == EMFILE);
    double cpu0 = cpu_seconds();
    CHECK(write(go[1], "g", 1) == 1);
    usleep(WINDOW_MS * 1000);
    double cpu = cpu_seconds() - cpu0;

    /* Backed off, not spinning: a spinning thread burns most of a core. */
    printf("store_emfile: %.3f s of CPU in %.1f s of EMFILE, %d accept warnings\n", cpu,
           WINDOW_MS / 1000.0, lines_with(log, "cannot accept connections"));
    CHECK(cpu < 0.3);
    CHECK(lines_with(log, "cannot accept connections: Too many open files") >= 1);
    CHECK(lines_with(log, "RLIMIT_NOFILE") >= 1);
    /* At most 10 a second and a summary: bounded, not one per attempt. */
    CHECK(lines_with(log, "config store at") <= 11 * (WINDOW_MS / 1000 + 1));

    /* Descriptors free again: the store serves within its longest pause. */
    for (int i = 0; i < nfiller; i++)
        close(filler[i]);
    CHECK(greeted(&addr));

    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    if (failures) {
        char line[4096];
        rewind(log);
        fprintf(stderr, "store_emfile: %d check(s) failed; the store's log:\n", failures);
        for (int i = 0; i < 40 && fgets(line, sizeof(line), log) != NULL; i++)
            fputs(line, stderr);
        _exit(1);
    }
    printf("store_emfile: all checks passed\n");
    /* _exit: the store's exit handler would wait for a job that never came. */
    _exit(0);
}
