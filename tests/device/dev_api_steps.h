/*
 * The device API test's kernel bodies, written once: dev_api_kernels.cu
 * wraps each in a __global__ kernel (one thread, a warp or a block of 128,
 * by scope), dev_api_emul.c calls them on the CPU (<shmemx_device.h>
 * compiled by a host compiler: one "thread" per PE). dev_api_main.c
 * launches them and checks, on the host, every value that crossed.
 */
#ifndef DEV_API_STEPS_H
#define DEV_API_STEPS_H

#include <shmemx_device.h>

#if defined(__CUDACC__)
#define STEP_FN static __device__
#define STEP_TID (threadIdx.x)
#define STEP_NT (blockDim.x)
#define STEP_SYNC() __syncthreads()
#else
#define STEP_FN static
#define STEP_TID 0u
#define STEP_NT 1u
#define STEP_SYNC() ((void)0)
#endif

#define RMA_BYTES 4099 /* not a multiple of 8 or 16: the byte tail is copied too */
#define SIG_WORDS 512
#define AMO_SLOTS 24

enum { SCOPE_THREAD = 0, SCOPE_WARP = 1, SCOPE_BLOCK = 2 };

enum {
    STEP_RMA,     /* putmem/getmem (+nbi), device heap and host heap, one scope */
    STEP_TYPED,   /* typed p/g/put/get for every device RMA type */
    STEP_AMO,     /* every AMO on PE 0's words, every type */
    STEP_SIGNAL,  /* put_signal rounds: the data is there when the signal is */
    STEP_BARRIER, /* barrier_all/sync_all/team_sync rounds with counters */
    STEP_WAIT,    /* wait_until/test for every sync type */
    STEP_EVENT,   /* events both ways with the host */
    STEP_TIMEOUT, /* a wait that never ends (the timeout ends the job) */
    STEP_BADPTR,  /* a put to memory that is not symmetric */
    STEP_RANGE,   /* a put that starts inside the host heap and runs past its end */
    STEP_MULTI,   /* several threads of PE 0 put to a bad address at once */
    STEP_COUNT
};

/* One copy of every device RMA type, for the typed step. */
typedef struct {
#define ONE_FIELD(T, N, unused) T v_##N[5];
    SHMEMX_DEV_RMA_TYPES(ONE_FIELD, )
#undef ONE_FIELD
} typed_t;

/* AMO words for every standard AMO type: [AMO_SLOTS] each. */
typedef struct {
#define AMO_FIELD(T, N, unused) T v_##N[AMO_SLOTS];
    SHMEM_EXTENDED_AMO_TYPES(AMO_FIELD, )
#undef AMO_FIELD
} amo_t;

typedef struct {
    int scope, rounds;
    shmemx_dev_team_t team; /* for the barrier step; size 0: none */
    /* device heap */
    unsigned char *dsrc, *ddst, *dgot; /* [RMA_BYTES + 16] */
    typed_t *dtyped, *dtyped_got;
    amo_t *damo, *damo_got;
    uint64_t *ddata, *dsig, *dack; /* [SIG_WORDS], [2], [2] */
    uint64_t *dsrcw;               /* [SIG_WORDS] (the sender's staging) */
    long *dcount;                  /* [4] */
    int *derrors;                  /* [8]: counts of wrong values seen inside kernels */
    /* host heap */
    unsigned char *hdst; /* [RMA_BYTES + 16] */
    long *hevent;        /* [2] */
    void *not_symmetric;
} step_args_t;

