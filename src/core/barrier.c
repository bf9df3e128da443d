/*
 * The world barrier used inside the library (allocation, init): the team
 * barrier of SHMEM_TEAM_WORLD.
 */
#include "coll/coll.h"
#include "core/barrier.h"
#include "core/team.h"

void shoal_sync_world(void)
{
    shoal_coll_barrier(&shoal_team_world.set, shoal_team_psync(&shoal_team_world));
}
