/*
 * The team and context routines of the API: argument checks and queries
 * here, the collective work (slot agreement, making and releasing teams
 * and contexts) in core (src/core/team_ctx.c).
 */
#include <shmem.h>

#include "api/api.h"
#include "core/barrier.h"
#include "core/check.h"
#include "core/error.h"
#include "core/peer.h"
#include "core/team.h"

SHOAL_API_DEF(int, shmem_team_split_strided)
(shmem_team_t parent, int start, int stride, int size, const shmem_team_config_t *config,
 long config_mask, shmem_team_t *new_team)
{
    SHOAL_API_TRACE_TEAM(COLL, parent);
    return shoal_team_split_strided(SHOAL_FN, parent, start, stride, size, config, config_mask,
                                    new_team);
}

SHOAL_API_DEF(int, shmem_team_split_2d)
(shmem_team_t parent, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
 shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
 shmem_team_t *yaxis_team)
{
    SHOAL_API_TRACE_TEAM(COLL, parent);
    return shoal_team_split_2d(SHOAL_FN, parent, xrange, xaxis_config, xaxis_mask, xaxis_team,
                               yaxis_config, yaxis_mask, yaxis_team);
}

SHOAL_API_DEF(void, shmem_team_destroy)(shmem_team_t team)
{
    shoal_team_destroy(SHOAL_FN, team);
}

SHOAL_API_DEF(int, shmem_team_my_pe)(shmem_team_t team)
{
    shoal_team_check_handle(SHOAL_FN, team);
    return team == SHMEM_TEAM_INVALID ? -1 : team->set.my_index;
}

SHOAL_API_DEF(int, shmem_team_n_pes)(shmem_team_t team)
{
    shoal_team_check_handle(SHOAL_FN, team);
    return team == SHMEM_TEAM_INVALID ? -1 : team->set.size;
}

SHOAL_API_DEF(int, shmem_team_get_config)
(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    shoal_team_check_handle(SHOAL_FN, team);
    if (team == SHMEM_TEAM_INVALID || (config == NULL && config_mask != 0))
        return 1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}

SHOAL_API_DEF(int, shmem_team_translate_pe)
(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    shoal_team_check_handle(SHOAL_FN, src_team);
    shoal_team_check_handle(SHOAL_FN, dest_team);
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= src_team->set.size)
        return -1;
    int world = shoal_peset_world(&src_team->set, src_pe);
    const shoal_peset_t *d = &dest_team->set;
    int offset = world - d->start;
    if (d->size == 1)
        return offset == 0 ? 0 : -1;
    if (offset % d->stride != 0 || offset / d->stride < 0 || offset / d->stride >= d->size)
        return -1;
    return offset / d->stride;
}

SHOAL_API_DEF(void *, shmem_team_ptr)(shmem_team_t team, const void *dest, int pe)
{
    shoal_team_check_handle(SHOAL_FN, team);
    if (!shoal.initialized || team == SHMEM_TEAM_INVALID || pe < 0 || pe >= team->set.size)
        return NULL;
    return shoal_peer_addr(dest, 1, shoal_peset_world(&team->set, pe));
}

SHOAL_API_DEF(int, shmem_team_sync)(shmem_team_t team)
{
    SHOAL_API_TRACE_TEAM(COLL, team);
    shoal_team_check(SHOAL_FN, team);
    shoal_check_coll(SHOAL_FN, &team->set, shoal_team_psync(team), -1, 0, 0);
    shoal_barrier(SHOAL_FN, &team->set, shoal_team_psync(team));
    return 0;
}

SHOAL_API_DEF(int, shmem_ctx_create)(long options, shmem_ctx_t *ctx)
{
    SHOAL_REQUIRE_INIT(SHOAL_FN);
    return shoal_ctx_create(SHOAL_FN, SHMEM_TEAM_WORLD, options, ctx);
}

SHOAL_API_DEF(int, shmem_ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (team == NULL)
        return 1;
    shoal_ctx_check_handle(SHOAL_FN, ctx);
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    *team = ctx->team;
    return 0;
}

SHOAL_API_DEF(void, shmem_ctx_session_start)
(shmem_ctx_t ctx, long options, const shmem_session_config_t *config, long config_mask)
{
    (void)ctx, (void)options, (void)config, (void)config_mask; /* a hint */
}

SHOAL_API_DEF(void, shmem_ctx_session_stop)(shmem_ctx_t ctx)
{
    (void)ctx;
}

SHOAL_API_DEF(int, shmem_team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return shoal_ctx_create(SHOAL_FN, team, options, ctx);
}

SHOAL_API_DEF(void, shmem_ctx_destroy)(shmem_ctx_t ctx)
{
    shoal_ctx_destroy(SHOAL_FN, ctx);
}
