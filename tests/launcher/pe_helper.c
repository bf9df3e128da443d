/*
 * A PE for testing shoalrun alone: it speaks the store's protocol to
 * shoalrun through the library's launcher bootstrap (src/bootstrap/launcher.c
 * and the store client, compiled into this program) without the rest of the
 * library. The first argument picks a
 * behaviour; run_tests.sh starts it under shoalrun and checks what happens.
 * Extra trailing arguments are ignored, so a test can add a unique marker to
 * find leftover processes with pgrep -f.
 *
 * Exit status 10 means a check in here failed; the message says which.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "util/env.h"

#define FAIL 10

static shoal_bootstrap_t bs;

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
    va_list ap;
    const char *rank = getenv("SHOAL_RANK");
    fprintf(stderr, "pe_helper PE %s: FAILED: ", rank ? rank : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(FAIL);
}

static void check_ok(shoal_status_t status, const char *what)
{
    if (status != SHOAL_OK)
        fail("%s returned %s", what, shoal_status_str(status));
}

static void init(void)
{
    check_ok(shoal_env_load(&shoal_env), "shoal_env_load");
    check_ok(shoal_bootstrap_launcher_init(&bs), "shoal_bootstrap_launcher_init");
    if (strcmp(bs.ops->name, "launcher") != 0 || bs.ops->version != SHOAL_BOOTSTRAP_VERSION)
        fail("ops table is '%s' version %u", bs.ops->name, bs.ops->version);
    shoal_bootstrap_notify(&bs, SHOAL_BOOTSTRAP_EVENT_INITIALIZED);
}

static void finalize(void)
{
    shoal_bootstrap_notify(&bs, SHOAL_BOOTSTRAP_EVENT_FINALIZED);
    bs.ops->finalize(&bs);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The value PE `pe` publishes under key number `k`: its size varies with pe
 * and k, and PE 0's first value is larger than a socket buffer. */
static size_t make_value(int pe, int k, char *buf, size_t cap)
{
    size_t len = (pe == 0 && k == 0) ? 300000 : (size_t)(1 + (pe * 131 + k * 17) % 900);
    if (len > cap)
        len = cap;
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)('a' + (pe * 7 + k * 3 + (int)i) % 26);
    return len;
}

/* Three allgathers of values whose size varies with the PE (PE 0's first is
 * larger than a socket buffer, one PE gives an empty one), checked byte for
 * byte, with the late last PE arriving after the others wait; then a
 * broadcast from the last PE. */
static int mode_allgather(void)
{
    static char want[300000];
    char key[64];
    init();
    if (bs.npes > 1 && bs.rank == bs.npes - 1)
        usleep(100000); /* the others are waiting in the first allgather */
    for (int k = 0; k < 3; k++) {
        shoal_bootstrap_gather_t all;
        snprintf(key, sizeof(key), "ag-%d", k);
        size_t len = k == 2 && bs.rank == 1 ? 0 : make_value(bs.rank, k, want, sizeof(want));
        check_ok(shoal_bootstrap_allgather(&bs, key, want, len, &all), "allgather");
        if (all.npes != bs.npes)
            fail("allgather %s returned %d values, expected %d", key, all.npes, bs.npes);
        for (int pe = 0; pe < bs.npes; pe++) {
            size_t got_len;
            const char *got = shoal_bootstrap_gather_at(&all, pe, &got_len);
            len = k == 2 && pe == 1 ? 0 : make_value(pe, k, want, sizeof(want));
            if (got_len != len || memcmp(got, want, len) != 0)
                fail("allgather %s: PE %d's value has %zu bytes, expected %zu, or wrong bytes", key,
                     pe, got_len, len);
        }
        shoal_bootstrap_gather_free(&all);
    }
    char word[24] = "";
    if (bs.rank == bs.npes - 1)
        snprintf(word, sizeof(word), "from-%d", bs.rank);
    check_ok(shoal_bootstrap_broadcast(&bs, "bc", bs.npes - 1, word, sizeof(word)), "broadcast");
    char expect[24] = "";
    snprintf(expect, sizeof(expect), "from-%d", bs.npes - 1);
    if (memcmp(word, expect, sizeof(word)) != 0)
        fail("broadcast gave '%s', expected '%s'", word, expect);
    check_ok(shoal_bootstrap_barrier(&bs), "barrier");
    finalize();
    return 0;
}

