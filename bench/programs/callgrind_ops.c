/*
 * callgrind_ops.c: each hot operation called N times from its own function,
 * so that `valgrind --tool=callgrind` (bench/drivers/callgrind.sh) can report the
 * instructions one call costs.  Instruction counts are repeatable on the
 * project's machines, where timings are not, so they show what a change to
 * the data path adds or removes.
 *
 * PE 0 runs the one-sided ops against PE 1 (the waits find their condition
 * already true, so no polling is counted); every PE runs the barriers and
 * collectives, whose counts include some polling and so vary a little.
 * Each function op_<name> runs its op N times (collectives N_COLL times);
 * callgrind.sh divides its inclusive count by that.  The loop itself adds
 * a few instructions per call.
 */
#include "common.h"

#include <stdint.h>

#define N 100000L
#define N_COLL 20000L
/* Kept out of line and unspecialized, so that each op_<name> is one function
 * in the profile (gcc would otherwise clone some as op_<name>.constprop.0). */
#if defined(__GNUC__) && !defined(__clang__)
#define OP __attribute__((noinline, noclone))
#else
#define OP __attribute__((noinline))
#endif

static long global_word;

OP static void op_putmem8(char *d, const char *s, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_putmem(d, s, 8, pe);
}
OP static void op_putmem8_quiet(char *d, const char *s, int pe)
{
    for (long i = 0; i < N; i++) {
        shmem_putmem(d, s, 8, pe);
        shmem_quiet();
    }
}
OP static void op_putmem_nbi8(char *d, const char *s, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_putmem_nbi(d, s, 8, pe);
}
OP static void op_getmem8(char *d, const char *s, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_getmem(d, s, 8, pe);
}
OP static void op_quiet(void)
{
    for (long i = 0; i < N; i++)
        shmem_quiet();
}
OP static void op_long_p(long *v, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_long_p(v, i, pe);
}
OP static long op_long_g(long *v, int pe)
{
    long s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_long_g(v, pe);
    return s;
}
OP static long op_long_g_global(int pe)
{
    long s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_long_g(&global_word, pe);
    return s;
}
OP static long op_atomic_fetch(long *v, int pe)
{
    long s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_long_atomic_fetch(v, pe);
    return s;
}
OP static void op_atomic_set(long *v, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_long_atomic_set(v, i, pe);
}
OP static void op_atomic_inc(long *v, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_long_atomic_inc(v, pe);
}
OP static void op_atomic_add(long *v, int pe)
{
    for (long i = 0; i < N; i++)
        shmem_long_atomic_add(v, 1, pe);
}
OP static long op_atomic_fetch_add(long *v, int pe)
{
    long s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_long_atomic_fetch_add(v, 1, pe);
    return s;
}
OP static long op_atomic_compare_swap(long *v, int pe)
{
    long s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_long_atomic_compare_swap(v, 7, 7, pe);
    return s;
}
OP static unsigned long op_atomic_fetch_and(unsigned long *v, int pe)
{
    unsigned long s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_ulong_atomic_fetch_and(v, ~0UL, pe);
    return s;
}
OP static int op_long_test(long *v)
{
    int s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_long_test(v, SHMEM_CMP_EQ, 0);
    return s;
}
OP static void op_long_wait_until(long *v)
{
    for (long i = 0; i < N; i++)
        shmem_long_wait_until(v, SHMEM_CMP_EQ, 0);
}
OP static void *op_ptr(long *v, int pe)
{
    void *p = NULL;
    for (long i = 0; i < N; i++)
        p = shmem_ptr(v, pe);
    return p;
}
#if BENCH_HAVE_SIGNAL
OP static void op_putmem_signal8(long *d, uint64_t *sig, int pe)
{
    long v = 1;
    for (long i = 0; i < N; i++)
        shmem_putmem_signal(d, &v, 8, sig, 1, SHMEM_SIGNAL_SET, pe);
}
OP static uint64_t op_signal_wait_until(uint64_t *sig)
{
    uint64_t s = 0;
    for (long i = 0; i < N; i++)
        s += shmem_signal_wait_until(sig, SHMEM_CMP_GE, 0);
    return s;
}
#endif
OP static void op_barrier_all(void)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_barrier_all();
}
OP static void op_sync_all(void)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_sync_all();
}
#if BENCH_HAVE_TEAM_SYNC
OP static void op_team_sync(void)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_team_sync(SHMEM_TEAM_WORLD);
}
#endif
#if BENCH_HAVE_BROADCASTMEM
OP static void op_broadcastmem8(long *d, long *s)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_broadcastmem(SHMEM_TEAM_WORLD, d, s, 8, 0);
}
#endif
#if BENCH_HAVE_LONG_SUM_REDUCE
OP static void op_long_sum_reduce1(long *d, long *s)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, d, s, 1);
}
#endif
#if BENCH_HAVE_FCOLLECTMEM
OP static void op_fcollectmem8(long *d, long *s)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_fcollectmem(SHMEM_TEAM_WORLD, d, s, 8);
}
#endif
#if BENCH_HAVE_ALLTOALLMEM
OP static void op_alltoallmem8(long *d, long *s)
{
    for (long i = 0; i < N_COLL; i++)
        shmem_alltoallmem(SHMEM_TEAM_WORLD, d, s, 8);
}
#endif

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), peer = npes > 1 ? 1 : 0;
    char *buf = bench_malloc(64);
    long *word = bench_malloc(sizeof(long));
    unsigned long *uword = bench_malloc(sizeof(unsigned long));
    uint64_t *sig = bench_malloc(sizeof(uint64_t));
    long *flag = bench_malloc(sizeof(long));
    long *src = bench_malloc(sizeof(long) * (size_t)npes);
    long *dst = bench_malloc(sizeof(long) * (size_t)npes);
    char local[64] = {0};

    *word = 7;
    *uword = 0;
    *sig = 1;
    *flag = 0;
    for (int i = 0; i < npes; i++)
        src[i] = i;
    shmem_barrier_all();
    if (me == 0) {
        op_putmem8(buf, local, peer);
        op_putmem8_quiet(buf, local, peer);
        op_putmem_nbi8(buf, local, peer);
        op_getmem8(local, buf, peer);
        op_quiet();
        op_long_p((long *)buf, peer);
        op_long_g(word, peer);
        op_long_g_global(peer);
        op_atomic_fetch(word, peer);
        op_atomic_set(word, peer);
        op_atomic_inc(word, peer);
        op_atomic_add(word, peer);
        op_atomic_fetch_add(word, peer);
        op_atomic_compare_swap(word, peer);
        op_atomic_fetch_and(uword, peer);
        op_long_test(flag);
        op_ptr(word, peer);
#if BENCH_HAVE_SIGNAL
        op_putmem_signal8((long *)buf, sig, peer);
#endif
    }
    shmem_barrier_all();
    shmem_barrier_all();
    op_long_wait_until(flag);
#if BENCH_HAVE_SIGNAL
    op_signal_wait_until(sig);
#endif
    op_barrier_all();
    op_sync_all();
#if BENCH_HAVE_TEAM_SYNC
    op_team_sync();
#endif
#if BENCH_HAVE_BROADCASTMEM
    op_broadcastmem8(dst, src);
#endif
#if BENCH_HAVE_LONG_SUM_REDUCE
    op_long_sum_reduce1(dst, src);
#endif
#if BENCH_HAVE_FCOLLECTMEM
    op_fcollectmem8(dst, src);
#endif
#if BENCH_HAVE_ALLTOALLMEM
    op_alltoallmem8(dst, src);
#endif
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
