/*
 * The trace's clock offsets between hosts. Every PE of one host reads the
 * same CLOCK_REALTIME, but two hosts' clocks differ by whatever NTP left
 * (often tens of microseconds, sometimes milliseconds: more than a put
 * takes), so their tracks would not line up. At shmem_init, with tracing
 * on and the job on more than one host, each host's leader measures its
 * clock against PE 0's with a few round trips over the bootstrap store
 * (Cristian's method: PE 0's time is taken to fall in the middle of the
 * round trip; the round trip with the least time gives the tightest
 * estimate, within half of it). The leader shares the offset with its
 * host's PEs, each PE writes it to its trace file, and the merge adds it
 * to the PE's times.
 *
 * Only over the bootstraps whose fence is a no-op and whose gets wait for
 * the value (shoalrun's and the config store): there a request and its
 * answer are a put and a get. Under PMIx a fence is collective, so no
 * offset is measured (the merge then trusts the clocks as they are).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "core/host_layout.h"
#include "core/state.h"
#include "core/team.h"
#include "core/trace_internal.h"
#include "util/log.h"

/* Round trips per host leader; the one with the least time counts. */
#define CLOCK_ROUNDS 8

static int bootstrap_answers_gets(void)
{
    const char *name = shoal.bs.ops->name;
    return strcmp(name, "launcher") == 0 || strcmp(name, "store") == 0;
}

static shoal_status_t put_u64(const char *key, uint64_t v)
{
    shoal_status_t status = shoal_bootstrap_put(&shoal.bs, key, &v, sizeof(v));
    return status == SHOAL_OK ? shoal_bootstrap_fence(&shoal.bs) : status;
}

static shoal_status_t get_u64(int pe, const char *key, uint64_t *v)
{
    size_t got = 0;
    shoal_status_t status = shoal_bootstrap_get(&shoal.bs, pe, key, v, sizeof(*v), &got);
    return status == SHOAL_OK && got != sizeof(*v) ? SHOAL_ERR_TRUNCATED : status;
}

/* PE 0: answers each other host leader's requests with its time. */
static shoal_status_t serve(const shoal_hosts_t *h, unsigned gen)
{
    shoal_status_t status = SHOAL_OK;
    char key[64];
    for (int i = 0; i < h->nhosts && status == SHOAL_OK; i++) {
        const int leader = shoal_peset_world(&shoal_team_world.set, h->leaders[i]);
        if (leader == 0)
            continue;
        for (int k = 0; k < CLOCK_ROUNDS && status == SHOAL_OK; k++) {
            uint64_t ignored;
            snprintf(key, sizeof(key), "trace.clock.%u.ask.%d", gen, k);
            status = get_u64(leader, key, &ignored);
            snprintf(key, sizeof(key), "trace.clock.%u.to%d.%d", gen, leader, k);
            if (status == SHOAL_OK)
                status = put_u64(key, shoal_trace_now());
        }
    }
    return status;
}

/* A host leader other than PE 0: its offset to PE 0's clock. */
static shoal_status_t measure(unsigned gen, int64_t *offset_p, uint64_t *rtt_p)
{
    char key[64];
    uint64_t best_rtt = UINT64_MAX;
    int64_t best = 0;
    for (int k = 0; k < CLOCK_ROUNDS; k++) {
        const uint64_t sent = shoal_trace_now();
        uint64_t theirs = 0;
        snprintf(key, sizeof(key), "trace.clock.%u.ask.%d", gen, k);
        shoal_status_t status = put_u64(key, sent);
        snprintf(key, sizeof(key), "trace.clock.%u.to%d.%d", gen, SHOAL_MY_PE, k);
        if (status == SHOAL_OK)
            status = get_u64(0, key, &theirs);
        const uint64_t back = shoal_trace_now();
        if (status != SHOAL_OK)
            return status;
        if (back - sent < best_rtt) {
            best_rtt = back - sent;
            best = (int64_t)(theirs - (sent + (back - sent) / 2));
        }
    }
    *offset_p = best;
    *rtt_p = best_rtt;
    return SHOAL_OK;
}

void shoal_trace_clock_sync(void)
{
    shoal_tr.clock_offset_ns = 0;
    shoal_tr.clock_rtt_ns = 0;
    const shoal_hosts_t *h = shoal_hosts_of("shmem_init", &shoal_team_world.set);
    if (h == NULL || h->nhosts < 2 || !bootstrap_answers_gets())
        return;
    static unsigned gen; /* keys differ between inits of one process */
    gen++;
    char key[64];
    const int leader = shoal_peset_world(&shoal_team_world.set, h->leader);
    const int pe0_host = shoal_same_host(SHOAL_MY_PE, 0);
    shoal_status_t status = SHOAL_OK;
    uint64_t v[2] = {0, 0};
    snprintf(key, sizeof(key), "trace.clock.%u.host", gen);
    if (SHOAL_MY_PE == 0) {
        status = serve(h, gen);
    } else if (SHOAL_MY_PE == leader && !pe0_host) {
        int64_t off = 0;
        status = measure(gen, &off, &v[1]);
        v[0] = (uint64_t)off;
        if (status == SHOAL_OK)
            status = shoal_bootstrap_put(&shoal.bs, key, v, sizeof(v));
        if (status == SHOAL_OK)
            status = shoal_bootstrap_fence(&shoal.bs);
    } else if (!pe0_host) {
        size_t got = 0;
        status = shoal_bootstrap_get(&shoal.bs, leader, key, v, sizeof(v), &got);
        if (status == SHOAL_OK && got != sizeof(v))
            status = SHOAL_ERR_TRUNCATED;
    }
    if (status != SHOAL_OK) {
        SHOAL_WARN("shmem_init: SHOAL_TRACE: measuring this host's clock against PE 0's failed "
                   "(%s); its times are merged as they are",
                   shoal_status_str(status));
        return;
    }
    shoal_tr.clock_offset_ns = (int64_t)v[0];
    shoal_tr.clock_rtt_ns = v[1];
}
