/*
 * Reductions and scans. Every PE combines the sources in team order, so all
 * PEs get bitwise-identical results, floats included.
 *   one shot: each PE reads every source and reduces the whole array; for an
 *             in-place call the result goes to a private buffer first.
 *   two shot: each PE reduces one slice into its dest, then every PE gathers
 *             the other slices from their owners' dest: each PE reads about
 *             2x the array instead of N x. Used from SHOAL_REDUCE_TWO_SHOT_BYTES
 *             up on 3 or more PEs.
 *   push:     small reductions on one host (the other PEs' blocks fit in the
 *             psync's staging words: 192 bytes in a user's pSync, 96 per
 *             parity in a team's): each PE copies its source into every other
 *             PE's staging area and counts one there, then waits for the
 *             N-1 others and combines in team order. One hand-over instead
 *             of a barrier before (sources ready) and after (sources read).
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/amo.h"
#include "core/error.h"
#include "core/rma.h"
#include "util/env.h"

/* Elements combined per step: keeps the accumulator in cache. */
#define CHUNK_BYTES ((size_t)32 << 10)

static void *private_buffer(const char *fn, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL)
        shoal_fatal("%s: cannot allocate %zu bytes of private scratch memory", fn, bytes);
    return p;
}

/* PE `index`'s bytes at symmetric address `addr` through the mapping, or
 * NULL for a PE on another host. */
static const char *mapped_view(const shoal_peset_t *set, int index, const char *addr, size_t len)
{
    int pe = shoal_peset_world(set, index);
    return shoal_pe_valid(pe) ? shoal_peer_addr(addr, len, pe) : NULL;
}

/* out[0..count) = the sources of `npeers` members combined in order: set
 * indices pick[0..npeers) or, with pick NULL, first..first+npeers-1. Sources
 * on other hosts are fetched a chunk at a time, every peer's chunk requested
 * at once, into private buffers. */
static void combine_range(const char *fn, const shoal_peset_t *set, const int *pick, int first,
                          int npeers, char *out, const char *source, size_t begin, size_t count,
                          const shoal_reduce_op_t *op)
{
    const size_t elem = op->elem, chunk = CHUNK_BYTES / elem ? CHUNK_BYTES / elem : 1;
#define MEMBER(i) (pick != NULL ? pick[i] : first + (i))
    const char **view = NULL;
    char *bounce = NULL;
    const size_t per_peer = (count < chunk ? count : chunk) * elem; /* bounce bytes */
    if (shoal_hosts_of(fn, set)->nhosts > 1) { /* some sources may be on other hosts */
        view = private_buffer(fn, sizeof(*view) * (size_t)npeers);
        bounce = private_buffer(fn, per_peer * (size_t)npeers);
    }
    for (size_t done = 0; done < count; done += chunk) {
        size_t n = count - done < chunk ? count - done : chunk;
        const char *at = source + (begin + done) * elem;
        char *acc = out + done * elem;
        if (view != NULL) {
            for (int i = 0; i < npeers; i++) {
                view[i] = mapped_view(set, MEMBER(i), at, n * elem);
                if (view[i] == NULL) {
                    char *b = bounce + (size_t)i * per_peer;
                    shoal_get_nbi(fn, b, at, n * elem, shoal_peset_world(set, MEMBER(i)));
                    view[i] = b;
                }
            }
            shoal_net_complete(fn);
        }
        memcpy(acc, view ? view[0] : mapped_view(set, MEMBER(0), at, n * elem), n * elem);
        for (int i = 1; i < npeers; i++)
            op->combine(acc, view ? view[i] : mapped_view(set, MEMBER(i), at, n * elem), n);
    }
#undef MEMBER
    free(view);
    free(bounce);
}

