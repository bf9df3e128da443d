/*
 * The world barrier. In round k, PE i announces epoch e to PE (i + 2^k) mod N
 * and waits until PE (i - 2^k) mod N has announced e to it. Each flag has one
 * writer whose epochs only grow, so a flag is never reset: a peer already in
 * the next barrier writes e+1, which also satisfies a wait for e (that peer
 * could not have left barrier e before this PE entered it).
 */
#include "core/backoff.h"
#include "core/barrier.h"
#include "core/state.h"

void shoal_sync_world(void)
{
    const int npes = shoal.npes, me = shoal.my_pe;
    const uint64_t epoch = ++shoal.barrier_epoch;
    shoal_internal_t *mine = shoal.internal;

    for (int round = 0, dist = 1; dist < npes; round++, dist <<= 1) {
        int to = (me + dist) % npes;
        __atomic_store_n(&shoal_internal_of(to)->barrier_flag[round], epoch, __ATOMIC_RELEASE);
        shoal_backoff_t b = SHOAL_BACKOFF_INIT;
        while (__atomic_load_n(&mine->barrier_flag[round], __ATOMIC_ACQUIRE) < epoch)
            shoal_backoff(&b);
    }
}
