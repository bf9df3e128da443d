/*
 * Team creation, query and destruction. Splits are collective over the
 * parent team; the slot of a new team is the lowest slot free on every
 * parent member, found by AND-ing the members' published free-slot bitmaps
 * between two parent barriers. Members of disjoint teams may share a slot
 * index, so all the x-axis (or y-axis) teams of a 2-D split share one.
 * Every team and context a PE made is on a list until destroyed, so that
 * shmem_finalize releases those the program left alive. Handles come from
 * pools that never free (core/handle.h), so a destroyed or garbage handle
 * is named as such instead of crashing or corrupting malloc's heap.
 */
#include <stdlib.h>
#include <string.h>

#include "core/barrier.h"
#include "core/check.h"
#include "core/error.h"
#include "core/rma.h"
#include "core/team.h"
#include "util/env.h"
#include "util/log.h"

struct shoal_team shoal_team_world, shoal_team_shared;
/* A destroyed context's team: no PE is in range of it (team.h). */
struct shoal_team shoal_team_dead = {.set = {.size = 0, .my_index = -1}};
struct shoal_ctx shoal_ctx_default = {
    .hdr = {.state = SHOAL_HANDLE_ALIVE}, .team = &shoal_team_world, .options = 0};

static shoal_handle_pool_t team_pool = SHOAL_HANDLE_POOL(struct shoal_team, 256);
static shoal_handle_pool_t ctx_pool = SHOAL_HANDLE_POOL(struct shoal_ctx, 1024);

shmem_team_t const SHMEM_TEAM_WORLD = &shoal_team_world;
shmem_team_t const SHMEM_TEAM_SHARED = &shoal_team_shared;
shmem_team_t const SHMEMX_TEAM_NODE = &shoal_team_shared;
shmem_ctx_t const SHMEM_CTX_DEFAULT = &shoal_ctx_default;

#define SLOT_WORLD 0
#define SLOT_SHARED 1

/* Slots this PE uses; bit set = in use. */
static uint64_t slots_used[SHOAL_TEAMS_LIMIT / 64];

/* The teams and contexts alive; changed under shoal.lock. */
static struct shoal_team *teams_alive;
static struct shoal_ctx *ctxs_alive;

#define LIST_LINK(head, item)                                                                      \
    do {                                                                                           \
        (item)->prev = NULL;                                                                       \
        (item)->next = (head);                                                                     \
        if ((head) != NULL)                                                                        \
            (head)->prev = (item);                                                                 \
        (head) = (item);                                                                           \
    } while (0)
#define LIST_UNLINK(head, item)                                                                    \
    do {                                                                                           \
        if ((item)->prev != NULL)                                                                  \
            (item)->prev->next = (item)->next;                                                     \
        else                                                                                       \
            (head) = (item)->next;                                                                 \
        if ((item)->next != NULL)                                                                  \
            (item)->next->prev = (item)->prev;                                                     \
    } while (0)

static void slot_mark(int slot, int used)
{
    if (used)
        slots_used[slot / 64] |= 1ull << (slot % 64);
    else
        slots_used[slot / 64] &= ~(1ull << (slot % 64));
}

int shoal_ctx_pe_fail(const char *fn, shmem_ctx_t ctx, int pe)
{
    if (strncmp(fn, "pshmem", 6) == 0)
        fn++; /* SHOAL_CTX_PE passes __func__: the spec name is the one users call */
    if (ctx == NULL)
        shoal_fatal("%s: ctx is SHMEM_CTX_INVALID; create it with shmem_ctx_create first", fn);
    shoal_ctx_check_handle(fn, ctx);
    shoal_fatal("%s: pe %d is out of range for the context's team of %d PEs", fn, pe,
                ctx->team->set.size);
}

/* Ends the job unless `h` is an alive object of `pool`. The message names
 * the handle as `what` and ends with `destroyed_by` for a destroyed one or
 * with `not_one` for anything else. */
static void check_pooled(const char *fn, const shoal_handle_pool_t *pool, const void *h,
                         const char *what, const char *destroyed_by, const char *not_one)
{
    switch (shoal_handle_state(pool, h)) {
    case SHOAL_HANDLE_ALIVE:
        return;
    case SHOAL_HANDLE_DEAD:
        shoal_fatal("%s: %s %p was destroyed by %s", fn, what, h, destroyed_by);
    default:
        shoal_fatal("%s: %s %p is not a %s", fn, what, h, not_one);
    }
}

