/*
 * The slow part of waiting (yield, then sleep with a growing step) and the
 * wait policy: how long a wait spins before it yields, decided at start-up
 * from where this host's PEs may run, and the check that makes a wait yield
 * at once when another PE of the job waited on the same CPU.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/backoff.h"
#include "core/hang.h"
#include "core/state.h"
#include "transport/shm/shm.h"
#include "util/clock.h"
#include "util/env.h"
#include "util/log.h"

/* Set by shmem_init (shoal_backoff_policy_init). */
uint32_t shoal_wait_spin;

/* The other PEs of this host whose CPU a spinning wait compares with its
 * own (only while spinning is on and the host has few enough of them). */
#define SHARE_PEERS_MAX 64
static int share_peer[SHARE_PEERS_MAX];
static int share_npeers;

/* CPUs the cgroup's quota (cgroup v2 cpu.max, the tightest along the path)
 * lets this process use at once, rounded up; 0 when there is no quota. */
static int cgroup_quota_cpus(void)
{
    char line[512], path[640];
    int cpus = 0;
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "0::", 3) == 0)
            break;
    fclose(f);
    if (strncmp(line, "0::", 3) != 0)
        return 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *dir = line + 3;;) {
        snprintf(path, sizeof(path), "/sys/fs/cgroup%s/cpu.max", strcmp(dir, "/") ? dir : "");
        FILE *m = fopen(path, "r");
        long long quota, period;
        if (m != NULL) {
            if (fscanf(m, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0) {
                int n = (int)((quota + period - 1) / period);
                if (cpus == 0 || n < cpus)
                    cpus = n;
            }
            fclose(m);
        }
        char *slash = strrchr(dir, '/');
        if (slash == NULL || slash == dir)
            break;
        *slash = '\0';
    }
    return cpus;
}

/* CPUs the PEs of this host can use together: the union of their affinity
 * masks, capped by the cgroup's quota. One PE's own mask is not the answer:
 * PEs bound one per core (shoalrun, mpirun) each see a single CPU. */
static int host_cpus(int nlocal)
{
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof(all), &all) != 0)
        return 1;
    /* A peer's mask is read only when this PE's alone is too small: PEs
     * that are not bound learn nothing from it. */
    for (int pe = 0; pe < shoal.bs.npes && CPU_COUNT(&all) < nlocal; pe++) {
        int pid = shoal_shm_local_pid(pe);
        if (pid > 0 && sched_getaffinity(pid, sizeof(one), &one) == 0)
            CPU_OR(&all, &all, &one);
    }
    int cpus = CPU_COUNT(&all), quota = cgroup_quota_cpus();
    return quota > 0 && quota < cpus ? quota : cpus;
}

void shoal_backoff_policy_init(void)
{
    int nlocal = 0;
    for (int pe = 0; pe < shoal.bs.npes; pe++)
        nlocal += shoal_pe_on_host(pe);
    shoal_wait_spin = shoal_env.wait_spin;
    share_npeers = 0;
    if (shoal_env.set.wait_spin)
        return; /* the user's choice, as it is */
    int cpus = host_cpus(nlocal);
    if (nlocal > cpus) {
        shoal_wait_spin = 0;
        SHOAL_DEBUG("%d PEs of this host share %d CPUs: waits yield without spinning", nlocal,
                    cpus);
        return;
    }
    SHOAL_DEBUG("%d PEs of this host, %d CPUs for them: waits spin %u polls, unless another PE "
                "waited on the same CPU",
                nlocal, cpus, shoal_wait_spin);
    if (nlocal - 1 > SHARE_PEERS_MAX)
        return;
    for (int pe = 0; pe < shoal.bs.npes; pe++)
        if (pe != shoal.bs.rank && shoal_pe_on_host(pe))
            share_peer[share_npeers++] = pe;
}

/* A wait that has spun SHOAL_BACKOFF_SHARE_POLL polls: when another PE of
 * this host last waited on the CPU this one runs on, both are likely queued
 * on it (the scheduler placed unbound PEs together), and spinning only
 * delays the PE that would end the wait: yield from now on. */
void shoal_backoff_share_check(shoal_backoff_t *b)
{
    if (share_npeers == 0 || shoal.internal == NULL)
        return;
    int cpu = sched_getcpu();
    if (cpu < 0)
        return;
    uint32_t mine = (uint32_t)cpu + 1;
    __atomic_store_n(&shoal.internal->wait_cpu, mine, __ATOMIC_RELAXED);
    for (int i = 0; i < share_npeers; i++) {
        uintptr_t base = shoal_route_peer_base(&shoal.route, share_peer[i], SHOAL_ROUTE_HEAP);
        if (base == 0)
            continue; /* never reached: not what this PE waits for */
        const shoal_internal_t *peer = (const shoal_internal_t *)base;
        if (__atomic_load_n(&peer->wait_cpu, __ATOMIC_RELAXED) == mine) {
            static int said;
            if (!said) {
                said = 1;
                SHOAL_DEBUG("PE %d waited on CPU %d too: this wait yields at once (and so does "
                            "each later one that finds a PE of this host on its CPU)",
                            share_peer[i], cpu);
            }
            b->polls = shoal_wait_spin;
            return;
        }
    }
}

/* Waits serve other hosts' operations on this PE themselves: what this PE
 * waits for often depends on them, and the transport's progress thread
 * would need a CPU of its own to answer as fast. */
void shoal_backoff_net(void)
{
    shoal_transport_progress(shoal_net);
}

void shoal_backoff_slow(shoal_backoff_t *b)
{
    /* A PE that serves other hosts keeps polling (yielding) rather than
     * sleeping: waking from a sleep adds ~20 us to each of their requests. */
    if (shoal_net != NULL && shoal_transport_progress(shoal_net) != 0)
        b->yield_start_ns = b->sleep_ns = 0;
    if (b->yield_start_ns == 0) {
        b->yield_start_ns = shoal_clock_ns();
        if (b->what != NULL && !b->recorded) { /* from now on a hang report shows it */
            shoal_hang_enter(b->what, b->yield_start_ns);
            b->recorded = 1;
        }
    }
    if (b->sleep_ns == 0) {
        if ((b->polls & 63) != 0 ||
            shoal_clock_ns() - b->yield_start_ns < (uint64_t)shoal_env.wait_yield_us * 1000u) {
            sched_yield();
            return;
        }
        b->sleep_ns = 1000;
    }
    if (shoal_net != NULL) {
        /* Woken early by the network; after serving a request, poll again. */
        if (shoal_transport_sleep(shoal_net, b->sleep_ns) != 0) {
            b->yield_start_ns = shoal_clock_ns();
            b->sleep_ns = 0;
            return;
        }
    } else {
        struct timespec ts = {(time_t)(b->sleep_ns / 1000000000u),
                              (long)(b->sleep_ns % 1000000000u)};
        nanosleep(&ts, NULL);
    }
    b->sleep_ns = shoal_sleep_next(b->sleep_ns, shoal_clock_ns() - b->yield_start_ns,
                                   shoal_env.wait_sleep_us * 1000u, !shoal_env.set.wait_sleep_us);
}