/* Every PE publishes 3 keys; then gets every key of every PE. PE 0 first
 * asks for a key of the last PE, which publishes late, so a GET that arrives
 * before its PUT must wait for it. */
static int mode_kv(void)
{
    static char want[300000], got[300000];
    char key[64];
    size_t len, got_len;

    init();
    if (bs.npes > 1 && bs.rank == 0) {
        int last = bs.npes - 1;
        len = make_value(last, 1, want, sizeof(want));
        check_ok(shoal_bootstrap_get(&bs, last, "key-1", got, sizeof(got), &got_len), "early get");
        if (got_len != len || memcmp(got, want, len) != 0)
            fail("early get of PE %d's key-1: %zu bytes, expected %zu", last, got_len, len);
    }
    if (bs.npes > 1 && bs.rank == bs.npes - 1)
        usleep(100000); /* so that PE 0's GET is likely to arrive first */
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof(key), "key-%d", k);
        len = make_value(bs.rank, k, want, sizeof(want));
        check_ok(shoal_bootstrap_put(&bs, key, want, len), "put");
    }
    /* Overwriting keeps the last value. */
    check_ok(shoal_bootstrap_put(&bs, "again", "first", 5), "put");
    check_ok(shoal_bootstrap_put(&bs, "again", "second", 6), "put");
    check_ok(shoal_bootstrap_fence(&bs), "fence");
    for (int pe = 0; pe < bs.npes; pe++) {
        for (int k = 0; k < 3; k++) {
            snprintf(key, sizeof(key), "key-%d", k);
            len = make_value(pe, k, want, sizeof(want));
            memset(got, 0, len);
            check_ok(shoal_bootstrap_get(&bs, pe, key, got, sizeof(got), &got_len), "get");
            if (got_len != len || memcmp(got, want, len) != 0)
                fail("get of PE %d's %s: %zu bytes, expected %zu, or wrong bytes", pe, key, got_len,
                     len);
        }
    }
    check_ok(shoal_bootstrap_barrier(&bs), "barrier");
    for (int pe = 0; pe < bs.npes; pe++) {
        check_ok(shoal_bootstrap_get(&bs, pe, "again", got, sizeof(got), &got_len), "get");
        if (got_len != 6 || memcmp(got, "second", 6) != 0)
            fail("PE %d's overwritten key: got '%.*s'", pe, (int)got_len, got);
    }
    /* A value larger than the buffer is reported, and the stream stays usable. */
    if (shoal_bootstrap_get(&bs, 0, "key-0", got, 10, &got_len) != SHOAL_ERR_TRUNCATED)
        fail("get into a too small buffer did not return SHOAL_ERR_TRUNCATED");
    if (shoal_bootstrap_get(&bs, bs.npes, "key-0", got, sizeof(got), &got_len) != SHOAL_ERR_INVALID)
        fail("get from PE npes did not return SHOAL_ERR_INVALID");
    check_ok(shoal_bootstrap_barrier(&bs), "barrier after errors");
    printf("PE %d kv ok\n", bs.rank);
    finalize();
    return 0;
}

/* `rounds` barriers. Before barrier i every PE increments counter i in a
 * shared file; after it, every PE must see all npes increments. */