#ifndef DEV_API_NO_BODIES
STEP_FN void step_rma(shmemx_dev_t d, const step_args_t *a)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    /* Misaligned by 1 when the scope is a warp: the byte path. */
    const size_t o = a->scope == SCOPE_WARP ? 1 : 0;
    switch (a->scope) {
    case SCOPE_THREAD:
        shmemx_dev_putmem(d, a->ddst + o, a->dsrc + o, RMA_BYTES, right);
        shmemx_dev_putmem_nbi(d, a->hdst + o, a->dsrc + o, RMA_BYTES, right);
        shmemx_dev_quiet(d);
        shmemx_dev_barrier_all(d);
        shmemx_dev_getmem(d, a->dgot + o, a->ddst + o, RMA_BYTES, left);
        break;
    case SCOPE_WARP:
        shmemx_dev_putmem_warp(d, a->ddst + o, a->dsrc + o, RMA_BYTES, right);
        shmemx_dev_putmem_nbi_warp(d, a->hdst + o, a->dsrc + o, RMA_BYTES, right);
        shmemx_dev_quiet(d);
        shmemx_dev_barrier_all_block(d);
        shmemx_dev_getmem_nbi_warp(d, a->dgot + o, a->ddst + o, RMA_BYTES, left);
        break;
    default:
        shmemx_dev_putmem_block(d, a->ddst + o, a->dsrc + o, RMA_BYTES, right);
        shmemx_dev_putmem_nbi_block(d, a->hdst + o, a->dsrc + o, RMA_BYTES, right);
        shmemx_dev_quiet(d);
        shmemx_dev_barrier_all_block(d);
        shmemx_dev_getmem_block(d, a->dgot + o, a->ddst + o, RMA_BYTES, left);
        break;
    }
    shmemx_dev_quiet(d);
}

/* Each type: p of (me + 1) into the right PE's [0], typed put of
 * {me+1, me+2, me+3} into its [1..3]; barrier; g and get of the left
 * PE's copy (which the left-of-left PE wrote) into dtyped_got. */
STEP_FN void step_typed(shmemx_dev_t d, const step_args_t *a)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
#define TYPED_PUT(T, N, unused)                                                                    \
    {                                                                                              \
        T v[3] = {(T)(me + 1), (T)(me + 2), (T)(me + 3)};                                          \
        shmemx_dev_##N##_p(d, &a->dtyped->v_##N[0], (T)(me + 1), right);                           \
        shmemx_dev_##N##_put(d, &a->dtyped->v_##N[1], v, 3, right);                                \
    }
    SHMEMX_DEV_RMA_TYPES(TYPED_PUT, )
#undef TYPED_PUT
    shmemx_dev_barrier_all(d);
#define TYPED_GET(T, N, unused)                                                                    \
    a->dtyped_got->v_##N[0] = shmemx_dev_##N##_g(d, &a->dtyped->v_##N[0], left);                   \
    shmemx_dev_##N##_get_nbi(d, &a->dtyped_got->v_##N[1], &a->dtyped->v_##N[1], 3, left);
    SHMEMX_DEV_RMA_TYPES(TYPED_GET, )
#undef TYPED_GET
    shmemx_dev_quiet(d);
    shmemx_dev_barrier_all(d);
}

/* On PE 0's words, every PE: [0] += me + 1 (fetch_add), [1] += 1 (inc),
 * [2] += 1 (fetch_inc), [3]: compare_swap(0 -> me + 1) election, [4]
 * |= bit me (or), [5] &= ~bit me (and; starts all ones), [6] ^= bit me
 * (xor), [7] swap(me + 1), [16 + me % 8]: set(me + 1) then fetch. The
 * fetched results go to damo_got. */
