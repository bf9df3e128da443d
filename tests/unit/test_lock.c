/*
 * util/lock.h under contention: 8 threads (more than this machine's cores,
 * so holders get preempted and waiters reach the futex sleep) each add to a
 * counter that is not atomic, under the lock; a lost update means two
 * threads were inside at once. Also: try fails while the lock is held and
 * succeeds after release; a waiter asleep on the futex is woken by release.
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

static volatile int sleeper_done;

static void *sleeper(void *arg)
{
    (void)arg;
    shoal_lock_take(&lock); /* held by main: spins, then sleeps on the futex */
    sleeper_done = 1;
    shoal_lock_release(&lock);
    return NULL;
}

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
    pthread_t s;
    pthread_create(&s, NULL, sleeper, NULL);
    usleep(50000); /* long past its spinning: it sleeps, and marked the lock */
    CHECK(lock.state == 2);
    CHECK(!sleeper_done);
    shoal_lock_release(&lock);
    pthread_join(s, NULL); /* hangs (test timeout) if release did not wake it */
    CHECK(sleeper_done);
    CHECK(lock.state == 0);

    if (failures == 0)
        printf("lock: %d threads x %d rounds, no lost update; sleeper woken\n", THREADS, ROUNDS);
    return failures != 0;
}
