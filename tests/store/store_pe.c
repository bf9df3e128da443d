/*
 * A PE for the config-store tests, started by hand (no launcher) by
 * run_store_tests.sh. It uses only the public API; the first argument picks
 * a behaviour:
 *   basic             shmem_init from the environment, then RMA/AMO/barrier checks
 *   uid HEAP          start from a unique ID (uid_shim.c) with a heap of HEAP bytes
 *   attr HEAP         shmemx_init_attr(SHMEMX_INIT_WITH_STORE) from STORE_TEST_* variables
 *   tls-off           shmemx_set_conf_store_tls(false) before shmem_init, then basic
 *   tls-cert INFO     shmemx_set_conf_store_tls(true, INFO) before shmem_init, then basic
 *   tls-bad INFO      shmemx_set_conf_store_tls(true, INFO) must fail; no init
 *   tls-after-init    shmemx_set_conf_store_tls after shmem_init must fail and change nothing
 *   reinit            basic, twice (finalize and initialize again)
 *   exit STATUS PE    PE calls shmem_global_exit(STATUS); the others must be ended by it
 *   hang              initialize, say "ready", then wait to be ended
 *   child             initialize, say whether SHOAL_JOB_KEY is still in the environment,
 *                     start a child that sleeps, print both pids, wait until the file
 *                     STORE_TEST_GO exists (the test has read /proc/PID/environ of both),
 *                     then end the child and run the basic checks
 *   time              initialize, print "init_done <seconds since the epoch>", finalize
 *   make-uid FILE     write a unique ID to FILE and exit at once (its store dies with it)
 *   coordinator FILE  write a unique ID to FILE and return from main: not a PE, it hosts
 *                     the store and must outlive the job (its exit waits for the PEs)
 * Prints "OK <mode> PE <n>" on success; exit status 10 means a check failed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>
#include <shmemx.h>

#include "uid_shim.h"
#undef shmem_init

#define FAIL 10

static long ring_slot = -1;
static long counter;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "store_pe PE %d: FAILED %s:%d: `%s`: ", shmem_my_pe(), __FILE__,       \
                    __LINE__, #cond);                                                              \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(FAIL);                                                                            \
        }                                                                                          \
    } while (0)

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v ? atoi(v) : dflt;
}

/* RMA around a ring, contended AMOs on PE 0, barriers in between. */
static void checks(void)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int expect_npes = env_int("SHOAL_NPES", env_int("STORE_TEST_NPES", npes));
    int expect_me = env_int("SHOAL_RANK", env_int("STORE_TEST_RANK", me));

    EXPECT(npes == expect_npes, "n_pes is %d, expected %d", npes, expect_npes);
    EXPECT(me == expect_me, "my_pe is %d, expected %d", me, expect_me);

    long *heap = shmem_malloc(64 * sizeof(long));
    EXPECT(heap != NULL, "shmem_malloc failed");
    for (int i = 0; i < 64; i++)
        heap[i] = -1;
    ring_slot = -1;
    counter = 0;
    shmem_barrier_all();

    int right = (me + 1) % npes;
    long mine[64];
    for (int i = 0; i < 64; i++)
        mine[i] = me * 1000 + i;
    shmem_long_put(heap, mine, 64, right);
    shmem_long_p(&ring_slot, me, right);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    EXPECT(ring_slot == left, "ring slot holds %ld, expected %d", ring_slot, left);
    for (int i = 0; i < 64; i++)
        EXPECT(heap[i] == left * 1000 + i, "heap[%d] is %ld", i, heap[i]);
    long got = shmem_long_g(&heap[5], right);
    EXPECT(got == me * 1000 + 5, "g from PE %d gave %ld", right, got);

    for (int i = 0; i < 100; i++)
        shmem_long_atomic_fetch_add(&counter, 1, 0);
    shmem_barrier_all();
    if (me == 0)
        EXPECT(counter == 100L * npes, "counter is %ld, expected %ld", counter, 100L * npes);
    long old = shmem_long_atomic_compare_swap(&heap[0], left * 1000L, -7, me);
    EXPECT(old == left * 1000L, "compare_swap saw %ld", old);
    shmem_barrier_all();
    shmem_free(heap);
}

static void basic(const char *mode)
{
    shmem_init();
    checks();
    printf("OK %s PE %d\n", mode, shmem_my_pe());
    fflush(stdout);
    shmem_finalize();
}