STEP_FN void step_amo(shmemx_dev_t d, const step_args_t *a)
{
    const int me = shmemx_dev_my_pe(d);
#define AMO_STANDARD(T, N, unused)                                                                 \
    {                                                                                              \
        T *w = a->damo->v_##N, *got = a->damo_got->v_##N;                                          \
        got[0] = shmemx_dev_##N##_atomic_fetch_add(d, &w[0], (T)(me + 1), 0);                      \
        shmemx_dev_##N##_atomic_inc(d, &w[1], 0);                                                  \
        got[2] = shmemx_dev_##N##_atomic_fetch_inc(d, &w[2], 0);                                   \
        got[3] = shmemx_dev_##N##_atomic_compare_swap(d, &w[3], (T)0, (T)(me + 1), 0);             \
        shmemx_dev_##N##_atomic_add(d, &w[1], (T)0, 0);                                            \
    }
    SHMEM_STANDARD_AMO_TYPES(AMO_STANDARD, )
#undef AMO_STANDARD
#define AMO_BITWISE(T, N, unused)                                                                  \
    {                                                                                              \
        T *w = a->damo->v_##N, *got = a->damo_got->v_##N;                                          \
        const T bit = (T)((T)1 << (me % 8));                                                       \
        if (me < 8) {                                                                              \
            got[4] = shmemx_dev_##N##_atomic_fetch_or(d, &w[4], bit, 0);                           \
            got[5] = shmemx_dev_##N##_atomic_fetch_and(d, &w[5], (T)~bit, 0);                      \
            shmemx_dev_##N##_atomic_xor(d, &w[6], bit, 0);                                         \
            shmemx_dev_##N##_atomic_or(d, &w[9], bit, 0);                                          \
            shmemx_dev_##N##_atomic_and(d, &w[10], (T)~bit, 0);                                    \
            got[6] = shmemx_dev_##N##_atomic_fetch_xor(d, &w[11], bit, 0);                         \
        }                                                                                          \
    }
    SHMEM_BITWISE_AMO_TYPES(AMO_BITWISE, )
#undef AMO_BITWISE
#define AMO_EXTENDED(T, N, unused)                                                                 \
    {                                                                                              \
        T *w = a->damo->v_##N, *got = a->damo_got->v_##N;                                          \
        got[7] = shmemx_dev_##N##_atomic_swap(d, &w[7], (T)(me + 1), 0);                           \
        if (me < 8) {                                                                              \
            shmemx_dev_##N##_atomic_set(d, &w[16 + me], (T)(me + 1), 0);                           \
            shmemx_dev_quiet(d);                                                                   \
            got[16 + me] = shmemx_dev_##N##_atomic_fetch(d, &w[16 + me], 0);                       \
        }                                                                                          \
    }
    SHMEM_EXTENDED_AMO_TYPES(AMO_EXTENDED, )
#undef AMO_EXTENDED
    shmemx_dev_quiet(d);
    shmemx_dev_barrier_all(d);
}

/* Rounds of SIG_WORDS words to the right PE with the signal; the receiver
 * checks every word once it sees the signal, then acks to its left. Round
 * r uses SET with r on even rounds' word [0] and ADD of 1 on word [1]. */
STEP_FN void step_signal(shmemx_dev_t d, const step_args_t *a)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    const int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int r = 1; r <= a->rounds; r++) {
        /* The staging words: this round's values (every thread its share). */
        for (unsigned i = STEP_TID; i < SIG_WORDS; i += STEP_NT)
            a->dsrcw[i] = ((uint64_t)me << 48) + (uint64_t)r * SIG_WORDS + i;
        STEP_SYNC();
        /* Wait until the right PE has checked the previous round. */
        if (STEP_TID == 0 && r > 1)
            shmemx_dev_signal_wait_until(d, &a->dack[0], SHMEM_CMP_GE, (uint64_t)(r - 1));
        STEP_SYNC();
        const int add = r % 2;
        uint64_t *sig = &a->dsig[add];
        const uint64_t value = add ? 1 : (uint64_t)r;
        const int op = add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        switch (a->scope) {
        case SCOPE_THREAD:
            if (r % 3 == 0)
                shmemx_dev_uint64_put_signal(d, a->ddata, a->dsrcw, SIG_WORDS, sig, value, op,
                                             right);
            else
                shmemx_dev_putmem_signal_nbi(d, a->ddata, a->dsrcw, SIG_WORDS * 8, sig, value, op,
                                             right);
            break;
        case SCOPE_WARP:
            shmemx_dev_putmem_signal_warp(d, a->ddata, a->dsrcw, SIG_WORDS * 8, sig, value, op,
                                          right);
            break;
        default:
            shmemx_dev_putmem_signal_block(d, a->ddata, a->dsrcw, SIG_WORDS * 8, sig, value, op,
                                           right);
            break;
        }
        /* Receive from the left: SET rounds wait for r, ADD rounds for the count. */
        if (STEP_TID == 0) {
            if (add)
                shmemx_dev_signal_wait_until(d, &a->dsig[1], SHMEM_CMP_GE, (uint64_t)(r + 1) / 2);
            else
                shmemx_dev_signal_wait_until(d, &a->dsig[0], SHMEM_CMP_EQ, (uint64_t)r);
        }
        STEP_SYNC();
        int bad = 0;
        for (unsigned i = STEP_TID; i < SIG_WORDS; i += STEP_NT)
            bad += a->ddata[i] != ((uint64_t)left << 48) + (uint64_t)r * SIG_WORDS + i;
        if (bad)
            shmemx_dev_int_atomic_add(d, &a->derrors[0], bad, me);
        STEP_SYNC();
        /* Ack: the left PE may overwrite ddata now (release: after the reads). */
        if (STEP_TID == 0)
            shmemx_dev_putmem_signal(d, a->ddata, a->ddata, 0, &a->dack[0], (uint64_t)r,
                                     SHMEM_SIGNAL_SET, left);
        STEP_SYNC();
    }
    if (STEP_TID == 0)
        shmemx_dev_barrier_all(d);
    STEP_SYNC();
}