static int mode_barrier(int rounds, const char *path)
{
    int fd = open(path, O_RDWR);
    if (fd < 0)
        fail("open %s: %s", path, strerror(errno));
    size_t size = (size_t)rounds * sizeof(int);
    if (ftruncate(fd, (off_t)size) != 0)
        fail("ftruncate: %s", strerror(errno));
    int *counter = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (counter == MAP_FAILED)
        fail("mmap: %s", strerror(errno));

    init();
    for (int i = 0; i < rounds; i++) {
        __atomic_fetch_add(&counter[i], 1, __ATOMIC_SEQ_CST);
        check_ok(shoal_bootstrap_barrier(&bs), "barrier");
        int seen = __atomic_load_n(&counter[i], __ATOMIC_SEQ_CST);
        if (seen != bs.npes)
            fail("after barrier %d: %d PEs had arrived, expected %d", i, seen, bs.npes);
    }
    printf("PE %d barrier ok\n", bs.rank);
    finalize();
    return 0;
}

/* Several threads use the bootstrap at once: first they publish, then,
 * after a barrier, they read. (A GET holds the connection until its reply
 * comes, so threads that wait for each other's keys across PEs could
 * deadlock; that is the contract, not what is tested here.) */
#define NTHREADS 4
#define NITEMS 50

static void *thread_put(void *arg)
{
    int t = (int)(long)arg;
    char key[64], value[64];

    for (int i = 0; i < NITEMS; i++) {
        snprintf(key, sizeof(key), "t%d-%d", t, i);
        int n = snprintf(value, sizeof(value), "PE %d thread %d item %d", bs.rank, t, i);
        check_ok(shoal_bootstrap_put(&bs, key, value, (size_t)n), "put");
    }
    return NULL;
}

static void *thread_get(void *arg)
{
    int t = (int)(long)arg;
    char key[64], value[64], got[64];
    size_t len;

    for (int i = 0; i < NITEMS; i++) {
        int pe = (bs.rank + i) % bs.npes;
        snprintf(key, sizeof(key), "t%d-%d", (t + i) % NTHREADS, i);
        int n =
            snprintf(value, sizeof(value), "PE %d thread %d item %d", pe, (t + i) % NTHREADS, i);
        check_ok(shoal_bootstrap_get(&bs, pe, key, got, sizeof(got), &len), "get");
        if (len != (size_t)n || memcmp(got, value, len) != 0)
            fail("thread %d: got '%.*s', expected '%s'", t, (int)len, got, value);
    }
    return NULL;
}

static int mode_threads(void)
{
    pthread_t threads[NTHREADS];

    init();
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&threads[t], NULL, thread_put, (void *)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(threads[t], NULL);
    check_ok(shoal_bootstrap_barrier(&bs), "barrier");
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&threads[t], NULL, thread_get, (void *)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(threads[t], NULL);
    check_ok(shoal_bootstrap_barrier(&bs), "barrier");
    printf("PE %d threads ok\n", bs.rank);
    finalize();
    return 0;
}

/* What the environment and the bootstrap say about the job. */
static int mode_env(void)
{
    char expected_prefix[32];
    int fd = atoi(getenv("SHOAL_LAUNCHER_FD"));
    int sockets = 0;

    init();
    snprintf(expected_prefix, sizeof(expected_prefix), "%ld-", (long)getppid());
    if (strncmp(bs.job_id, expected_prefix, strlen(expected_prefix)) != 0 ||
        strlen(bs.job_id) != strlen(expected_prefix) + 8 ||
        strspn(bs.job_id + strlen(expected_prefix), "0123456789abcdef") != 8)
        fail("job id '%s' is not '<launcher pid>-<8 hex digits>'", bs.job_id);
    if (bs.local_rank != bs.rank || bs.local_npes != bs.npes)
        fail("local rank %d of %d differs from rank %d of %d", bs.local_rank, bs.local_npes,
             bs.rank, bs.npes);
    if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC))
        fail("the launcher fd %d is not close-on-exec after init", fd);
    /* The launcher's own sockets must not leak into PEs: ours is the only one. */
    for (int f = 0; f < 1024; f++) {
        char path[64], target[256];
        snprintf(path, sizeof(path), "/proc/self/fd/%d", f);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n > 0 && strncmp(target, "socket:", 7) == 0)
            sockets++;
    }
    if (sockets != 1)
        fail("%d sockets open, expected only the launcher's", sockets);
    /* All PEs agree on the job id. */
    check_ok(shoal_bootstrap_put(&bs, "job", bs.job_id, strlen(bs.job_id)), "put");
    for (int pe = 0; pe < bs.npes; pe++) {
        char got[64];
        size_t len;
        check_ok(shoal_bootstrap_get(&bs, pe, "job", got, sizeof(got), &len), "get");
        if (len != strlen(bs.job_id) || memcmp(got, bs.job_id, len) != 0)
            fail("PE %d has job id '%.*s', we have '%s'", pe, (int)len, got, bs.job_id);
    }
    printf("PE %d of %d job %s env ok\n", bs.rank, bs.npes, bs.job_id);
    finalize();
    return 0;
}

