/*
 * Barriers on a CUDA stream without a kernel (shmemx_barrier_all_on_stream,
 * shmemx_sync_all_on_stream), and which stream barrier the device view
 * chose (shmemx_dev_sync_on_host). PEs that share a GPU without MPS are
 * time-sliced by the driver: a kernel that waits for another PE of its GPU
 * holds the GPU until its slice (about 1 ms) ends, so a barrier kernel
 * costs slices. These barriers go through host memory instead: each PE's
 * stream adds 1 to a host-memory counter of every peer (a host function,
 * device/stream.c) and then waits for its own counter through a gate the
 * waiter thread opens -- nothing spins on the GPU or in a host function.
 * The counters are one word per PE of the host symmetric heap, allocated
 * at the first call (collective, like the call itself).
 */
#include <stdlib.h>
#include <string.h>

#include <shmem.h>
#include <shmemx.h>

#include "api/api.h"
#include "core/alloc.h"
#include "core/barrier.h"
#include "core/state.h"
#include "device/stream.h"
#include "util/log.h"

#define SYNC_MSG 640

static struct {
    unsigned generation; /* shoal.generation the counters belong to; 0: none */
    uint64_t *counter;   /* this PE's, symmetric */
    uint64_t **peer;     /* [npes - 1]: the peers' counters, where this process sees them */
    shoal_device_stream_peers_t peers;
    uint64_t round;
} sync_state;

/* The counters for this initialization, made at the first call: 0, or -1
 * after a message (the same on every PE: it depends on the job only). */
static int counters(const char *fn)
{
    const int npes = shoal.route.npes, me = shoal.route.my_pe;
    if (sync_state.generation == shoal.generation && sync_state.counter != NULL)
        return 0;
    for (int p = 0; p < npes; p++)
        if (!shoal_pe_on_host(p)) {
            SHOAL_ERROR("%s: PE %d is on another host; a barrier on a stream through host "
                        "memory reaches the PEs of this host only: use "
                        "shmemx_dev_barrier_all_on_stream (a kernel) or shmem_barrier_all",
                        fn, p);
            return -1;
        }
    free(sync_state.peer); /* from an earlier initialization: its heap is gone */
    memset(&sync_state, 0, sizeof(sync_state));
    uint64_t *counter = shoal_alloc_collective(fn, 64, 64, 1, NULL);
    uint64_t **peer = malloc((size_t)(npes > 1 ? npes - 1 : 1) * sizeof(*peer));
    if (counter == NULL || peer == NULL) {
        SHOAL_ERROR("%s: out of memory for the barrier's counters", fn);
        free(peer);
        return -1;
    }
    int n = 0;
    for (int p = 0; p < npes; p++) {
        shoal_where_t w;
        if (p == me)
            continue;
        if (shoal_route_find_all(&shoal.route, p, counter, sizeof(*counter), &w) !=
            SHOAL_ROUTE_LOCAL) {
            SHOAL_ERROR("%s: PE %d's barrier counter is not mapped in this process", fn, p);
            free(peer);
            return -1;
        }
        peer[n++] = w.ptr;
    }
    sync_state.generation = shoal.generation;
    sync_state.counter = counter;
    sync_state.peer = peer;
    sync_state.peers = (shoal_device_stream_peers_t){.counter = peer, .n = n};
    return 0;
}

static int sync_on_stream(const char *fn, shmemx_stream_t stream)
{
    char msg[SYNC_MSG];
    if (!shoal.initialized) {
        SHOAL_ERROR("%s: called before shmem_init", fn);
        return -1;
    }
    if (counters(fn) != 0)
        return -1;
    if (sync_state.peers.n == 0)
        return 0; /* one PE: nothing to wait for */
    const uint64_t round = ++sync_state.round;
    const uint64_t target = round * (uint64_t)sync_state.peers.n;
    shoal_status_t status =
        shoal_device_stream_barrier(fn, &sync_state.peers, sync_state.counter, target,
                                    (shoal_CUstream)stream, msg, sizeof(msg));
    if (status == SHOAL_OK)
        return 0;
    SHOAL_ERROR("%s", msg);
    return -1;
}

SHOAL_API_DEF(int, shmemx_sync_all_on_stream)(shmemx_stream_t stream)
{
    SHOAL_API_TRACE(COLL, -1, 0, NULL);
    return sync_on_stream(SHOAL_FN, stream);
}

SHOAL_API_DEF(int, shmemx_barrier_all_on_stream)(shmemx_stream_t stream)
{
    SHOAL_API_TRACE(COLL, -1, 0, NULL);
    /* Transfers on streams complete in stream order; what this PE's host
     * code put before the call completes before any PE passes. */
    if (shoal.initialized)
        shoal_quiet(SHOAL_FN);
    return sync_on_stream(SHOAL_FN, stream);
}

SHOAL_API_DEF(int, shmemx_dev_sync_on_host)(void)
{
    return shoal_device_stream_sync_on_host();
}
