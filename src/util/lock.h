/*
 * A small lock for a hot path that is almost never contended: taking it is
 * one compare-and-swap, releasing it one exchange. A thread that finds it
 * taken spins a little, then sleeps in the kernel (futex) rather than burn
 * a CPU that the holder may need: Shoal runs more PEs than cores, and a
 * holder preempted while a waiter spins would cost the waiter a whole time
 * slice. Not recursive; not fair (the releasing thread may take it again at
 * once: a holder that releases and takes it in a loop should use
 * shoal_lock_pass, which gives a woken waiter its turn).
 */
#ifndef SHOAL_UTIL_LOCK_H
#define SHOAL_UTIL_LOCK_H

#include <sched.h>
#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* One step of a spin loop: tells the CPU (and its sibling hyperthread). */
static inline void shoal_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

typedef struct {
    int state; /* 0 free, 1 taken, 2 taken and a thread may sleep on it */
} shoal_lock_t;

#define SHOAL_LOCK_INIT                                                                            \
    {                                                                                              \
        0                                                                                          \
    }

static inline int shoal_lock_try(shoal_lock_t *l)
{
    int free_state = 0;
    return __atomic_compare_exchange_n(&l->state, &free_state, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

static inline void shoal_lock_sleep(shoal_lock_t *l)
{
#if defined(__linux__)
    syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
#else
    (void)l;
    sched_yield();
#endif
}

static inline void shoal_lock_wake(shoal_lock_t *l)
{
#if defined(__linux__)
    syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#else
    (void)l;
#endif
}

/* The contended case, out of line so the fast path stays small. */
static void __attribute__((noinline, unused)) shoal_lock_take_slow(shoal_lock_t *l)
{
    for (int spin = 0; spin < 100; spin++) {
        if (__atomic_load_n(&l->state, __ATOMIC_RELAXED) == 0 && shoal_lock_try(l))
            return;
        shoal_cpu_relax();
    }
    /* Mark it as slept on, so that the holder's release wakes a sleeper. */
    while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
        shoal_lock_sleep(l);
}

static inline void shoal_lock_take(shoal_lock_t *l)
{
    if (__builtin_expect(!shoal_lock_try(l), 0))
        shoal_lock_take_slow(l);
}

/* Returns 1 when a thread may have been asleep on it (and was woken). */
static inline int shoal_lock_release(shoal_lock_t *l)
{
    if (__builtin_expect(__atomic_exchange_n(&l->state, 0, __ATOMIC_RELEASE) == 2, 0)) {
        shoal_lock_wake(l);
        return 1;
    }
    return 0;
}

/* Some thread sleeps (or is about to) waiting for it: a holder that could
 * let go should. */
static inline int shoal_lock_waited_for(shoal_lock_t *l)
{
    return __atomic_load_n(&l->state, __ATOMIC_RELAXED) == 2;
}

/* For a holder in a loop that would take it straight back: lets it go for
 * a moment so that a woken waiter gets its turn (measured by a review: a
 * sleeper waited ~48 us on average behind a thread releasing and retaking
 * it every 1 us, 1.9 us with this), and takes it again. `yield`: give up
 * the CPU even when nobody waits. */
static inline void shoal_lock_pass(shoal_lock_t *l, int yield)
{
    int woke = shoal_lock_release(l);
    if (woke || yield)
        sched_yield();
    /* The woken thread may run on another CPU: until it has taken it. */
    for (int spin = 0; woke && spin < 200 && __atomic_load_n(&l->state, __ATOMIC_RELAXED) == 0;
         spin++)
        shoal_cpu_relax();
    shoal_lock_take(l);
}

#endif