/* PE `who` does `what`; the others wait in a barrier that never completes
 * (they have to be ended by shoalrun). With `stubborn` they ignore SIGTERM, so
 * only the SIGKILL that follows ends them. */
static void others_wait(int who, bool stubborn)
{
    if (bs.rank == who)
        return;
    if (stubborn)
        signal(SIGTERM, SIG_IGN);
    shoal_bootstrap_barrier(&bs);
    fail("the barrier completed without PE %d", who);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "kv") == 0)
        return mode_kv();
    if (strcmp(mode, "barrier") == 0 && argc > 3)
        return mode_barrier(atoi(argv[2]), argv[3]);
    if (strcmp(mode, "threads") == 0)
        return mode_threads();
    if (strcmp(mode, "env") == 0)
        return mode_env();
    if (strcmp(mode, "exit") == 0 && argc > 3) {
        /* exit WHO STATUS: PE WHO finalizes and exits with STATUS. */
        init();
        others_wait(atoi(argv[2]), false);
        finalize();
        return atoi(argv[3]);
    }
    if (strcmp(mode, "signal") == 0 && argc > 3) {
        /* signal WHO SIG: PE WHO prints the time and kills itself with SIG. */
        init();
        others_wait(atoi(argv[2]), true);
        usleep(200000);
        printf("killing myself at %.6f\n", now());
        signal(atoi(argv[3]), SIG_DFL); /* sanitizers catch SIGSEGV */
        raise(atoi(argv[3]));
        pause();
        return 0;
    }
    if (strcmp(mode, "nofinalize") == 0 && argc > 2) {
        /* nofinalize WHO: PE WHO exits with 0 after init, without finalize. */
        init();
        others_wait(atoi(argv[2]), false);
        printf("leaving at %.6f\n", now());
        _exit(0);
    }
    if (strcmp(mode, "abort") == 0 && argc > 4) {
        /* abort WHO STATUS MSG: PE WHO (or every PE when WHO is -1) aborts. */
        int who = atoi(argv[2]);
        init();
        if (who >= 0)
            others_wait(who, false);
        bs.ops->abort(&bs, atoi(argv[3]), argv[4]);
    }
    if (strcmp(mode, "hang") == 0 && argc > 2) {
        /* hang LIST: the PEs in the comma-separated LIST sleep; the others end. */
        char list[256];
        snprintf(list, sizeof(list), ",%s,", argv[2]);
        char me[32];
        snprintf(me, sizeof(me), ",%d,", atoi(getenv("SHOAL_RANK")));
        init();
        if (strstr(list, me) != NULL)
            for (;;)
                pause();
        finalize();
        return 0;
    }
    if (strcmp(mode, "claim") == 0) {
        /* PE 1 claims rank 0 on its own socketpair: shoalrun must refuse it. */
        bool claims = atoi(getenv("SHOAL_RANK")) == 1;
        if (claims)
            setenv("SHOAL_RANK", "0", 1);
        init(); /* PE 1 fails here (exit 10) */
        if (claims)
            fail("PE 1 was accepted as PE %d", bs.rank);
        others_wait(-1, false); /* the others wait for PE 1, which never comes */
    }
    if (strcmp(mode, "stuck") == 0) {
        /* PE 1 leaves properly while the others wait in a barrier for it. */
        init();
        if (bs.rank != 1)
            others_wait(1, false);
        finalize();
        return 0;
    }
    if (strcmp(mode, "allgather") == 0)
        return mode_allgather();
    if (strcmp(mode, "stuck-allgather") == 0) {
        /* PE 1 leaves properly while the others wait in an allgather for it. */
        shoal_bootstrap_gather_t all;
        init();
        if (bs.rank != 1)
            shoal_bootstrap_allgather(&bs, "lonely", "x", 1, &all);
        finalize();
        return 0;
    }
    if (strcmp(mode, "allgather-mismatch") == 0) {
        /* PE 0 gathers under another key than the others: the job ends. */
        shoal_bootstrap_gather_t all;
        init();
        if (bs.rank != 0)
            usleep(50000); /* PE 0's key is the job's */
        shoal_bootstrap_allgather(&bs, bs.rank == 0 ? "first" : "second", "x", 1, &all);
        finalize();
        return 0;
    }
    if (strcmp(mode, "stuck-get") == 0) {
        /* PE 0 waits for a key PE 1 never publishes; PE 1 leaves properly. */
        char buf[16];
        size_t len;
        init();
        if (bs.rank == 0)
            shoal_bootstrap_get(&bs, 1, "never", buf, sizeof(buf), &len);
        finalize();
        return 0;
    }
    if (strcmp(mode, "sleep") == 0) {
        /* Prints its pid and sleeps until a signal. */
        init();
        printf("pid %ld\n", (long)getpid());
        for (;;)
            pause();
    }
    if (strcmp(mode, "catch") == 0 && argc > 2) {
        /* catch SIG: prints when SIG arrives, then exits 0 (or, with "ignore"
         * as SIG, ignores SIGINT/SIGTERM/SIGHUP). */
        init();
        if (strcmp(argv[2], "ignore") == 0) {
            signal(SIGINT, SIG_IGN);
            signal(SIGTERM, SIG_IGN);
            signal(SIGHUP, SIG_IGN);
        } else {
            sigset_t set;
            int sig;
            sigemptyset(&set);
            sigaddset(&set, atoi(argv[2]));
            sigprocmask(SIG_BLOCK, &set, NULL);
            printf("PE %d ready\n", bs.rank);
            sigwait(&set, &sig);
            printf("PE %d got signal %d\n", bs.rank, sig);
            return 0;
        }
        printf("PE %d ready\n", bs.rank);
        for (;;)
            pause();
    }
    if (strcmp(mode, "stdin") == 0) {
        /* Echoes what it reads from stdin, prefixed with its rank. */
        char line[256];
        init();
        while (fgets(line, sizeof(line), stdin) != NULL)
            printf("PE %d read %s", bs.rank, line);
        printf("PE %d stdin eof\n", bs.rank);
        finalize();
        return 0;
    }
    if (strcmp(mode, "output") == 0 && argc > 2) {
        /* output LINES: many numbered lines on stdout and stderr, and one line
         * of 200000 bytes on stdout, to check nothing is lost or mixed. */
        int lines = atoi(argv[2]);
        static char pad[201];
        memset(pad, 'x', 200);
        for (int i = 0; i < lines; i++) {
            printf("out PE %s line %d %s end\n", getenv("SHOAL_RANK"), i, pad);
            fprintf(stderr, "err PE %s line %d %s end\n", getenv("SHOAL_RANK"), i, pad);
        }
        static char big[200001];
        memset(big, 'L', 200000);
        printf("%s\n", big);
        return 0;
    }
    if (strcmp(mode, "garbage") == 0) {
        /* Sends a frame of an unknown type (77, empty body), as a broken PE would. */
        static const unsigned char h[8] = {0, 0, 0, 0, 0, 77, 0, 0};
        init();
        if (write(atoi(getenv("SHOAL_LAUNCHER_FD")), h, sizeof(h)) != (ssize_t)sizeof(h))
            fail("write: %s", strerror(errno));
        pause();
        return 0;
    }
    fprintf(stderr, "pe_helper: unknown mode or missing arguments: '%s'\n", mode);
    return 2;
}