static void reduce_two_shot(const char *fn, const shoal_peset_t *set, uint64_t *psync, char *dest,
                            const char *source, size_t count, const shoal_reduce_op_t *op)
{
    const int n = set->size, me = set->my_index;
    const size_t base = count / (size_t)n, extra = count % (size_t)n, elem = op->elem;
#define SLICE_BEGIN(k) ((size_t)(k)*base + ((size_t)(k) < extra ? (size_t)(k) : extra))
#define SLICE_LEN(k) (base + ((size_t)(k) < extra ? 1 : 0))
    size_t len = SLICE_LEN(me), begin = SLICE_BEGIN(me);
    char *tmp = private_buffer(fn, len * elem);
    combine_range(fn, set, NULL, 0, n, tmp, source, begin, len, op);
    /* Others read only their own slice of my source, so writing mine is safe in place too. */
    memcpy(dest + begin * elem, tmp, len * elem);
    free(tmp);
    shoal_barrier(fn, set, psync);
    for (int k = 0; k < n; k++) {
        if (k == me || SLICE_LEN(k) == 0)
            continue;
        shoal_get_nbi(fn, dest + SLICE_BEGIN(k) * elem, dest + SLICE_BEGIN(k) * elem,
                      SLICE_LEN(k) * elem, shoal_peset_world(set, k));
    }
    shoal_net_complete(fn);
#undef SLICE_BEGIN
#undef SLICE_LEN
}

/* Reduces PEs first..last into dest; in place, through a private buffer. */
static void reduce_one_shot(const char *fn, const shoal_peset_t *set, uint64_t *psync, char *dest,
                            const char *source, size_t count, const shoal_reduce_op_t *op,
                            int first, int last)
{
    const size_t bytes = count * op->elem;
    if (dest != source) {
        combine_range(fn, set, NULL, first, last - first + 1, dest, source, 0, count, op);
        return;
    }
    char *tmp = private_buffer(fn, bytes);
    combine_range(fn, set, NULL, first, last - first + 1, tmp, source, 0, count, op);
    shoal_barrier(fn, set, psync); /* nobody reads my source any more */
    memcpy(dest, tmp, bytes);
    free(tmp);
}

/* The push form; returns 0 where it does not apply. Consecutive calls stay
 * apart as in the push fcollect (collect.c): a team alternates two halves of
 * the staging area and two arrival words by its count of push calls; a
 * user's pSync may be reused only once no PE is still in the call that used
 * it, so one area serves. Each PE clears its staging words before it
 * returns, so a user's pSync comes back as given. */
static int reduce_push(const char *fn, const shoal_peset_t *set, uint64_t *psync, char *dest,
                       const char *source, size_t count, const shoal_reduce_op_t *op)
{
    enum { STAGE_BYTES = SHOAL_PSYNC_PUSH_STAGE_WORDS * 8 };
    const int n = set->size, me = set->my_index, team = shoal_team_slot_of_psync(psync) >= 0;
    const size_t bytes = count * op->elem, block_words = (bytes + 7) / 8;
    const size_t area_words =
        team ? SHOAL_PSYNC_PUSH_STAGE_WORDS / 2 : SHOAL_PSYNC_PUSH_STAGE_WORDS;
    if (n < 2 || (size_t)(n - 1) * block_words > area_words || shoal_hosts_of(fn, set)->nhosts > 1)
        return 0;
    int parity = team ? (int)(psync[SHOAL_PSYNC_PUSH_CALLS]++ & 1) : 0;
    uint64_t *stage = &psync[SHOAL_PSYNC_PUSH_STAGE + (size_t)parity * area_words];
    const int word = SHOAL_PSYNC_PUSH_ARRIVED + parity;
    const uint64_t one = 1;
    for (int k = 1; k < n; k++) {
        const int i = (me + k) % n, pe = shoal_peset_world(set, i);
        /* At PE i, the other PEs' blocks in index order, skipping i itself. */
        uint64_t *slot = stage + (size_t)(me < i ? me : me - 1) * block_words;
        shoal_put(fn, slot, source, bytes, pe);
        /* Sequentially consistent: the copy above is visible first. */
        shoal_amo(fn, SHOAL_AMO_SYNC_ADD, &psync[word], sizeof(uint64_t), &one, NULL, NULL, pe);
    }
    shoal_wait_count(fn, set, psync, word, (uint64_t)(n - 1), -1);
    /* Combined in team order, through aligned copies (staging words are
     * only 8-byte aligned; long double elements want 16). */
    _Alignas(64) char acc[STAGE_BYTES], in[STAGE_BYTES];
    for (int i = 0; i < n; i++) {
        const void *block =
            i == me ? (const void *)source
                    : (const void *)(stage + (size_t)(i < me ? i : i - 1) * block_words);
        memcpy(i == 0 ? acc : in, block, bytes);
        if (i > 0)
            op->combine(acc, in, count);
    }
    memset(stage, 0, (size_t)(n - 1) * block_words * 8);
    memcpy(dest, acc, bytes);
    return 1;
}

