/*
 * stream_nbi.c: one-way streams of small non-blocking operations from PE 0
 * to PE npes-1 (another host when PEs are placed round robin over two),
 * completed by one quiet at the end, so the figure is the per-message cost
 * of the engine rather than a round trip.  Three streams of N messages:
 *
 *   put_nbi          shmem_long_put_nbi of 8 bytes into slot i
 *   put_signal_nbi   shmem_putmem_signal_nbi of 8 bytes into slot i, each
 *                    adding 1 to one signal word (two messages each)
 *   atomic_add       shmem_long_atomic_add of i+1 into slot i (non-fetching)
 *
 * The receiver checks every slot afterwards (and, for put_signal_nbi,
 * waits for the signal to reach N before it looks), so a stream that drops
 * or reorders a message fails the run.  Time per message = the sender's
 * time from the first call to the return of quiet, divided by N; the
 * median of `reps` rounds is printed in the usual bench= line format.
 *
 * usage: stream_nbi [-n N] [-r REPS] [--quick]
 */
#include "common.h"

static long *slots;
static long *src; /* a nbi put's source stays untouched until quiet */
static uint64_t *sig;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The value stream `kind` leaves in slot i in round `round`. */
static long expected(int kind, int round, long i)
{
    return kind == 2 ? i + 1 : ((long)round << 40) + ((long)kind << 32) + i;
}

static int check(const char *op, int kind, int round, long n)
{
    for (long i = 0; i < n; i++)
        if (slots[i] != expected(kind, round, i)) {
            printf("bench=stream_nbi op=%s size=8 npes=%d error=wrong_result # slot %ld = %ld, "
                   "expected %ld\n",
                   op, shmem_n_pes(), i, slots[i], expected(kind, round, i));
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    long n = 20000;
    int reps = 5;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "-n") == 0 && a + 1 < argc)
            n = atol(argv[++a]);
        else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (strcmp(argv[a], "--quick") == 0) {
            n = 2000;
            reps = 1;
        }
    }
    if (reps > BENCH_MAX_REPS)
        reps = BENCH_MAX_REPS;
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes(), target = npes - 1;
    slots = shmem_calloc((size_t)n, sizeof(long));
    sig = shmem_calloc(1, sizeof(uint64_t));
    src = malloc((size_t)n * sizeof(long));
    if (slots == NULL || sig == NULL || src == NULL) {
        fprintf(stderr, "stream_nbi: cannot allocate %ld slots\n", n);
        shmem_global_exit(1);
    }
    static const char *const ops[3] = {"put_nbi", "put_signal_nbi", "atomic_add"};
    int failed = 0;
    for (int kind = 0; kind < 3; kind++) {
        double us[BENCH_MAX_REPS];
        for (int round = 0; round < reps; round++) {
            for (long i = 0; i < n; i++)
                slots[i] = 0;
            *sig = 0;
            shmem_barrier_all();
            if (me == 0) {
                for (long i = 0; i < n; i++)
                    src[i] = expected(kind, round, i);
                double t0 = now_us();
                for (long i = 0; i < n; i++) {
                    if (kind == 0)
                        shmem_long_put_nbi(&slots[i], &src[i], 1, target);
                    else if (kind == 1)
                        shmem_putmem_signal_nbi(&slots[i], &src[i], sizeof(long), sig, 1,
                                                SHMEM_SIGNAL_ADD, target);
                    else
                        shmem_long_atomic_add(&slots[i], src[i], target);
                }
                shmem_quiet();
                us[round] = (now_us() - t0) / (double)n;
            }
            if (me == target && kind == 1)
                shmem_uint64_wait_until(sig, SHMEM_CMP_EQ, (uint64_t)n);
            shmem_barrier_all();
            if (me == target && npes > 1)
                failed |= check(ops[kind], kind, round, n);
        }
        if (me == 0 && !failed)
            printf("bench=stream_nbi op=%s size=8 npes=%d usec=%.3f\n", ops[kind], npes,
                   bench_median(us, reps));
        fflush(stdout);
    }
    shmem_barrier_all();
    free(src);
    shmem_finalize();
    return failed;
}
