/*
 * Distributed locks (shmem_set_lock and friends). The lock is the symmetric
 * long on PE 0, used as a ticket lock: the high 32 bits hand out tickets, the
 * low 32 bits say which ticket is served. PEs are served in arrival order, so
 * no PE starves, and shmem_test_lock takes a ticket only when it would be
 * served at once, so it never waits and never livelocks.
 */
#include <shmem.h>

#include "core/amo.h"
#include "core/backoff.h"
#include "core/barrier.h"
#include "core/hang.h"
#include "core/lock.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
               "the ticket layout assumes little-endian");

#define LOCK_HOME_PE 0
#define TICKET_ONE ((uint64_t)1 << 32)

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
    shoal_hang_lock_taken(lock, (uint32_t)(v >> 32));
    return 0;
}

void shoal_lock_clear(const char *fn, long *lock)
{
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
