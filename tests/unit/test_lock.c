/*
 * util/lock.h under contention: 8 threads (more than the 2 cores of the CI
 * machines, so holders get preempted and waiters reach the futex sleep)
 * each add to a counter that is not atomic, under the lock; a lost update
 * means two threads were inside at once. Also: try fails while the lock is
 * held; three threads asleep on the futex are all woken, one release after
 * another (a lost wake-up fails a check after 10 s, not the test's timeout);
 * a holder passing the lock in a tight loop (shoal_lock_pass) lets a
 * sleeper through.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "unit_check.h"
#include "util/lock.h"

#define THREADS 8
#define ROUNDS 200000

static shoal_lock_t lock = SHOAL_LOCK_INIT;
static volatile uint64_t counter;
static volatile int inside; /* threads inside the lock: must never be 2 */
static int overlap;

static void *adder(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        shoal_lock_take(&lock);
        if (++inside != 1)
            overlap = 1;
        counter = counter + 1;
        if ((i & 1023) == 0)
            sched_yield(); /* be preempted while holding it now and then */
        inside--;
        shoal_lock_release(&lock);
    }
    return NULL;
}

#define SLEEPERS 3
static int sleepers_done;

static void *sleeper(void *arg)
{
    (void)arg;
    shoal_lock_take(&lock); /* held by main: spins, then sleeps on the futex */
    __atomic_add_fetch(&sleepers_done, 1, __ATOMIC_RELAXED);
    shoal_lock_release(&lock);
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits up to 10 s for `cond`; returns whether it became true. */
#define WAIT_FOR(cond)                                                                             \
    ({                                                                                             \
        double deadline_ = now_s() + 10;                                                           \
        while (!(cond) && now_s() < deadline_)                                                     \
            usleep(1000);                                                                          \
        (cond);                                                                                    \
    })

int main(void)
{
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, adder, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK(counter == (uint64_t)THREADS * ROUNDS);
    CHECK(!overlap);
    CHECK(lock.state == 0);

    CHECK(shoal_lock_try(&lock));
    CHECK(!shoal_lock_try(&lock));
    pthread_t s[SLEEPERS];
    for (int i = 0; i < SLEEPERS; i++)
        pthread_create(&s[i], NULL, sleeper, NULL);
    /* Past their spinning they mark the lock as slept on. */
    CHECK(WAIT_FOR(__atomic_load_n(&lock.state, __ATOMIC_RELAXED) == 2));
    usleep(20000); /* let all three reach the futex */
    CHECK(__atomic_load_n(&sleepers_done, __ATOMIC_RELAXED) == 0);
    CHECK(shoal_lock_release(&lock) == 1); /* it says it woke someone */
    /* Each sleeper, woken, passes the lock on: all three get through. */
    CHECK(WAIT_FOR(__atomic_load_n(&sleepers_done, __ATOMIC_RELAXED) == SLEEPERS));
    if (__atomic_load_n(&sleepers_done, __ATOMIC_RELAXED) == SLEEPERS) {
        for (int i = 0; i < SLEEPERS; i++)
            pthread_join(s[i], NULL);
        CHECK(lock.state == 0);
        CHECK(shoal_lock_try(&lock));
        CHECK(shoal_lock_release(&lock) == 0); /* nobody waited */
    }

    /* A holder that passes the lock in a tight loop lets a sleeper through. */
    shoal_lock_take(&lock);
    pthread_t late;
    pthread_create(&late, NULL, sleeper, NULL);
    double deadline = now_s() + 10;
    while (__atomic_load_n(&sleepers_done, __ATOMIC_RELAXED) < SLEEPERS + 1 && now_s() < deadline)
        shoal_lock_pass(&lock, 0);
    CHECK(__atomic_load_n(&sleepers_done, __ATOMIC_RELAXED) == SLEEPERS + 1);
    shoal_lock_release(&lock);
    pthread_join(late, NULL);

    if (failures == 0)
        printf("lock: %d threads x %d rounds, no lost update; %d sleepers woken in turn\n", THREADS,
               ROUNDS, SLEEPERS);
    return failures != 0;
}
