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
#include "core/lock.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the ticket layout assumes little-endian");

#define LOCK_HOME_PE 0
#define TICKET_ONE ((uint64_t)1 << 32)

static uint64_t *lock_word(const char *fn, long *lock)
{
    return shoal_peer_addr_or_fail(fn, "lock", lock, sizeof(long), LOCK_HOME_PE);
}

void shoal_lock_set(const char *fn, long *lock)
{
    uint64_t *w = lock_word(fn, lock);
    uint32_t ticket = (uint32_t)(__atomic_fetch_add(w, TICKET_ONE, __ATOMIC_ACQUIRE) >> 32);
    shoal_backoff_t b = SHOAL_BACKOFF_INIT;
    while ((uint32_t)__atomic_load_n(w, __ATOMIC_ACQUIRE) != ticket)
        shoal_backoff(&b);
}

int shoal_lock_test(const char *fn, long *lock)
{
    uint64_t *w = lock_word(fn, lock);
    uint64_t v = __atomic_load_n(w, __ATOMIC_RELAXED);
    if ((uint32_t)(v >> 32) != (uint32_t)v)
        return 1; /* held, or others are queued */
    return __atomic_compare_exchange_n(w, &v, v + TICKET_ONE, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED)
               ? 0
               : 1;
}

void shoal_lock_clear(const char *fn, long *lock)
{
    uint64_t *w = lock_word(fn, lock);
    shoal_quiet(); /* what was done under the lock is complete before it is released */
    /* Serve the next ticket: a 32-bit add on the low half never carries into the tickets. */
    uint32_t *serving = (uint32_t *)w; /* little-endian: the low half comes first */
    __atomic_fetch_add(serving, 1, __ATOMIC_RELEASE);
}
