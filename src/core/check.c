/*
 * Check mode's collective check (see check.h). Each team slot's psync area
 * holds two descriptors, used by call parity: the first member cannot
 * reach the call after next before every member has passed the barrier of
 * the next one, which each enters only after reading this one's.
 */
#include <stdio.h>
#include <string.h>

#include "core/barrier.h"
#include "core/check.h"
#include "core/error.h"
#include "core/rma.h"
#include "core/state.h"

int shoal_check_on;

typedef struct {
    uint64_t seq; /* this PE's count of collectives on the team, this one included */
    int64_t root;
    uint64_t nbytes;
    uint64_t extra;
    char fn[32];
} check_desc_t;

_Static_assert(sizeof(check_desc_t) == sizeof(((shoal_psync_t *)0)->check[0]),
               "a check descriptor fills one psync check slot");

static uint64_t seq_of_slot[SHOAL_TEAMS_LIMIT];

void shoal_check_team_new(int slot)
{
    if (slot >= 0 && slot < SHOAL_TEAMS_LIMIT)
        seq_of_slot[slot] = 0;
}

void shoal_check_overlap(const char *fn, int is_put, const void *remote, const void *symmetric,
                         const void *local, size_t len, int pe)
{
    const uintptr_t r = (uintptr_t)remote, l = (uintptr_t)local;
    if (r + len <= l || l + len <= r)
        return;
    const uintptr_t lo = r > l ? r : l, hi = r + len < l + len ? r + len : l + len;
    shoal_fatal("%s (SHOAL_CHECK): the %s (%zu bytes at %p on this PE) and the %s (%p on PE %d, "
                "which this PE maps at %p) are the same memory for %zu bytes; OpenSHMEM leaves "
                "overlapping source and dest undefined: use separate buffers",
                fn, is_put ? "source" : "dest", len, local, is_put ? "dest" : "source", symmetric,
                pe, remote, (size_t)(hi - lo));
}

static void describe(char *out, size_t size, const check_desc_t *d)
{
    int n = snprintf(out, size, "%.*s(", (int)sizeof(d->fn), d->fn);
    const char *sep = "";
    if (d->root >= 0) {
        n += snprintf(out + n, size - (size_t)n, "root %lld", (long long)d->root);
        sep = ", ";
    }
    if (d->nbytes != 0) {
        n +=
            snprintf(out + n, size - (size_t)n, "%s%llu bytes", sep, (unsigned long long)d->nbytes);
        sep = ", ";
    }
    if (d->extra != 0)
        n += snprintf(out + n, size - (size_t)n, "%sarg %#llx", sep, (unsigned long long)d->extra);
    snprintf(out + n, size - (size_t)n, ")");
}

void shoal_check_coll_slow(const char *fn, const shoal_peset_t *set, uint64_t *psync, int root,
                           uint64_t nbytes, uint64_t extra)
{
    int slot = shoal_team_slot_of_psync(psync);
    if (slot < 0 || set->my_index < 0)
        return;
    shoal_psync_t *area = &shoal.internal->team_psync[slot];
    check_desc_t mine = {
        .seq = ++seq_of_slot[slot], .root = root, .nbytes = nbytes, .extra = extra};
    strncpy(mine.fn, fn, sizeof(mine.fn) - 1);
    const unsigned parity = (unsigned)(mine.seq & 1);
    memcpy(area->check[parity], &mine, sizeof(mine));
    shoal_quiet(fn);
    shoal_barrier(fn, set, psync);
    if (set->my_index == 0)
        return;
    const int first = shoal_peset_world(set, 0);
    check_desc_t theirs;
    shoal_get(fn, &theirs, area->check[parity], sizeof(theirs), first);
    const int same_call = strncmp(theirs.fn, mine.fn, sizeof(mine.fn)) == 0;
    if (same_call && theirs.seq == mine.seq && theirs.root == mine.root &&
        theirs.nbytes == mine.nbytes && theirs.extra == mine.extra)
        return;
    char a[128], b[128];
    describe(a, sizeof(a), &mine);
    describe(b, sizeof(b), &theirs);
    if (!same_call || theirs.seq != mine.seq)
        shoal_fatal("%s (SHOAL_CHECK): the PEs of the team of %d PEs starting at PE %d "
                    "(stride %d) are not calling the same collective: PE %d (team PE %d) is in "
                    "%s, its collective #%llu on this team, but PE %d (team PE 0) is in %s, "
                    "its #%llu; either they passed different operations or types, or some PE "
                    "skipped a collective or called one the others did not (a desync)",
                    fn, set->size, set->start, set->stride, SHOAL_MY_PE, set->my_index, a,
                    (unsigned long long)mine.seq, first, b, (unsigned long long)theirs.seq);
    shoal_fatal("%s (SHOAL_CHECK): the PEs of the team of %d PEs starting at PE %d (stride %d) "
                "passed different arguments to collective #%llu on this team: PE %d (team PE "
                "%d) called %s but PE %d (team PE 0) called %s; every member must pass the same "
                "root, element count and operation",
                fn, set->size, set->start, set->stride, (unsigned long long)mine.seq, SHOAL_MY_PE,
                set->my_index, a, first, b);
}
