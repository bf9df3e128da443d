/*
 * The device API (<shmemx_device.h>) between PEs: every family from inside
 * a "kernel" at thread, warp and block scope, checked on the host on the
 * values that crossed. The steps (dev_api_steps.h) run as CUDA kernels
 * (dev_api_kernels.cu, on a GPU) or on the CPU (dev_api_emul.c, with the
 * stand-in driver tests/device/fake_cuda.c). Device memory is read back
 * with shmem_getmem (the copy engine), so the same checks serve both.
 *
 * argv[1]: "all" (default); "timeout": PE 0's kernel waits for a signal
 * nobody sends (run with SHOAL_DEVICE_WAIT_TIMEOUT, the job must end with
 * the report); "badptr": PE 0's kernel puts to memory that is not
 * symmetric (the job must end naming it); "range": a put that starts
 * inside the host heap and runs past its end (reported with its length);
 * "multi": several threads of PE 0 fail at once (the first report is
 * complete and counts the others).
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdlib.h>
#include <string.h>

#define DEV_API_NO_BODIES
#include "dev_api_steps.h"

#include "../api/check.h"

#define ROUNDS 200

static unsigned char pattern(int pe, size_t i)
{
    return (unsigned char)(pe * 31 + i * 7 + 1);
}

/* Copies n bytes of this PE's device memory at `dev` to `host`. */
static void readback(void *host, const void *dev, size_t n)
{
    shmem_getmem(host, dev, n, shmem_my_pe());
}

static void writeto(void *dev, const void *host, size_t n)
{
    shmem_putmem(dev, host, n, shmem_my_pe());
}

static void run(shmemx_dev_t d, int step, const step_args_t *a)
{
    CHECK(dev_launch(d, step, a) == 0, "launching step %d", step);
    CHECK(dev_finish() == 0, "step %d finished", step);
    shmem_barrier_all();
}

static void zero_dev(void *dev, size_t n)
{
    static unsigned char zeros[1 << 16];
    CHECK(n <= sizeof(zeros), "zeroing %zu bytes", n);
    writeto(dev, zeros, n);
}

static void check_rma(const step_args_t *a, int me, int npes)
{
    static unsigned char got[RMA_BYTES + 16];
    const int left = (me + npes - 1) % npes, left2 = (left + npes - 1) % npes;
    const size_t o = a->scope == SCOPE_WARP ? 1 : 0;
    readback(got, a->ddst, sizeof(got));
    for (size_t i = 0; i < RMA_BYTES; i++)
        CHECK_VAL("device heap, put by the left PE's kernel", (int)i, got[o + i], pattern(left, i));
    CHECK_VAL("the byte after the put", 0, got[o + RMA_BYTES], 0);
    if (o)
        CHECK_VAL("the byte before the put", 0, got[0], 0);
    for (size_t i = 0; i < RMA_BYTES; i++)
        CHECK_VAL("host heap, put by the left PE's kernel", (int)i, a->hdst[o + i],
                  pattern(left, i));
    readback(got, a->dgot, sizeof(got));
    for (size_t i = 0; i < RMA_BYTES; i++)
        CHECK_VAL("device heap, got from the left PE by a kernel", (int)i, got[o + i],
                  pattern(left2, i));
}

static void check_typed(const step_args_t *a, int me, int npes)
{
    typed_t own, got;
    const int left = (me + npes - 1) % npes, left2 = (left + npes - 1) % npes;
    readback(&own, a->dtyped, sizeof(own));
    readback(&got, a->dtyped_got, sizeof(got));
#define CHECK_TYPED(T, N, unused)                                                                  \
    for (int k = 0; k < 4; k++) {                                                                  \
        CHECK(own.v_##N[k] == (T)(left + 1 + (k > 0 ? k - 1 : 0)), "%s [%d] written by PE %d", #N, \
              k, left);                                                                            \
        CHECK(got.v_##N[k] == (T)(left2 + 1 + (k > 0 ? k - 1 : 0)), "%s [%d] read from PE %d", #N, \
              k, left);                                                                            \
    }
    SHMEMX_DEV_RMA_TYPES(CHECK_TYPED, )
#undef CHECK_TYPED
}

