/*
 * shmem_init / shmem_finalize: bootstrap, segments, peer mappings.
 *
 * The bootstrap outlives shmem_finalize, so that a program may initialize
 * again (OpenSHMEM 1.6); segments and mappings are made anew each time.
 * A PE that returns from main without finalizing is finalized from an
 * on_exit handler when its exit status is 0; with another status it just
 * exits and the launcher ends the job. A process that lost a file it was
 * asked to write (util/outfile.h) ends with SHOAL_OUTPUT_LOST_STATUS instead
 * of 0 when that is set: a handler registered when the library is loaded,
 * so that it runs after the program's own exit handlers.
 */
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <shmem.h>

#include "core/alloc.h"
#include "core/backoff.h"
#include "core/barrier.h"
#include "core/check.h"
#include "core/dist_lock.h"
#include "core/error.h"
#include "core/fault.h"
#include "core/flight.h"
#include "core/hang.h"
#include "core/host_layout.h"
#include "core/init.h"
#include "core/state.h"
#include "core/pcontrol.h"
#include "core/team.h"
#include "core/trace.h"
#include "device/device_heap.h"
#include "device/view.h"
#include "mem/route_build.h"
#include "transport/net_setup.h"
#include "transport/shm/shm.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/log.h"
#include "util/outfile.h"

shoal_init_overrides_t shoal_init_overrides;

shoal_state_t shoal = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .pcontrol_level = SHOAL_PCONTROL_DEFAULT,
    .segs = {[0 ... SHOAL_ROUTE_ROWS - 1] = {NULL, 0, -1}},
};

static void exit_handler(int exit_status, void *arg)
{
    (void)arg;
    if (!shoal.initialized || exit_status != 0)
        return;
    SHOAL_WARN("the program returned from main without calling shmem_finalize; finalizing "
               "implicitly");
    shoal.init_count = 1;
    shoal_finalize();
}

/* The last of the program's exit handlers (registered before main runs):
 * with output lost and SHOAL_OUTPUT_LOST_STATUS set, a status of 0 becomes
 * that. exit() cannot be called again from a handler, so the process ends
 * by _exit after stdio is flushed. */
static void output_lost_exit(int exit_status, void *arg)
{
    (void)arg;
    const char *first;
    unsigned lost = shoal_outfile_lost_count(&first);
    if (exit_status != 0 || lost == 0 || shoal_env.output_lost_status == 0)
        return;
    char others[48] = "";
    if (lost > 1)
        snprintf(others, sizeof(others), " and %u other file(s)", lost - 1);
    SHOAL_ERROR("exit: %s%s could not be written completely (each failure is logged above); "
                "exiting with status %u instead of 0, as SHOAL_OUTPUT_LOST_STATUS says",
                first, others, shoal_env.output_lost_status);
    fflush(NULL);
    _exit((int)shoal_env.output_lost_status);
}

__attribute__((constructor)) static void register_output_lost_exit(void)
{
    on_exit(output_lost_exit, NULL);
}

static shoal_status_t bootstrap_once(void)
{
    static int exit_handler_registered;
    if (shoal.bs.ops != NULL)
        return SHOAL_OK;
    shoal_status_t status = shoal_bootstrap_init(&shoal.bs);
    if (status != SHOAL_OK)
        return status;
    if (!exit_handler_registered) {
        on_exit(exit_handler, NULL);
        exit_handler_registered = 1;
    }
    return SHOAL_OK;
}

static shoal_status_t create_segments(void)
{
    shoal_status_t status;
    shoal.internal_size = shoal_internal_size(shoal_env.teams_max) + shoal_flight_bytes();
    size_t heap_size = shoal.internal_size + shoal_env.symmetric_size;
    heap_size = (heap_size + 4095) & ~(size_t)4095;
    status = shoal_segment_create("shoal-heap", heap_size, SHOAL_HEAP_SEGMENT_ALIGN,
                                  &shoal.segs[SHOAL_ROUTE_HEAP]);
    if (status != SHOAL_OK)
        return status;
    if (shoal_env.symmetric_globals &&
        shoal_segment_globals(&shoal.segs[SHOAL_ROUTE_GLOBALS]) != SHOAL_OK)
        shoal.segs[SHOAL_ROUTE_GLOBALS] = (shoal_segment_t){NULL, 0, -1};
    return SHOAL_OK;
}

static void print_banner(void)
{
    if (SHOAL_MY_PE != 0)
        return;
    if (shoal_env.version || shoal_env.info)
        printf("Shoal %s (OpenSHMEM %d.%d), %d PEs, bootstrap %s\n", SHMEM_VENDOR_STRING,
               SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, shoal.bs.npes, shoal.bs.ops->name);
    if (shoal_env.info) {
        printf("Shoal settings:\n");
        shoal_env_print(stdout, &shoal_env, 0);
    }
    fflush(stdout);
}

