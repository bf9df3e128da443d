/*
 * limit_line.c: the machine's limits for synchronizing through memory.
 * Plain C, no SHMEM: two processes (this one and a forked child) share one
 * anonymous shared mapping, as two PEs on one host share their segments.
 *
 * Ops, each the median over rounds of µs per operation:
 *   line_oneway_pinned    half the round trip of a cache line between two
 *                         processes pinned to different CPUs: the parent
 *                         writes i into the ping line, the child waits for it
 *                         and writes i into the pong line, the parent waits
 *                         for that.  The floor of a p / wait_until ping-pong
 *                         and of a 2-PE barrier.
 *   line_oneway_unpinned  the same with both processes free to run on any
 *                         CPU, as PEs that no launcher pinned run.
 *   atomic_local          one fetch-add on a line this CPU already holds:
 *                         the floor of any atomic memory operation.
 * The waits spin; only after many polls without a change do they yield the
 * CPU, which happens only when the partner is not running (an oversubscribed
 * machine), so it does not enter the fast path.  Every value seen is checked.
 */
#define _GNU_SOURCE 1
#include "timing.h"

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINE_STRIDE 128 /* two lines apart, so the adjacent-line prefetcher keeps out */
#define LINE_STOP UINT64_MAX

struct lines {
    volatile uint64_t *ping;   /* written by the parent */
    volatile uint64_t *pong;   /* written by the child */
    volatile uint64_t *atomic; /* only the parent touches it */
    uint64_t next;             /* the next value the parent sends */
    int bad;
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spins until *p holds something other than `old`; returns it. */
static inline uint64_t wait_change(volatile uint64_t *p, uint64_t old)
{
    uint64_t v;
    unsigned polls = 0;

    while ((v = __atomic_load_n(p, __ATOMIC_ACQUIRE)) == old) {
        cpu_relax();
        if (++polls > 20000) { /* the partner is not running: let it */
            sched_yield();
            polls = 0;
        }
    }
    return v;
}

static void pingpong_loop(void *arg, long n)
{
    struct lines *l = arg;

    for (long i = 0; i < n; i++) {
        uint64_t v = ++l->next;
        __atomic_store_n(l->ping, v, __ATOMIC_RELEASE);
        if (wait_change(l->pong, v - 1) != v)
            l->bad = 1;
    }
}

static void atomic_loop(void *arg, long n)
{
    struct lines *l = arg;
    uint64_t sum = 0;

    for (long i = 0; i < n; i++)
        sum += __atomic_fetch_add(l->atomic, 1, __ATOMIC_SEQ_CST);
    bench_clobber(&sum);
}

/* The child: echoes every ping until told to stop. */
static void echo(struct lines *l)
{
    uint64_t last = 0;

    for (;;) {
        uint64_t v = wait_change(l->ping, last);
        if (v == LINE_STOP)
            _exit(0);
        __atomic_store_n(l->pong, v, __ATOMIC_RELEASE);
        last = v;
    }
}

/* The first two CPUs this process may run on, or -1 when it has only one. */
static int two_cpus(int cpu[2])
{
    cpu_set_t set;
    int found = 0;

    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
        if (CPU_ISSET(c, &set))
            cpu[found++] = c;
    return found == 2 ? 0 : -1;
}

static int pin(int cpu)
{
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

/* Measures the one-way time with a fresh child; -1 if the probe failed. */
static double oneway(const struct bench_opts *o, struct lines *l, int pinned, const int cpu[2])
{
    cpu_set_t saved;

    sched_getaffinity(0, sizeof(saved), &saved);
    *l->ping = 0;
    *l->pong = 0;
    l->next = 0;
    pid_t child = fork();
    if (child < 0) {
        perror("limit_line: fork");
        return -1;
    }
    if (child == 0) {
        if (pinned && pin(cpu[1]) != 0)
            _exit(3);
        echo(l);
    }
    if (pinned && pin(cpu[0]) != 0) {
        perror("limit_line: sched_setaffinity");
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        return -1;
    }
    double usec = bench_measure_local(o, pingpong_loop, l) / 2;
    __atomic_store_n(l->ping, LINE_STOP, __ATOMIC_RELEASE);
    int status = 0;
    waitpid(child, &status, 0);
    sched_setaffinity(0, sizeof(saved), &saved);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "limit_line: the echoing child failed (status %#x)\n", status);
        return -1;
    }
    return usec;
}

int main(int argc, char **argv)
{
    struct bench_opts o;
    int rc = bench_parse_opts(argc, argv, &o, 0, 1);

    if (rc)
        return rc == 1 ? 0 : 2;

    char *map =
        mmap(NULL, 4 * LINE_STRIDE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        perror("limit_line: mmap");
        return 1;
    }
    struct lines l = {
        .ping = (volatile uint64_t *)map,
        .pong = (volatile uint64_t *)(map + LINE_STRIDE),
        .atomic = (volatile uint64_t *)(map + 2 * LINE_STRIDE),
    };
    int cpu[2];
    int have_two = two_cpus(cpu) == 0;
    int failed = 0;

    printf("# limit_line: reps=%d iters=%ld target_ms=%g%s cpus=%d,%d\n", o.reps, o.iters,
           o.target_ms, o.quick ? " quick" : "", have_two ? cpu[0] : -1, have_two ? cpu[1] : -1);
    for (int pinned = 1; pinned >= 0; pinned--) {
        const char *name = pinned ? "line_oneway_pinned" : "line_oneway_unpinned";
        if (pinned && !have_two) {
            bench_print_error("limit", name, NULL, 64, 2, "unsupported");
            continue;
        }
        double usec = oneway(&o, &l, pinned, cpu);
        if (usec < 0) {
            failed = 1;
        } else if (l.bad) {
            bench_print_error("limit", name, NULL, 64, 2, "wrong_result");
            failed = 1;
        } else {
            bench_print("limit", name, NULL, 64, 2, usec, 0);
        }
        l.bad = 0;
    }

    *l.atomic = 0;
    bench_print("limit", "atomic_local", NULL, 8, 1, bench_measure_local(&o, atomic_loop, &l), 0);
    munmap(map, 4 * LINE_STRIDE);
    return failed;
}