static void check_amo(const step_args_t *a, int me, int npes, int *winners)
{
    amo_t w, got;
    const long sum = (long)npes * (npes + 1) / 2;
    const int m = npes < 8 ? npes : 8;
    readback(&got, a->damo_got, sizeof(got));
    if (me == 0)
        readback(&w, a->damo, sizeof(w));
#define CHECK_STANDARD(T, N, unused)                                                               \
    if (me == 0) {                                                                                 \
        CHECK(w.v_##N[0] == (T)sum, "%s fetch_add total", #N);                                     \
        CHECK(w.v_##N[1] == (T)npes && w.v_##N[2] == (T)npes, "%s inc/fetch_inc total", #N);       \
        CHECK(w.v_##N[3] >= (T)1 && w.v_##N[3] <= (T)npes, "%s compare_swap winner", #N);          \
    }                                                                                              \
    CHECK((double)got.v_##N[0] >= 0 && got.v_##N[0] <= (T)(sum - (me + 1)), "%s fetch_add result", \
          #N);                                                                                     \
    CHECK((double)got.v_##N[2] >= 0 && got.v_##N[2] < (T)npes, "%s fetch_inc result", #N);         \
    CHECK(got.v_##N[3] == (T)0 || (got.v_##N[3] >= (T)1 && got.v_##N[3] <= (T)npes),               \
          "%s cswap result", #N);                                                                  \
    if (got.v_##N[3] == (T)0)                                                                      \
        shmem_int_atomic_inc(winners, 0);
    SHMEM_STANDARD_AMO_TYPES(CHECK_STANDARD, )
#undef CHECK_STANDARD
#define CHECK_BITWISE(T, N, unused)                                                                \
    if (me == 0) {                                                                                 \
        const T mask = (T)(((T)1 << m) - 1);                                                       \
        CHECK(w.v_##N[4] == mask && w.v_##N[9] == mask, "%s or total", #N);                        \
        CHECK(w.v_##N[5] == (T)~mask && w.v_##N[10] == (T)~mask, "%s and total", #N);              \
        CHECK(w.v_##N[6] == mask && w.v_##N[11] == mask, "%s xor total", #N);                      \
    }                                                                                              \
    if (me < 8) {                                                                                  \
        const T bit = (T)((T)1 << me);                                                             \
        CHECK((got.v_##N[4] & bit) == 0 && (got.v_##N[5] & bit) == bit &&                          \
                  (got.v_##N[6] & bit) == 0,                                                       \
              "%s fetching bitwise results", #N);                                                  \
    }
    SHMEM_BITWISE_AMO_TYPES(CHECK_BITWISE, )
#undef CHECK_BITWISE
#define CHECK_EXTENDED(T, N, unused)                                                               \
    if (me == 0)                                                                                   \
        CHECK(w.v_##N[7] >= (T)1 && w.v_##N[7] <= (T)npes, "%s swap final", #N);                   \
    CHECK((double)got.v_##N[7] >= 0 && got.v_##N[7] <= (T)npes, "%s swap result", #N);             \
    if (me < 8)                                                                                    \
        CHECK(got.v_##N[16 + me] == (T)(me + 1), "%s set then fetch", #N);                         \
    if (me == 0)                                                                                   \
        for (int p = 0; p < m; p++)                                                                \
            CHECK(w.v_##N[16 + p] == (T)(p + 1), "%s set by PE %d", #N, p);
    SHMEM_EXTENDED_AMO_TYPES(CHECK_EXTENDED, )
#undef CHECK_EXTENDED
}

static void check_errors(const step_args_t *a, const char *what, int k)
{
    int errors[8];
    readback(errors, a->derrors, sizeof(errors));
    CHECK(errors[k] == 0, "%s: %d wrong values seen inside the kernel", what, errors[k]);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int left = (me + npes - 1) % npes;

    CHECK(shmemx_dev_event_set_host(0, 1) == -1, "an event before shmemx_dev_create fails");
    shmemx_dev_t d, d2;
    CHECK(shmemx_dev_create(&d) == 0, "shmemx_dev_create");
    CHECK(d.version == SHMEMX_DEV_ABI_VERSION && d.bytes == sizeof(d), "view version %u size %u",
          d.version, d.bytes);
    CHECK(d.my_pe == me && d.npes == npes, "view PE %d of %d", d.my_pe, d.npes);
    CHECK(shmemx_dev_create(&d2) == 0 && memcmp(&d, &d2, sizeof(d)) == 0,
          "a second shmemx_dev_create gives the same view");
    CHECK(shmemx_dev_event_set_host(SHMEMX_DEV_EVENTS, 1) == -1, "event id out of range fails");

    step_args_t a;
    memset(&a, 0, sizeof(a));
    a.rounds = ROUNDS;
    const size_t rb = RMA_BYTES + 16;
    a.dsrc = shmemx_malloc_device(rb, SHMEMX_DEVICE_DEFAULT);
    a.ddst = shmemx_malloc_device(rb, SHMEMX_DEVICE_DEFAULT);
    a.dgot = shmemx_malloc_device(rb, SHMEMX_DEVICE_DEFAULT);
    a.dtyped = shmemx_malloc_device(sizeof(typed_t), SHMEMX_DEVICE_DEFAULT);
    a.dtyped_got = shmemx_malloc_device(sizeof(typed_t), SHMEMX_DEVICE_DEFAULT);
    a.damo = shmemx_malloc_device(sizeof(amo_t), SHMEMX_DEVICE_DEFAULT);
    a.damo_got = shmemx_malloc_device(sizeof(amo_t), SHMEMX_DEVICE_DEFAULT);
    a.ddata = shmemx_malloc_device(SIG_WORDS * 8, SHMEMX_DEVICE_DEFAULT);
    a.dsrcw = shmemx_malloc_device(SIG_WORDS * 8, SHMEMX_DEVICE_DEFAULT);
    a.dsig = shmemx_malloc_device(2 * 8, SHMEMX_DEVICE_DEFAULT);
    a.dack = shmemx_malloc_device(2 * 8, SHMEMX_DEVICE_DEFAULT);
    a.dcount = shmemx_malloc_device(4 * sizeof(long), SHMEMX_DEVICE_DEFAULT);
    a.derrors = shmemx_malloc_device(8 * sizeof(int), SHMEMX_DEVICE_DEFAULT);
    a.hdst = shmem_calloc(1, rb);
    a.hevent = shmem_calloc(2, sizeof(long));
    CHECK(a.derrors != NULL && a.hevent != NULL, "allocations");
    void *all[] = {a.dsrc,  a.ddst,  a.dgot, a.dtyped, a.dtyped_got, a.damo,   a.damo_got,
                   a.ddata, a.dsrcw, a.dsig, a.dack,   a.dcount,     a.derrors};
    const size_t sizes[] = {rb,
                            rb,
                            rb,
                            sizeof(typed_t),
                            sizeof(typed_t),
                            sizeof(amo_t),
                            sizeof(amo_t),
                            SIG_WORDS * 8,
                            SIG_WORDS * 8,
                            16,
                            16,
                            4 * sizeof(long),
                            8 * sizeof(int)};
    for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        zero_dev(all[i], sizes[i]);
    shmem_barrier_all();

    static const struct {
        const char *mode;
        int step;
    } failing[] = {{"timeout", STEP_TIMEOUT},
                   {"badptr", STEP_BADPTR},
                   {"range", STEP_RANGE},
                   {"multi", STEP_MULTI}};
    for (unsigned i = 0; i < sizeof(failing) / sizeof(failing[0]); i++) {
        if (strcmp(mode, failing[i].mode) != 0)
            continue;
        a.not_symmetric = malloc(64);      /* private memory: not symmetric */
        if (failing[i].step == STEP_RANGE) /* 8 bytes before the end of the host heap's row */
            a.not_symmetric = (void *)(uintptr_t)(d.row[0].base + d.row[0].size - 8);
        if (failing[i].step == STEP_MULTI) {
            a.scope = SCOPE_BLOCK;           /* a block of threads on a GPU */
            a.rounds = dev_on_gpu() ? 1 : 4; /* 4 threads on the CPU */
        }
        CHECK(dev_launch(d, failing[i].step, &a) == 0, "launch");
        dev_finish();
        shmem_barrier_all(); /* PE 0's report ends the job before this passes */
        CHECK(0, "the job went on after a kernel failed (%s)", mode);
    }

    /* RMA at each scope. */
    static unsigned char src[RMA_BYTES + 16];
    for (size_t i = 0; i < RMA_BYTES; i++)
        src[i] = pattern(me, i);
    for (int scope = SCOPE_THREAD; scope <= SCOPE_BLOCK; scope++) {
        const size_t o = scope == SCOPE_WARP ? 1 : 0;
        static unsigned char shifted[RMA_BYTES + 16];
        memset(shifted, 0, sizeof(shifted));
        memcpy(shifted + o, src, RMA_BYTES);
        writeto(a.dsrc, shifted, rb);
        zero_dev(a.ddst, rb);
        zero_dev(a.dgot, rb);
        memset(a.hdst, 0, rb);
        shmem_barrier_all();
        a.scope = scope;
        run(d, STEP_RMA, &a);
        check_rma(&a, me, npes);
        shmem_barrier_all();
    }

    a.scope = SCOPE_THREAD;
    run(d, STEP_TYPED, &a);
    check_typed(&a, me, npes);

    /* AMOs: the and-words start all ones. */
    amo_t init;
    memset(&init, 0, sizeof(init));
#define AND_ONES(T, N, unused) init.v_##N[5] = init.v_##N[10] = (T) ~(T)0;
    SHMEM_BITWISE_AMO_TYPES(AND_ONES, )
#undef AND_ONES
    writeto(a.damo, &init, sizeof(init));
    int *winners = shmem_calloc(1, sizeof(int));
    shmem_barrier_all();
    run(d, STEP_AMO, &a);
    check_amo(&a, me, npes, winners);
    shmem_barrier_all();
    int n_types = 0;
#define COUNT(T, N, unused) n_types++;
    SHMEM_STANDARD_AMO_TYPES(COUNT, )
#undef COUNT
    if (me == 0)
        CHECK_VAL("compare_swap winners (one per type)", 0, *winners, n_types);

    /* put_signal rounds at each scope. */
    for (int scope = SCOPE_THREAD; scope <= SCOPE_BLOCK; scope++) {
        zero_dev(a.dsig, 16);
        zero_dev(a.dack, 16);
        zero_dev(a.derrors, 8 * sizeof(int));
        shmem_barrier_all();
        a.scope = scope;
        run(d, STEP_SIGNAL, &a);
        check_errors(&a, "put_signal: data seen with its signal", 0);
        uint64_t data[SIG_WORDS], sig[2];
        readback(data, a.ddata, sizeof(data));
        readback(sig, a.dsig, sizeof(sig));
        for (int i = 0; i < SIG_WORDS; i++)
            CHECK_VAL("put_signal: the last round's data", i, data[i],
                      ((uint64_t)left << 48) + (uint64_t)ROUNDS * SIG_WORDS + (uint64_t)i);
        CHECK_VAL("SET signal after the rounds", 0, sig[0], (uint64_t)(ROUNDS - ROUNDS % 2));
        CHECK_VAL("ADD signal after the rounds", 1, sig[1], (uint64_t)(ROUNDS + 1) / 2);
        shmem_barrier_all();
    }

    /* Barriers: world, and the team of even PEs. */
    shmem_team_t even;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0,
          "split the even PEs");
    a.scope = SCOPE_THREAD;
    a.rounds = 50;
    if (even != SHMEM_TEAM_INVALID)
        CHECK(shmemx_dev_team(even, &a.team) == 0 && a.team.size == (npes + 1) / 2 &&
                  a.team.stride == 2,
              "shmemx_dev_team(even)");
    else
        CHECK(shmemx_dev_team(even, &a.team) == -1, "shmemx_dev_team of a team not mine fails");
    zero_dev(a.dcount, 4 * sizeof(long));
    zero_dev(a.derrors, 8 * sizeof(int));
    shmem_barrier_all();
    run(d, STEP_BARRIER, &a);
    check_errors(&a, "barrier_all: the counter after each round", 1);
    check_errors(&a, "team_sync: the team's counter after each round", 2);
    long count[4];
    readback(count, a.dcount, sizeof(count));
    if (me == 0)
        CHECK_VAL("PE 0's barrier counter", 0, count[0], 50L * npes);
    if (me == 0)
        CHECK_VAL("the team root's counter", 1, count[1], 50L * ((npes + 1) / 2));
    /* The same through the collective launch (on a GPU: and a refused grid). */
    zero_dev(a.dcount, 4 * sizeof(long));
    zero_dev(a.derrors, 8 * sizeof(int));
    shmem_barrier_all();
    CHECK(dev_collective(d, &a) == 0, "the barrier step by collective launch");
    shmem_barrier_all();
    check_errors(&a, "barrier_all in a collective launch", 1);
    a.team.size = 0;
    a.rounds = ROUNDS;

    run(d, STEP_WAIT, &a);
    check_errors(&a, "wait_until/test", 3);

    /* Events both ways. */
    CHECK(dev_launch(d, STEP_EVENT, &a) == 0, "launch the event step");
    CHECK(shmemx_dev_event_count_host(9) == 0, "event 9 before the kernel raised it");
    CHECK(shmemx_dev_event_set_host(7, 1) == 0, "set event 7");
    CHECK(shmemx_dev_event_wait_host(9, 1) == 0, "wait for event 9");
    CHECK_VAL("written by the kernel before it raised event 9", 0,
              __atomic_load_n(&a.hevent[0], __ATOMIC_ACQUIRE), 1000L + me);
    CHECK(dev_finish() == 0, "the event step");
    CHECK(shmemx_dev_event_count_host(9) == 1, "event 9 raised once");
    shmem_barrier_all();

    if (me == 0)
        printf("device API: every family at %d PEs (%s)\n", npes,
               dev_on_gpu() ? "on the GPU" : "on the CPU, stand-in driver");
    shmem_team_destroy(even);
    shmem_finalize();
    return 0;
}