/* Where shmem_init spent its time, at info level on PE 0 (the others at
 * debug: a thousand copies of one line help nobody). */
static void log_init_times(const double t[5])
{
    const char *fmt = "shmem_init took %.1f ms: bootstrap %.1f ms, segment exchange %.1f ms, "
                      "network wire-up %.1f ms, final barrier %.1f ms (%d PEs, %d on this host)";
    if (shoal.bs.rank == 0)
        SHOAL_INFO(fmt, t[4] - t[0], t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3],
                   shoal.bs.npes, shoal.bs.local_npes);
    else
        SHOAL_DEBUG(fmt, t[4] - t[0], t[1] - t[0], t[2] - t[1], t[3] - t[2], t[4] - t[3],
                    shoal.bs.npes, shoal.bs.local_npes);
}

static char init_failure[160];

const char *shoal_init_failure(void)
{
    return init_failure[0] != '\0' ? init_failure : "no failure recorded";
}

shoal_status_t shoal_init(int requested_thread_level)
{
    shoal_status_t status;
    const char *step = "reading the settings";
    double t[5]; /* start, bootstrap, segments, network, barrier done */
    pthread_mutex_lock(&shoal.lock);
    if (shoal.initialized) {
        shoal.init_count++; /* nested: the library stays up until the last finalize */
        if (requested_thread_level > shoal.thread_level)
            SHOAL_DEBUG("a nested init asked for thread level %d; staying at %d",
                        requested_thread_level, shoal.thread_level);
        pthread_mutex_unlock(&shoal.lock);
        return SHOAL_OK;
    }
    if (shoal_env_load(&shoal_env) != SHOAL_OK) {
        status = SHOAL_ERR_INVALID;
        goto out;
    }
    if (shoal_init_overrides.symmetric_size != 0)
        shoal_env.symmetric_size = shoal_init_overrides.symmetric_size;
    shoal_log_level = shoal_env.debug ? SHOAL_LOG_DEBUG : (int)shoal_env.log_level;
    shoal_check_on = shoal_env.check || shoal_env.debug;
    shoal_log_configure(shoal_env.debug_subsys, shoal_env.log_file);
    prctl(PR_SET_TIMERSLACK, 1000UL); /* short sleeps in waits should be short */

    t[0] = shoal_clock_ms();
    step = "starting the bootstrap (finding the job's other PEs)";
    status = bootstrap_once();
    if (status != SHOAL_OK)
        goto out;
    t[1] = shoal_clock_ms();
    shoal_log_set_pe(shoal.bs.rank);
    if (shoal.bs.rank == 0)
        shoal_env_warn_typos(); /* once per job */
    shoal.generation++;

    step = "creating the symmetric heap";
    status = create_segments();
    if (status != SHOAL_OK)
        goto out;
    step = "allocating the route table";
    status = shoal_route_create(&shoal.route, shoal.bs.npes, shoal.bs.rank);
    shoal.node = calloc((size_t)shoal.bs.npes, sizeof(*shoal.node));
    if (status != SHOAL_OK || shoal.node == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out_route;
    }
    const shoal_segment_t *heap = &shoal.segs[SHOAL_ROUTE_HEAP];
    const shoal_segment_t *data = &shoal.segs[SHOAL_ROUTE_GLOBALS];
    shoal_route_set_row(&shoal.route, SHOAL_ROUTE_HEAP, heap->base, heap->size, SHOAL_MEM_HOST);
    shoal_route_set_row(&shoal.route, SHOAL_ROUTE_GLOBALS, data->base, data->size, SHOAL_MEM_HOST);
    step = "exchanging segments with the PEs of this host";
    status = shoal_shm_connect(&shoal.bs, shoal.generation, shoal.segs, &shoal.route, shoal.node);
    if (status != SHOAL_OK)
        goto out_route;
    shoal_backoff_policy_init();
    t[2] = shoal_clock_ms();

    shoal.internal = (shoal_internal_t *)heap->base;
    step = "setting up the heap allocator";
    status = shoal_heap_init(&shoal.heap, heap->base + shoal.internal_size,
                             heap->size - shoal.internal_size);
    if (status != SHOAL_OK)
        goto out_mappings;
    shoal.alloc_calls = 0;
    shoal.thread_level = requested_thread_level > SHMEM_THREAD_MULTIPLE ? SHMEM_THREAD_MULTIPLE
                                                                        : requested_thread_level;

    step = "opening the network transport";
    status = shoal_net_open(&shoal.bs, shoal.generation, &shoal.route, shoal.node);
    if (status != SHOAL_OK)
        goto out_heap;
    t[3] = shoal_clock_ms();
    SHOAL_NPES = shoal.bs.npes;
    shoal_teams_init();
    step = "the final bootstrap barrier";
    shoal_net_idle();
    status = shoal_bootstrap_barrier(&shoal.bs);
    if (status != SHOAL_OK) {
        SHOAL_NPES = 0;
        shoal_net_close(&shoal.route);
        goto out_heap;
    }
    t[4] = shoal_clock_ms();
    log_init_times(t);
    /* From here on the data path is open. */
    shoal.initialized = 1;
    shoal.init_count = 1;
    shoal.finalized = 0;
    shoal_trace_init();
    /* Open the inline lookups' table. Tracing and check mode want every RMA,
     * AMO and signal on the routed path (core/rma_route.c, amo_route.c and
     * signal_route.c record and check them there), so for them it maps
     * nothing and every inline lookup misses. */
    shoal.route_fast = shoal.route;
    if (shoal_trace_on || shoal_check_on || shoal_flight_bytes() != 0)
        shoal.route_fast.npes = 0;
    shoal_hang_start();
    shoal_fault_install();
    shoal_bootstrap_notify(&shoal.bs, SHOAL_BOOTSTRAP_EVENT_INITIALIZED);
    print_banner();
    pthread_mutex_unlock(&shoal.lock);
    return SHOAL_OK;

out_heap:
    shoal_heap_finalize(&shoal.heap);
out_mappings:
    shoal_shm_disconnect(&shoal.bs, &shoal.route);
out_route:
    shoal_route_destroy(&shoal.route);
    free(shoal.node);
    shoal.node = NULL;
    shoal_segment_destroy(&shoal.segs[SHOAL_ROUTE_HEAP]);
out:
    snprintf(init_failure, sizeof(init_failure), "%s failed: %s", step, shoal_status_str(status));
    pthread_mutex_unlock(&shoal.lock);
    return status;
}

