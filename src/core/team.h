/*
 * Teams. Every team is an arithmetic progression of world PEs
 * (start + i * stride, i < size): the predefined teams are, and splitting
 * one (strided or 2-D) keeps that shape. Each team owns a slot: a
 * synchronization area at the same offset of every member's internal heap
 * region, agreed on when the team is made. The deprecated active-set
 * collectives use the same PE-set description with the user's pSync.
 */
#ifndef SHOAL_CORE_TEAM_H
#define SHOAL_CORE_TEAM_H

#include <shmem.h>

#include "core/handle.h"
#include "core/state.h"

/* A set of world PEs: start + i * stride for i in [0, size). */
typedef struct {
    int start;
    int stride;
    int size;
    int my_index; /* this PE's index in the set, or -1 */
} shoal_peset_t;

/* Team and context handles point into handle pools (core/handle.h), never
 * into freed memory: a destroyed team or context is marked dead there, and
 * a destroyed context's team becomes shoal_team_dead, whose zero size sends
 * every PE through the failure branch of shoal_ctx_world_pe (which then
 * names the cause), so the check costs the data path nothing. */
struct shoal_team {
    shoal_handle_hdr_t hdr;
    shoal_peset_t set;
    int slot; /* index into shoal_internal_t.team_psync */
    int predefined;
    shmem_team_config_t config;
    long config_mask;
    struct shoal_team *prev, *next; /* the teams alive (split, not destroyed) */
};

struct shoal_ctx {
    shoal_handle_hdr_t hdr;
    struct shoal_team *team;
    long options;
    struct shoal_ctx *prev, *next; /* the contexts alive (created, not destroyed) */
};

extern struct shoal_team shoal_team_world, shoal_team_shared, shoal_team_dead;
extern struct shoal_ctx shoal_ctx_default;

static inline int shoal_peset_world(const shoal_peset_t *set, int index)
{
    return set->start + index * set->stride;
}

/* The team slot whose synchronization area `psync` is (library memory, which
 * may keep state between calls), or -1 for a program's pSync array. */
static inline int shoal_team_slot_of_psync(const uint64_t *psync)
{
    const char *p = (const char *)psync, *first = (const char *)shoal.internal->team_psync;
    const char *end = (const char *)shoal.internal + shoal.internal_size;
    if (p < first || p >= end || (size_t)(p - first) % sizeof(shoal_psync_t) != 0)
        return -1;
    return (int)((size_t)(p - first) / sizeof(shoal_psync_t));
}

/* This team's synchronization area, as a symmetric address. */
static inline uint64_t *shoal_team_psync(const struct shoal_team *team)
{
    return shoal.internal->team_psync[team->slot].word;
}

/* World PE of `pe` counted in ctx's team; ends the job if out of range, or
 * if ctx is SHMEM_CTX_INVALID, destroyed or not a context. */
int shoal_ctx_pe_fail(const char *fn, shmem_ctx_t ctx, int pe) __attribute__((cold));
static inline int shoal_ctx_world_pe(const char *fn, shmem_ctx_t ctx, int pe)
{
    if (__builtin_expect(ctx == &shoal_ctx_default, 1))
        return pe;
    if (ctx == NULL || (unsigned)pe >= (unsigned)ctx->team->set.size)
        return shoal_ctx_pe_fail(fn, ctx, pe);
    return shoal_peset_world(&ctx->team->set, pe);
}
#define SHOAL_CTX_PE(ctx, pe) shoal_ctx_world_pe(__func__, ctx, pe)

/* Sets up the predefined teams after the segments are mapped. */
void shoal_teams_init(void);
void shoal_teams_finalize(void);

/* Ends the job with a message naming `fn` unless `team` is a valid team this
 * PE belongs to. */
void shoal_team_check(const char *fn, shmem_team_t team);
/* Ends the job with a message naming `fn` when `team` is a destroyed team or
 * not a team handle at all; SHMEM_TEAM_INVALID passes (the caller decides). */
void shoal_team_check_handle(const char *fn, shmem_team_t team);
/* The same for a context handle; SHMEM_CTX_INVALID passes. */
void shoal_ctx_check_handle(const char *fn, shmem_ctx_t ctx);

/* Collective over `parent`: the team (start, stride, size) of its members, or
 * SHMEM_TEAM_INVALID in *new_team for a PE outside it; 0 on success (the
 * API's shmem_team_split_strided; `fn` names it in messages). */
int shoal_team_split_strided(const char *fn, shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
/* Collective over `parent`: its rows and columns of `xrange` PEs. */
int shoal_team_split_2d(const char *fn, shmem_team_t parent, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
/* Releases a split team's slot and handle (predefined teams: a warning; a
 * team destroyed before or not a team: the job ends). */
void shoal_team_destroy(const char *fn, shmem_team_t team);

/* A context on `team` with `options`; 0 on success. */
int shoal_ctx_create(const char *fn, shmem_team_t team, long options, shmem_ctx_t *ctx);
void shoal_ctx_destroy(const char *fn, shmem_ctx_t ctx);

#endif