/* Rounds: every PE adds 1 to PE 0's dcount[0]; barrier; every PE reads it
 * and counts a wrong value; sync. The team (when given): the same on
 * dcount[1] of the team's first PE with team_sync. */
STEP_FN void step_barrier(shmemx_dev_t d, const step_args_t *a)
{
    if (STEP_TID == 0) {
        const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
        for (int r = 1; r <= a->rounds; r++) {
            shmemx_dev_long_atomic_add(d, &a->dcount[0], 1, 0);
            if (r % 2)
                shmemx_dev_barrier_all(d);
            else
                shmemx_dev_barrier_all_block(d); /* one thread here: a block of one */
            long v = shmemx_dev_long_atomic_fetch(d, &a->dcount[0], 0);
            if (v != (long)r * npes)
                shmemx_dev_int_atomic_add(d, &a->derrors[1], 1, me);
            shmemx_dev_sync_all(d);
        }
        if (a->team.size > 0 && shmemx_dev_team_my_pe(d, a->team) >= 0) {
            const int root = shmemx_dev_team_pe(a->team, 0), n = shmemx_dev_team_n_pes(a->team);
            for (int r = 1; r <= a->rounds; r++) {
                shmemx_dev_long_atomic_add(d, &a->dcount[1], 1, root);
                shmemx_dev_quiet(d);
                shmemx_dev_team_sync(d, a->team);
                long v = shmemx_dev_long_atomic_fetch(d, &a->dcount[1], root);
                if (v != (long)r * n)
                    shmemx_dev_int_atomic_add(d, &a->derrors[2], 1, me);
                shmemx_dev_team_sync(d, a->team);
            }
        }
    }
    STEP_SYNC();
}

/* Every sync type: p of 7 into the right PE's word ([4]), then wait for (and
 * test) its own; a test that fails counts in derrors[3]. */