/* A set that spans hosts: each host's leader reduces its members' sources
 * (through shared memory) into its dest; the leaders combine the hosts'
 * partial results in host order (every PE ends with the same bits), so
 * data crosses hosts only between leaders; members copy the result from
 * their leader. */
static void reduce_by_host(const char *fn, const shoal_peset_t *set, uint64_t *psync, char *dest,
                           const char *source, size_t count, const shoal_reduce_op_t *op,
                           const shoal_hosts_t *h)
{
    const size_t bytes = count * op->elem;
    const int leader = set->my_index == h->leader;
    char *tmp = leader ? private_buffer(fn, bytes) : NULL;
    if (leader) {
        combine_range(fn, set, h->local, 0, h->nlocal, tmp, source, 0, count, op);
        memcpy(dest, tmp, bytes);
    }
    shoal_barrier(fn, set, psync); /* partials ready; members' sources read */
    if (leader)
        combine_range(fn, set, h->leaders, 0, h->nhosts, tmp, dest, 0, count, op);
    shoal_barrier(fn, set, psync); /* nobody reads a partial any more */
    if (leader) {
        memcpy(dest, tmp, bytes);
        free(tmp);
        shoal_coll_host_notify(fn, set, psync, h);
    } else {
        shoal_coll_host_wait(fn, set, psync);
        shoal_get(fn, dest, dest, bytes, shoal_peset_world(set, h->leader));
    }
}

/* Large reductions over sets that span hosts with several members on some
 * host go by host; returns 0 where that does not apply. */
static int reduce_across_hosts(const char *fn, const shoal_peset_t *set, uint64_t *psync,
                               void *dest, const void *source, size_t count,
                               const shoal_reduce_op_t *op)
{
    if (count * op->elem < shoal_env.reduce_two_shot_bytes)
        return 0;
    const shoal_hosts_t *h = shoal_hosts_of(fn, set);
    const int by_host = h->nhosts > 1 && h->nhosts < set->size;
    if (by_host)
        reduce_by_host(fn, set, psync, dest, source, count, op, h);
    return by_host;
}

void shoal_coll_reduce(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                       const void *source, size_t count, const shoal_reduce_op_t *op)
{
    const size_t bytes = shoal_coll_bytes(fn, "nreduce", count, op->elem);
    shoal_check_coll(fn, set, psync, -1, bytes, 0);
    if (count == 0)
        return;
    shoal_coll_check_dest(fn, dest, bytes);
    shoal_coll_check_buffer(fn, "source", source, bytes);
    if (reduce_push(fn, set, psync, dest, source, count, op))
        return;
    shoal_barrier(fn, set, psync);
    if (reduce_across_hosts(fn, set, psync, dest, source, count, op)) {
        shoal_barrier(fn, set, psync); /* members are done reading their leader's dest */
        return;
    }
    if (set->size >= 3 && count * op->elem >= shoal_env.reduce_two_shot_bytes &&
        count >= (size_t)set->size) {
        reduce_two_shot(fn, set, psync, dest, source, count, op);
        shoal_barrier(fn, set, psync);
        return;
    }
    reduce_one_shot(fn, set, psync, dest, source, count, op, 0, set->size - 1);
    if (dest != source)
        shoal_barrier(fn, set, psync); /* others may still read my source */
}

void shoal_coll_scan(const char *fn, const shoal_peset_t *set, uint64_t *psync, void *dest,
                     const void *source, size_t count, const shoal_reduce_op_t *op, int inclusive)
{
    const int last = inclusive ? set->my_index : set->my_index - 1;
    const size_t bytes = shoal_coll_bytes(fn, "nelems", count, op->elem);
    shoal_check_coll(fn, set, psync, -1, bytes, (uint64_t)inclusive);
    if (count == 0)
        return;
    shoal_coll_check_dest(fn, dest, bytes);
    shoal_coll_check_buffer(fn, "source", source, bytes);
    shoal_barrier(fn, set, psync);
    if (last < 0) {
        /* The exclusive scan of the first PE is the sum of nothing: zero. */
        shoal_barrier(fn, set, psync);
        memset(dest, 0, count * op->elem);
        return;
    }
    reduce_one_shot(fn, set, psync, dest, source, count, op, 0, last);
    if (dest != source)
        shoal_barrier(fn, set, psync);
}