static void heap_check(size_t heap)
{
    size_t total = 0, used = 0, largest = 0;
    shmemx_heap_info(&total, &used, &largest);
    EXPECT(heap == 0 || (total >= heap && total < heap + (1u << 20)),
           "heap is %zu bytes, asked for %zu", total, heap);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    setvbuf(stdout, NULL, _IOLBF, 0);

    if (strcmp(mode, "basic") == 0) {
        basic(mode);
    } else if (strcmp(mode, "reinit") == 0) {
        basic(mode);
        basic(mode);
    } else if (strcmp(mode, "uid") == 0) {
        size_t heap = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
        EXPECT(store_test_uid_start(heap) == 0, "start from the unique ID failed");
        heap_check(heap);
        checks();
        printf("OK uid PE %d\n", shmem_my_pe());
        shmem_finalize();
    } else if (strcmp(mode, "attr") == 0) {
        shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
        attr.rank = env_int("STORE_TEST_RANK", -1);
        attr.npes = env_int("STORE_TEST_NPES", 0);
        attr.store = getenv("STORE_TEST_STORE");
        attr.job_key = getenv("STORE_TEST_KEY");
        attr.heap_size = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
        attr.connect_timeout_ms = 20000;
        EXPECT(shmemx_init_attr(SHMEMX_INIT_WITH_STORE, &attr) == 0, "shmemx_init_attr failed");
        heap_check(attr.heap_size);
        checks();
        printf("OK attr PE %d\n", shmem_my_pe());
        shmem_finalize();
    } else if (strcmp(mode, "tls-off") == 0) {
        EXPECT(shmemx_set_conf_store_tls(false, NULL, 0) == 0, "turning TLS off failed");
        EXPECT(shmemx_set_conf_store_tls(false, NULL, 0) == 0, "turning TLS off again failed");
        basic(mode);
    } else if (strcmp(mode, "tls-cert") == 0 && argc > 2) {
        EXPECT(shmemx_set_conf_store_tls(true, argv[2], (uint32_t)strlen(argv[2])) == 0,
               "shmemx_set_conf_store_tls(true, '%s') failed", argv[2]);
        basic(mode);
    } else if (strcmp(mode, "tls-bad") == 0 && argc > 2) {
        EXPECT(shmemx_set_conf_store_tls(true, argv[2], (uint32_t)strlen(argv[2])) != 0,
               "shmemx_set_conf_store_tls(true, '%s') was accepted", argv[2]);
        printf("OK tls-bad\n");
    } else if (strcmp(mode, "tls-after-init") == 0) {
        shmem_init();
        EXPECT(shmemx_set_conf_store_tls(false, NULL, 0) != 0,
               "turning TLS off after shmem_init was accepted");
        EXPECT(shmemx_set_conf_store_tls(true, NULL, 0) != 0,
               "setting TLS after shmem_init was accepted");
        checks();
        shmem_finalize();
        EXPECT(shmemx_set_conf_store_tls(false, NULL, 0) != 0,
               "turning TLS off after shmem_finalize was accepted");
        shmem_init(); /* again, over the same (still TLS) store connection */
        checks();
        printf("OK tls-after-init PE %d\n", shmem_my_pe());
        shmem_finalize();
    } else if (strcmp(mode, "exit") == 0 && argc > 3) {
        int status = atoi(argv[2]), origin = atoi(argv[3]);
        shmem_init();
        shmem_barrier_all();
        if (shmem_my_pe() == origin)
            shmem_global_exit(status);
        sleep(30);
        fprintf(stderr, "store_pe PE %d: FAILED: still running 30 s after shmem_global_exit\n",
                shmem_my_pe());
        return FAIL;
    } else if ((strcmp(mode, "make-uid") == 0 || strcmp(mode, "coordinator") == 0) && argc > 2) {
        shmemx_uniqueid_t id;
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
        FILE *f = fopen(tmp, "w");
        EXPECT(f != NULL && shmemx_get_uniqueid(&id) == 0, "no unique ID");
        EXPECT(fwrite(&id, sizeof(id), 1, f) == 1 && fclose(f) == 0 && rename(tmp, argv[2]) == 0,
               "cannot write the ID");
        if (strcmp(mode, "make-uid") == 0)
            _exit(0);
        printf("OK coordinator\n");
        return 0;
    } else if (strcmp(mode, "time") == 0) {
        struct timespec ts;
        shmem_init();
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("init_done %ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
        shmem_finalize();
    } else if (strcmp(mode, "child") == 0) {
        shmem_init();
        const int me = shmem_my_pe();
        printf("key after init: %s\n", getenv("SHOAL_JOB_KEY") != NULL ? "present" : "absent");
        pid_t child = fork();
        if (child == 0) {
            execlp("sleep", "sleep", "120", (char *)NULL);
            _exit(127);
        }
        EXPECT(child > 0, "fork failed");
        printf("pids PE %d self %ld child %ld\n", me, (long)getpid(), (long)child);
        const char *go = getenv("STORE_TEST_GO");
        for (int i = 0; go != NULL && access(go, F_OK) != 0 && i < 1000; i++)
            usleep(50000); /* 50 s at most */
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        checks();
        printf("OK child PE %d\n", me);
        shmem_finalize();
    } else if (strcmp(mode, "hang") == 0) {
        shmem_init();
        shmem_barrier_all();
        printf("ready PE %d\n", shmem_my_pe());
        sleep(30);
        fprintf(stderr, "store_pe PE %d: FAILED: still running after 30 s\n", shmem_my_pe());
        return FAIL;
    } else {
        fprintf(stderr, "usage: store_pe basic|uid HEAP|attr HEAP|tls-off|tls-cert INFO|"
                        "tls-bad INFO|tls-after-init|reinit|exit STATUS PE|hang|time|make-uid FILE|"
                        "coordinator FILE|child\n");
        return 2;
    }
    return 0;
}
