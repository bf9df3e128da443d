/*
 * fcollect and collect: every PE pulls every PE's block into its own dest,
 * in team order. For collect the block sizes differ, so each PE first
 * publishes its size in the psync scratch word and reads everyone's to find
 * its offsets. When the set spans hosts, each host's leader gathers every
 * block (the network carries each block once per host) and the other
 * members of its host copy the whole result from the leader's dest.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/amo.h"
#include "core/error.h"
#include "core/rma.h"

/* Block i is len[i] bytes of member i's source, at offset off[i] of dest;
 * len == NULL means every block is `nbytes` long, at i * nbytes. */
static void gather(const char *fn, const shoal_peset_t *set, uint64_t *psync, char *dest,
                   const void *source, size_t nbytes, const uint64_t *len, const size_t *off)
{
#define LEN(i) (len != NULL ? (size_t)len[i] : nbytes)
#define OFF(i) (len != NULL ? off[i] : (size_t)(i)*nbytes)
    const int n = set->size;
    const shoal_hosts_t *h = shoal_hosts_of(fn, set);
    const int by_host = h->nhosts > 1 && h->nhosts < n;
    if (!by_host || set->my_index == h->leader) {
        for (int i = 0; i < n; i++)
            if (LEN(i) > 0) /* an empty block's source may be NULL */
                shoal_get_nbi(fn, dest + OFF(i), source, LEN(i), shoal_peset_world(set, i));
        shoal_net_complete(fn);
        if (by_host)
            shoal_coll_host_notify(fn, set, psync, h);
    } else {
        shoal_coll_host_wait(fn, set, psync);
        shoal_get(fn, dest, dest, OFF(n - 1) + LEN(n - 1), shoal_peset_world(set, h->leader));
    }
#undef LEN
#undef OFF
}

/* Small fcollect and alltoall on one host: every PE copies its blocks
 * straight into the other PEs' dests (the spec requires every dest to be
 * ready before any PE calls), then counts one in their "arrived" word, and
 * waits until the N-1 others have done so for it. One hand-over instead of
 * two barriers. A PE leaves only after every PE's blocks reached it, so no
 * PE is more than one call ahead of another. Team forms: two "arrived"
 * words, alternating with the parity of each PE's count of such calls (kept
 * in the team's area), keep consecutive calls apart. Active-set forms: the
 * spec lets a pSync be reused only once no PE is still in the call that used
 * it last (programs alternate two pSyncs or synchronize), so one word of the
 * user's pSync serves, and it is back at zero on return. */
#define PUSH_MAX_BYTES 4096

int shoal_coll_push_exchange(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                             const void *source, size_t nbytes, int alltoall)
{
    if (shoal_hosts_of(fn, set)->nhosts > 1 || nbytes > PUSH_MAX_BYTES)
        return 0;
    const int n = set->size, me = set->my_index;
    const uint64_t one = 1;
    int word = SHOAL_PSYNC_PUSH_ARRIVED;
    if (shoal_team_slot_of_psync(psync) >= 0)
        word += (int)(psync[SHOAL_PSYNC_PUSH_CALLS]++ & 1);
    uint64_t *arrived = &psync[word];
    char *mine = (char *)dest + (size_t)me * nbytes;
    for (int k = 1; k < n; k++) {
        const int i = (me + k) % n, pe = shoal_peset_world(set, i);
        shoal_put(fn, mine, (const char *)source + (alltoall ? (size_t)i * nbytes : 0), nbytes, pe);
        /* Sequentially consistent: the copy above is visible first. */
        shoal_amo(fn, SHOAL_AMO_SYNC_ADD, arrived, sizeof(uint64_t), &one, NULL, NULL, pe);
    }
    memmove(mine, (const char *)source + (alltoall ? (size_t)me * nbytes : 0), nbytes);
    shoal_wait_count(fn, set, psync, word, (uint64_t)(n - 1), -1);
    return 1;
}

void shoal_coll_fcollect(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                         const void *source, size_t nbytes)
{
    shoal_check_coll(fn, set, psync, -1, nbytes, 0);
    if (nbytes == 0)
        return;
    shoal_coll_check_dest(fn, dest,
                          shoal_coll_bytes(fn, "nelems x team size", nbytes, (size_t)set->size));
    shoal_coll_check_buffer(fn, "source", source, nbytes);
    if (shoal_coll_push_exchange(fn, set, psync, dest, source, nbytes, 0))
        return;
    shoal_barrier(fn, set, psync);
    gather(fn, set, psync, dest, source, nbytes, NULL, NULL);
    shoal_barrier(fn, set, psync);
}

void shoal_coll_collect(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                        const void *source, size_t nbytes)
{
    shoal_check_coll(fn, set, psync, -1, 0, 0); /* each PE's count may differ */
    if (nbytes > 0)
        shoal_coll_check_buffer(fn, "source", source, nbytes);
    uint64_t *my_size = &psync[SHOAL_PSYNC_SCRATCH];
    __atomic_store_n(my_size, (uint64_t)nbytes, __ATOMIC_RELAXED);
    shoal_barrier(fn, set, psync);
    /* Everyone's size first (all requests in flight at once), then the data. */
    uint64_t *len = malloc(sizeof(uint64_t) * (size_t)set->size);
    size_t *off = malloc(sizeof(size_t) * (size_t)set->size);
    if (len == NULL || off == NULL)
        shoal_fatal("%s: cannot allocate %d words of private scratch memory", fn, set->size);
    for (int i = 0; i < set->size; i++)
        shoal_get_nbi(fn, &len[i], my_size, sizeof(uint64_t), shoal_peset_world(set, i));
    shoal_net_complete(fn);
    size_t total = 0;
    for (int i = 0; i < set->size; i++) {
        off[i] = total;
        total += (size_t)len[i];
    }
    if (total > 0) {
        shoal_coll_check_dest(fn, dest, total);
        gather(fn, set, psync, dest, source, 0, len, off);
    }
    free(len);
    free(off);
    shoal_barrier(fn, set, psync);
    /* Everyone has read it: restore the word (a user's pSync must come back as given). */
    __atomic_store_n(my_size, 0, __ATOMIC_RELAXED);
}
