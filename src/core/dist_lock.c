/*
 * Distributed locks (shmem_set_lock and friends). The lock is the symmetric
 * long on PE 0, used as a ticket lock: the high 32 bits hand out tickets, the
 * low 32 bits say which ticket is served. PEs are served in arrival order, so
 * no PE starves, and shmem_test_lock takes a ticket only when it would be
 * served at once, so it never waits and never livelocks.
 *
 * Each PE keeps the locks it holds (taken by set or a successful test, not
 * yet cleared) in a small list of its own: clearing a lock the PE does not
 * hold would serve a ticket that belongs to another PE, so two PEs would
 * then be in the critical section together and one would wait forever
 * afterwards. Such a clear is refused with a message instead.
 */
#include <pthread.h>
#include <shmem.h>
#include <stdlib.h>

#include "core/amo.h"
#include "core/backoff.h"
#include "core/barrier.h"
#include "core/dist_lock.h"
#include "core/error.h"
#include "core/hang.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the ticket layout assumes little-endian");

#define LOCK_HOME_PE 0
#define TICKET_ONE ((uint64_t)1 << 32)

/* The locks this PE holds; a program holds few at once, so a list will do. */
static const long **held;
static size_t nheld, held_cap;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

static void held_add(const char *fn, const long *lock)
{
    pthread_mutex_lock(&held_lock);
    if (nheld == held_cap) {
        size_t cap = held_cap ? 2 * held_cap : 8;
        const long **grown = realloc(held, cap * sizeof(*held));
        if (grown == NULL)
            shoal_fatal("%s: out of memory for this PE's list of held locks", fn);
        held = grown;
        held_cap = cap;
    }
    held[nheld++] = lock;
    pthread_mutex_unlock(&held_lock);
}

/* Takes `lock` off the list; 0 when this PE does not hold it. */
static int held_remove(const long *lock)
{
    int found = 0;
    pthread_mutex_lock(&held_lock);
    for (size_t i = nheld; i-- > 0;)
        if (held[i] == lock) {
            held[i] = held[--nheld];
            found = 1;
            break;
        }
    pthread_mutex_unlock(&held_lock);
    return found;
}

void shoal_lock_finalize(void)
{
    pthread_mutex_lock(&held_lock);
    free(held);
    held = NULL;
    nheld = held_cap = 0;
    pthread_mutex_unlock(&held_lock);
}

/* The lock word lives on PE 0, which may be on another host: every access
 * goes through the core AMO path (a CPU atomic when PE 0 is mapped). */
static uint64_t lock_fetch(const char *fn, long *lock)
{
    uint64_t v;
    shoal_amo(fn, SHOAL_AMO_FETCH, lock, sizeof(uint64_t), NULL, NULL, &v, LOCK_HOME_PE);
    return v;
}

void shoal_lock_set(const char *fn, long *lock)
{
    uint64_t one = TICKET_ONE, old;
    shoal_amo(fn, SHOAL_AMO_FETCH_ADD, lock, sizeof(uint64_t), &one, NULL, &old, LOCK_HOME_PE);
    uint32_t ticket = (uint32_t)(old >> 32);
    if ((uint32_t)lock_fetch(fn, lock) == ticket) {
        held_add(fn, lock);
        shoal_hang_lock_taken(lock, ticket);
        return;
    }
    /* Held by others: what this thread waits for, should it come to yield (hang.h). */
    const shoal_hang_what_t what = {
        .kind = SHOAL_HANG_LOCK, .fn = fn, .addr = lock, .value = ticket};
    shoal_backoff_t b = SHOAL_BACKOFF_FOR(&what);
    do
        shoal_backoff(&b);
    while ((uint32_t)lock_fetch(fn, lock) != ticket);
    if (b.recorded)
        shoal_hang_leave();
    held_add(fn, lock);
    shoal_hang_lock_taken(lock, ticket);
}

int shoal_lock_test(const char *fn, long *lock)
{
    uint64_t v = lock_fetch(fn, lock);
    if ((uint32_t)(v >> 32) != (uint32_t)v)
        return 1; /* held, or others are queued */
    uint64_t next = v + TICKET_ONE, seen;
    shoal_amo(fn, SHOAL_AMO_CSWAP, lock, sizeof(uint64_t), &next, &v, &seen, LOCK_HOME_PE);
    if (seen != v)
        return 1;
    held_add(fn, lock);
    shoal_hang_lock_taken(lock, (uint32_t)(v >> 32));
    return 0;
}

void shoal_lock_clear(const char *fn, long *lock)
{
    if (!held_remove(lock))
        shoal_fatal("%s: lock %p is not held by this PE (PE %d); only the PE that took it with "
                    "shmem_set_lock or a successful shmem_test_lock may clear it (clearing "
                    "another's would let two PEs in at once)",
                    fn, (void *)lock, SHOAL_MY_PE);
    shoal_quiet(fn); /* what was done under the lock is complete before it is released */
    shoal_hang_lock_released(lock);
    /* Serve the next ticket: a 32-bit add on the low half never carries into the tickets
     * (little-endian: the low half comes first, at the lock's own address). A plain add,
     * which the next quiet (every barrier_all starts with one) completes, not a
     * SHOAL_AMO_SYNC_ADD: nobody waits for a release the way a barrier waits for its
     * counters, so an untracked release could land after the barrier that follows it,
     * where the lock should be free (or on a lock variable reset to 0 after it). */
    uint32_t one = 1, ignored;
    shoal_amo(fn, SHOAL_AMO_ADD, lock, sizeof(uint32_t), &one, NULL, &ignored, LOCK_HOME_PE);
}