void shoal_ctx_check_handle(const char *fn, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID || ctx == &shoal_ctx_default)
        return;
    check_pooled(fn, &ctx_pool, ctx, "ctx",
                 "shmem_ctx_destroy; make a new context with shmem_ctx_create (or use "
                 "SHMEM_CTX_DEFAULT)",
                 "context handle (neither SHMEM_CTX_DEFAULT nor one made by shmem_ctx_create or "
                 "shmem_team_create_ctx); pass a context the library returned");
}

void shoal_team_check_handle(const char *fn, shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID || team == &shoal_team_world || team == &shoal_team_shared)
        return;
    check_pooled(fn, &team_pool, team, "team",
                 "shmem_team_destroy; use a team that is still alive, or split a new one",
                 "team handle (neither SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED nor one made by "
                 "shmem_team_split_strided or shmem_team_split_2d); pass a team the library "
                 "returned");
}

void shoal_team_check(const char *fn, shmem_team_t team)
{
    SHOAL_REQUIRE_INIT(fn);
    if (team == SHMEM_TEAM_INVALID)
        shoal_fatal("%s: team is SHMEM_TEAM_INVALID; pass a team this PE belongs to", fn);
    shoal_team_check_handle(fn, team);
    if (team->set.my_index < 0)
        shoal_fatal("%s: this PE is not a member of the team", fn);
}

/* The world PEs of this host, if they form a progression; else just this PE. */
static shoal_peset_t host_peset(void)
{
    int first = -1, second = -1, count = 0, last = -1, regular = 1;
    for (int pe = 0; pe < SHOAL_NPES; pe++) {
        if (!shoal_pe_on_host(pe))
            continue;
        if (first < 0)
            first = pe;
        else if (second < 0)
            second = pe;
        else if (pe - last != second - first)
            regular = 0;
        last = pe;
        count++;
    }
    if (!regular) {
        SHOAL_DEBUG("the PEs of this host are not evenly spaced; SHMEM_TEAM_SHARED holds only "
                    "this PE");
        return (shoal_peset_t){SHOAL_MY_PE, 1, 1, 0};
    }
    int stride = second < 0 ? 1 : second - first;
    return (shoal_peset_t){first, stride, count, (SHOAL_MY_PE - first) / stride};
}

void shoal_teams_init(void)
{
    memset(slots_used, 0, sizeof(slots_used));
    shoal_team_world = (struct shoal_team){
        .set = {0, 1, SHOAL_NPES, SHOAL_MY_PE}, .slot = SLOT_WORLD, .predefined = 1};
    shoal_team_shared =
        (struct shoal_team){.set = host_peset(), .slot = SLOT_SHARED, .predefined = 1};
    slot_mark(SLOT_WORLD, 1);
    slot_mark(SLOT_SHARED, 1);
    for (unsigned s = shoal_team_slots(shoal_env.teams_max); s < SHOAL_TEAMS_LIMIT; s++)
        slot_mark((int)s, 1); /* beyond the configured slots: never free */
}

/* Finalize releases every context and team still alive (OpenSHMEM:
 * shmem_finalize releases all resources), so a re-initialized library
 * starts with none. Called under shoal.lock, past finalize's barrier. */
void shoal_teams_finalize(void)
{
    while (ctxs_alive != NULL) {
        struct shoal_ctx *c = ctxs_alive;
        ctxs_alive = c->next;
        c->team = &shoal_team_dead;
        shoal_handle_kill(&ctx_pool, c);
    }
    while (teams_alive != NULL) {
        struct shoal_team *t = teams_alive;
        teams_alive = t->next;
        shoal_handle_kill(&team_pool, t);
    }
    memset(slots_used, 0, sizeof(slots_used));
}