STEP_FN void step_wait(shmemx_dev_t d, const step_args_t *a)
{
    const int me = shmemx_dev_my_pe(d), npes = shmemx_dev_n_pes(d);
    const int right = (me + 1) % npes;
    typed_t *t = a->dtyped;
#define WAIT_PUT(T, N, unused) shmemx_dev_##N##_p(d, &t->v_##N[4], (T)7, right);
    SHMEM_SYNC_TYPES(WAIT_PUT, )
#undef WAIT_PUT
#define WAIT_ONE(T, N, unused)                                                                     \
    shmemx_dev_##N##_wait_until(d, &t->v_##N[4], SHMEM_CMP_EQ, (T)7);                              \
    if (!shmemx_dev_##N##_test(d, &t->v_##N[4], SHMEM_CMP_GE, (T)7) ||                             \
        shmemx_dev_##N##_test(d, &t->v_##N[4], SHMEM_CMP_LT, (T)7))                                \
        shmemx_dev_int_atomic_add(d, &a->derrors[3], 1, me);
    SHMEM_SYNC_TYPES(WAIT_ONE, )
#undef WAIT_ONE
    shmemx_dev_barrier_all(d);
}

/* Waits for the host's event 7 to reach 1, writes 1000 + me into the host
 * heap word hevent[0] and raises event 9. */
STEP_FN void step_event(shmemx_dev_t d, const step_args_t *a)
{
    const int me = shmemx_dev_my_pe(d);
    uint64_t seen = shmemx_dev_event_wait(d, 7, 1);
    shmemx_dev_long_p(d, &a->hevent[0], 1000 + me + (long)seen - 1, me);
    shmemx_dev_event_raise(d, 9);
}

/* PE 0 waits for a signal nobody sends. */
STEP_FN void step_timeout(shmemx_dev_t d, const step_args_t *a)
{
    if (shmemx_dev_my_pe(d) == 0)
        shmemx_dev_signal_wait_until(d, &a->dsig[0], SHMEM_CMP_EQ, 12345);
}

/* PE 0 puts into memory that is not symmetric. */
STEP_FN void step_badptr(shmemx_dev_t d, const step_args_t *a)
{
    if (shmemx_dev_my_pe(d) == 0)
        shmemx_dev_putmem(d, a->not_symmetric, a->dsrc, 8, 0);
}

/* PE 0 puts 64 bytes starting 8 bytes before the end of a row: the first
 * byte is symmetric, the rest is not. */
STEP_FN void step_range(shmemx_dev_t d, const step_args_t *a)
{
    if (shmemx_dev_my_pe(d) != 0)
        return;
    /* Its first 8 bytes are reachable; if not, the report names 8 bytes, not 64. */
    if (shmemx_dev_ptr(d, a->not_symmetric, 0) == NULL ||
        shmemx_dev_ptr(d, (char *)a->not_symmetric + 7, 0) == NULL)
        shmemx_dev_putmem(d, a->not_symmetric, a->dsrc, 8, 0);
    shmemx_dev_putmem(d, a->not_symmetric, a->dsrc, 64, 0);
}

/* Every thread of PE 0 (a->rounds threads on the CPU, a block on a GPU)
 * arrives, then all put to memory that is not symmetric at once. */
STEP_FN void step_multi(shmemx_dev_t d, const step_args_t *a)
{
    if (shmemx_dev_my_pe(d) != 0)
        return;
    shmemx_dev_long_atomic_inc(d, &a->dcount[0], 0);
    shmemx_dev_long_wait_until(d, &a->dcount[0], SHMEM_CMP_GE, (long)a->rounds * (long)STEP_NT);
    shmemx_dev_putmem(d, a->not_symmetric, a->dsrc, 8, 0);
}

STEP_FN void step_run(shmemx_dev_t d, int step, const step_args_t *a)
{
    switch (step) {
    case STEP_RMA:
        step_rma(d, a);
        break;
    case STEP_TYPED:
        step_typed(d, a);
        break;
    case STEP_AMO:
        step_amo(d, a);
        break;
    case STEP_SIGNAL:
        step_signal(d, a);
        break;
    case STEP_BARRIER:
        step_barrier(d, a);
        break;
    case STEP_WAIT:
        step_wait(d, a);
        break;
    case STEP_EVENT:
        step_event(d, a);
        break;
    case STEP_TIMEOUT:
        step_timeout(d, a);
        break;
    case STEP_BADPTR:
        step_badptr(d, a);
        break;
    case STEP_RANGE:
        step_range(d, a);
        break;
    case STEP_MULTI:
        step_multi(d, a);
        break;
    }
}

#endif /* DEV_API_NO_BODIES */

/* Launches step `step` (asynchronously: the event step needs the host
 * meanwhile) with the scope in a->scope; dev_finish waits for it. 0 or -1
 * (and a message) when it cannot run. */
#ifdef __cplusplus
extern "C" {
#endif
int dev_launch(shmemx_dev_t d, int step, const step_args_t *a);
int dev_finish(void);
/* The barrier step through shmemx_dev_collective_launch (synchronous), and
 * a grid too large to be resident, which must be refused: 0 when both went
 * as they should. */
int dev_collective(shmemx_dev_t d, const step_args_t *a);
/* 1 where the steps run on a GPU (the device heap is not host memory). */
int dev_on_gpu(void);
#ifdef __cplusplus
}
#endif

#endif