void shoal_finalize(void)
{
    pthread_mutex_lock(&shoal.lock);
    if (!shoal.initialized || --shoal.init_count > 0) {
        pthread_mutex_unlock(&shoal.lock);
        return;
    }
    shoal_quiet("shmem_finalize");
    /* Check mode compares finalize like a collective: a PE that finalizes
     * while the others are in a barrier (or one with a barrier more) is
     * named now instead of hanging. */
    shoal_check_coll("shmem_finalize", &shoal_team_world.set, shoal_team_psync(&shoal_team_world),
                     -1, 0, 0);
    shoal_device_view_quiesce(); /* what kernels asked of the device proxy */
    shoal_trace_finalize();      /* collective: writes the trace and the profile */
    /* The bootstrap barrier, not the shared-memory one: a PE finalizing
     * implicitly at exit must never be mistaken for a peer's shmem_barrier_all. */
    shoal_hang_simple(SHOAL_HANG_FINALIZE, "shmem_finalize");
    shoal_net_idle();
    shoal_bootstrap_barrier(&shoal.bs);
    if (shoal_check_on)
        shoal_check_heap_finalize("shmem_finalize");
    shoal_hang_leave();
    __atomic_store_n(&shoal.internal->hang.finalizing, 1, __ATOMIC_RELAXED);
    shoal_hang_stop(); /* before the records go with the heap */
    shoal.initialized = 0;
    shoal.finalized = 1;
    SHOAL_NPES = 0; /* closes the data path */
    shoal_teams_finalize();
    shoal_lock_finalize();
    shoal_fault_uninstall();
    shoal_hosts_finalize();
    shoal_device_view_stop_proxy(); /* it issues network operations */
    shoal_net_close(&shoal.route);
    /* Before the host segments' peers are unmapped: the device row's views
     * are GPU mappings, not mmaps. */
    const shoal_device_job_t job = {
        .bs = &shoal.bs, .rt = &shoal.route, .node = shoal.node, .generation = shoal.generation};
    shoal_device_view_destroy();
    shoal_device_finalize(&job);
    shoal_heap_finalize(&shoal.heap);
    shoal_shm_disconnect(&shoal.bs, &shoal.route);
    shoal_alloc_finalize(); /* the heap's later segments, now that no peer maps them */
    shoal_route_destroy(&shoal.route);
    free(shoal.node);
    shoal.node = NULL;
    shoal.internal = NULL;
    shoal_segment_destroy(&shoal.segs[SHOAL_ROUTE_HEAP]);
    /* The globals segment stays: the program's variables live in it. */
    shoal_bootstrap_notify(&shoal.bs, SHOAL_BOOTSTRAP_EVENT_FINALIZED);
    pthread_mutex_unlock(&shoal.lock);
}

void shoal_global_exit(int status)
{
    fflush(NULL);
    if (shoal.bs.ops != NULL)
        shoal.bs.ops->abort(&shoal.bs, status, NULL);
    _exit(status);
}