/* Collective over `parent`: the lowest slot free on every parent member, or -1. */
static int agree_on_slot(const struct shoal_team *parent)
{
    const int words = SHOAL_TEAMS_LIMIT / 64;
    for (int w = 0; w < words; w++)
        shoal.internal->team_free[w] = ~slots_used[w];
    shoal_barrier("shmem_team_split", &parent->set, shoal_team_psync(parent));
    uint64_t common[SHOAL_TEAMS_LIMIT / 64];
    memcpy(common, shoal.internal->team_free, sizeof(common));
    for (int i = 0; i < parent->set.size; i++) {
        uint64_t theirs[SHOAL_TEAMS_LIMIT / 64];
        shoal_get("shmem_team_split", theirs, shoal.internal->team_free, sizeof(theirs),
                  shoal_peset_world(&parent->set, i));
        for (int w = 0; w < words; w++)
            common[w] &= theirs[w];
    }
    /* Nobody may overwrite its bitmap before everyone has read it. */
    shoal_barrier("shmem_team_split", &parent->set, shoal_team_psync(parent));
    for (int w = 0; w < words; w++)
        if (common[w] != 0)
            return w * 64 + __builtin_ctzll(common[w]);
    return -1;
}

static int valid_triplet(const struct shoal_team *parent, int start, int stride, int size)
{
    if (size < 1 || (stride == 0 && size != 1))
        return 0;
    long last = (long)start + (long)stride * (size - 1);
    return start >= 0 && start < parent->set.size && last >= 0 && last < parent->set.size;
}

/* Builds this PE's handle for the subset (start, stride, size) of parent, or
 * SHMEM_TEAM_INVALID when it is not a member. */
static shmem_team_t make_team(const struct shoal_team *parent, int start, int stride, int size,
                              int slot, const shmem_team_config_t *config, long mask)
{
    int me = parent->set.my_index, index = -1;
    if (stride == 0)
        index = me == start ? 0 : -1;
    else if ((me - start) % stride == 0 && (me - start) / stride >= 0 &&
             (me - start) / stride < size)
        index = (me - start) / stride;
    if (index < 0)
        return SHMEM_TEAM_INVALID;
    struct shoal_team *team = shoal_handle_new(&team_pool);
    if (team == NULL)
        shoal_fatal("shmem_team_split: out of memory for a team handle");
    team->set.start = shoal_peset_world(&parent->set, start);
    team->set.stride = parent->set.stride * (stride == 0 ? 1 : stride);
    team->set.size = size;
    team->set.my_index = index;
    team->slot = slot;
    team->config_mask = mask;
    if (config != NULL && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        team->config.num_contexts = config->num_contexts;
    /* The slot's words are already zero (a free slot's counters are back at
     * zero), and a faster member may already be signalling into them. */
    slot_mark(slot, 1);
    shoal_check_team_new(slot);
    LIST_LINK(teams_alive, team);
    return team;
}

static void report_no_slot(const char *fn, const struct shoal_team *parent)
{
    if (parent->set.my_index == 0)
        SHOAL_ERROR("%s: no team slot is free on every PE of the parent team (SHOAL_TEAMS_MAX=%u "
                    "split teams alive at once); destroy unused teams or raise "
                    "SHOAL_TEAMS_MAX",
                    fn, shoal_env.teams_max);
}

int shoal_team_split_strided(const char *fn, shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    if (new_team == NULL)
        shoal_fatal("%s: new_team is NULL", fn);
    *new_team = SHMEM_TEAM_INVALID;
    if (parent == SHMEM_TEAM_INVALID)
        return 1;
    shoal_team_check(fn, parent);
    if (!valid_triplet(parent, start, stride, size)) {
        if (parent->set.my_index == 0)
            SHOAL_ERROR("%s: (start %d, stride %d, size %d) does not fit in the parent team of "
                        "%d PEs",
                        fn, start, stride, size, parent->set.size);
        return 1;
    }
    pthread_mutex_lock(&shoal.lock);
    int slot = agree_on_slot(parent);
    if (slot >= 0)
        *new_team = make_team(parent, start, stride, size, slot, config, config_mask);
    else
        report_no_slot(fn, parent);
    pthread_mutex_unlock(&shoal.lock);
    return slot >= 0 ? 0 : 1;
}

int shoal_team_split_2d(const char *fn, shmem_team_t parent, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (xaxis_team == NULL || yaxis_team == NULL)
        shoal_fatal("%s: xaxis_team and yaxis_team must not be NULL", fn);
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent == SHMEM_TEAM_INVALID)
        return 1;
    shoal_team_check(fn, parent);
    if (xrange <= 0) {
        if (parent->set.my_index == 0)
            SHOAL_ERROR("%s: xrange %d must be positive", fn, xrange);
        return 1;
    }
    const int n = parent->set.size, me = parent->set.my_index;
    if (xrange > n)
        xrange = n;
    const int x = me % xrange, y = me / xrange;
    pthread_mutex_lock(&shoal.lock);
    int xslot = agree_on_slot(parent);
    if (xslot >= 0) /* taken before the y-axis agreement, so the two differ */
        slot_mark(xslot, 1);
    int yslot = xslot >= 0 ? agree_on_slot(parent) : -1;
    if (yslot >= 0) {
        int row_len = n - y * xrange < xrange ? n - y * xrange : xrange;
        int col_len = (n - x + xrange - 1) / xrange;
        *xaxis_team = make_team(parent, y * xrange, 1, row_len, xslot, xaxis_config, xaxis_mask);
        *yaxis_team = make_team(parent, x, xrange, col_len, yslot, yaxis_config, yaxis_mask);
    } else {
        if (xslot >= 0)
            slot_mark(xslot, 0);
        report_no_slot(fn, parent);
    }
    pthread_mutex_unlock(&shoal.lock);
    return yslot >= 0 ? 0 : 1;
}

void shoal_team_destroy(const char *fn, shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team != &shoal_team_world && team != &shoal_team_shared &&
        shoal_handle_state(&team_pool, team) == SHOAL_HANDLE_DEAD)
        shoal_fatal("%s: team %p was already destroyed; destroy each team once (a second "
                    "destroy would release a slot another team may hold by now)",
                    fn, (const void *)team);
    shoal_team_check_handle(fn, team);
    if (team->predefined) {
        SHOAL_WARN("shmem_team_destroy: the predefined teams cannot be destroyed; ignored");
        return;
    }
    pthread_mutex_lock(&shoal.lock);
    if (shoal.initialized)
        memset(shoal_team_psync(team), 0, sizeof(shoal_psync_t));
    slot_mark(team->slot, 0);
    LIST_UNLINK(teams_alive, team);
    shoal_handle_kill(&team_pool, team);
    pthread_mutex_unlock(&shoal.lock);
}

/* ---- contexts ---- */

int shoal_ctx_create(const char *fn, shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (ctx == NULL)
        shoal_fatal("%s: ctx is NULL", fn);
    *ctx = SHMEM_CTX_INVALID;
    shoal_team_check_handle(fn, team);
    if (team == SHMEM_TEAM_INVALID || team->set.my_index < 0)
        return 1;
    if (options & ~(SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)) {
        SHOAL_ERROR("%s: options 0x%lx has unknown bits; use SHMEM_CTX_SERIALIZED, "
                    "SHMEM_CTX_PRIVATE and SHMEM_CTX_NOSTORE",
                    fn, (unsigned long)options);
        return 1;
    }
    struct shoal_ctx *c = shoal_handle_new(&ctx_pool);
    if (c == NULL)
        return 1;
    c->team = team;
    c->options = options;
    pthread_mutex_lock(&shoal.lock);
    LIST_LINK(ctxs_alive, c);
    pthread_mutex_unlock(&shoal.lock);
    *ctx = c;
    return 0;
}

void shoal_ctx_destroy(const char *fn, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT)
        return;
    if (shoal_handle_state(&ctx_pool, ctx) == SHOAL_HANDLE_DEAD)
        shoal_fatal("%s: ctx %p was already destroyed; destroy each context once", fn,
                    (const void *)ctx);
    shoal_ctx_check_handle(fn, ctx);
    /* Destroying a context completes its operations (as shmem_ctx_quiet would). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    pthread_mutex_lock(&shoal.lock);
    LIST_UNLINK(ctxs_alive, ctx);
    /* Every later use of this handle fails the data path's PE range check
     * (the dead team has no PEs) and is then named as a destroyed context. */
    ctx->team = &shoal_team_dead;
    shoal_handle_kill(&ctx_pool, ctx);
    pthread_mutex_unlock(&shoal.lock);
}
