/*
 * PE 0's merge of the per-PE trace files into trace.json (Chrome trace-event
 * format; core/trace.c says what the files hold): one track per PE, one "X"
 * event per call, flow arrows from each signal update to the wait it
 * released.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace_internal.h"
#include "mem/route.h"
#include "util/log.h"
#include "util/outfile.h"

/* ---- PE 0's merge ---- */

typedef struct {
    trace_event_t e;
    int pe;
    int matched;
    char fn[96];
    char sym[128]; /* a global's symbol+offset, or "" */
    char team[32]; /* a collective's team, or "" */
} merged_t;

static int cmp_signal(const void *a, const void *b)
{
    const merged_t *x = *(merged_t *const *)a, *y = *(merged_t *const *)b;
    if (x->e.peer != y->e.peer)
        return x->e.peer < y->e.peer ? -1 : 1;
    if (x->e.addr != y->e.addr)
        return x->e.addr < y->e.addr ? -1 : 1;
    return x->e.t0 < y->e.t0 ? -1 : x->e.t0 > y->e.t0;
}

static int cmp_t1(const void *a, const void *b)
{
    const merged_t *x = *(merged_t *const *)a, *y = *(merged_t *const *)b;
    return x->e.t1 < y->e.t1 ? -1 : x->e.t1 > y->e.t1;
}

/* Reads every PE's file; returns the records (count in *n_p) and each PE's
 * dropped count in dropped[]. */
/* A PE's clock against PE 0's, from the first line of its file. */
typedef struct {
    int64_t offset;
    uint64_t rtt;
} pe_clock_t;

static merged_t *read_all(size_t *n_p, uint64_t *dropped, pe_clock_t *clock)
{
    merged_t *all = NULL;
    size_t n = 0, cap = 0;
    char path[4096], line[512];
    for (int pe = 0; pe < shoal_tr.npes; pe++) {
        shoal_trace_pe_file(path, sizeof(path), pe);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            SHOAL_WARN("shmem_finalize: SHOAL_TRACE: cannot read PE %d's %s: %m; its track "
                       "is left out of trace.json",
                       pe, path);
            continue;
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            uint64_t d;
            if (sscanf(line, "{\"clock_offset_ns\":%" SCNd64 ",\"clock_rtt_ns\":%" SCNu64,
                       &clock[pe].offset, &clock[pe].rtt) == 2)
                continue; /* the first line: later records are moved onto PE 0's clock */
            if (sscanf(line, "{\"dropped\":%" SCNu64, &d) == 1) {
                dropped[pe] = d;
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 4096;
                merged_t *grown = realloc(all, cap * sizeof(*all));
                if (grown == NULL)
                    break;
                all = grown;
            }
            merged_t *m = &all[n];
            unsigned fam, tid;
            if (sscanf(line,
                       "{\"fn\":\"%95[^\"]\",\"family\":%u,\"tid\":%u,\"t0\":%" SCNu64
                       ",\"t1\":%" SCNu64 ",\"peer\":%d,\"bytes\":%" SCNu64 ",\"addr\":%" SCNu64,
                       m->fn, &fam, &tid, &m->e.t0, &m->e.t1, &m->e.peer, &m->e.bytes,
                       &m->e.addr) != 8)
                continue;
            /* Optional fields past "addr" (core/trace.c's write_buf). */
            const char *extra;
            m->sym[0] = m->team[0] = '\0';
            m->e.team_npes = 0;
            if ((extra = strstr(line, ",\"team\":\"")) != NULL)
                sscanf(extra, ",\"team\":\"%31[^\"]\",\"team_npes\":%d", m->team, &m->e.team_npes);
            if ((extra = strstr(line, ",\"sym\":\"")) != NULL)
                sscanf(extra, ",\"sym\":\"%127[^\"]", m->sym);
            m->e.t0 += (uint64_t)clock[pe].offset;
            m->e.t1 += (uint64_t)clock[pe].offset;
            m->e.family = (uint16_t)fam;
            m->e.tid = (uint16_t)tid;
            m->pe = pe;
            m->matched = 0;
            n++;
        }
        fclose(f);
    }
    *n_p = n;
    return all;
}

/* Chrome trace-event time: microseconds from `base`, to the nanosecond. */
static void put_ts(shoal_outfile_t *f, const char *key, uint64_t t, uint64_t base)
{
    uint64_t d = t - base;
    shoal_outfile_printf(f, "\"%s\":%" PRIu64 ".%03" PRIu64, key, d / 1000, d % 1000);
}

/* Flow arrows: each wait on (PE b, address s) is joined to the latest
 * signal update to (b, s) that began before the wait ended and that no
 * earlier wait took. Best effort: a signal that two waits both saw
 * releases only the first of them. */
static size_t write_flows(shoal_outfile_t *f, merged_t *all, size_t n, uint64_t base)
{
    size_t nsig = 0, nwait = 0, flows = 0;
    merged_t **sig = malloc((n + 1) * sizeof(*sig));
    merged_t **wait = malloc((n + 1) * sizeof(*wait));
    if (sig == NULL || wait == NULL)
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (all[i].e.family == SHOAL_TRACE_SIGNAL && all[i].e.addr != 0)
            sig[nsig++] = &all[i];
        else if (all[i].e.family == SHOAL_TRACE_WAIT && all[i].e.addr != 0)
            wait[nwait++] = &all[i];
    }
    qsort(sig, nsig, sizeof(*sig), cmp_signal);
    qsort(wait, nwait, sizeof(*wait), cmp_t1);
    for (size_t w = 0; w < nwait; w++) {
        const merged_t *wt = wait[w];
        /* The first signal of the key (PE, address), by binary search. */
        size_t lo = 0, hi = nsig;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            const merged_t *s = sig[mid];
            if (s->e.peer < wt->pe || (s->e.peer == wt->pe && s->e.addr < wt->e.addr))
                lo = mid + 1;
            else
                hi = mid;
        }
        merged_t *best = NULL;
        for (size_t i = lo; i < nsig && sig[i]->e.peer == wt->pe && sig[i]->e.addr == wt->e.addr;
             i++) {
            if (sig[i]->e.t0 > wt->e.t1)
                break;
            if (!sig[i]->matched)
                best = sig[i];
        }
        if (best == NULL)
            continue;
        best->matched = 1;
        flows++;
        uint64_t from = best->e.t0 + (best->e.t1 - best->e.t0) / 2;
        uint64_t to = wt->e.t1 > wt->e.t0 ? wt->e.t1 - 1 : wt->e.t0;
        shoal_outfile_printf(
            f, ",\n{\"name\":\"signal\",\"cat\":\"signal\",\"ph\":\"s\",\"id\":%zu,", flows);
        put_ts(f, "ts", from, base);
        shoal_outfile_printf(f, ",\"pid\":%d,\"tid\":%u}", best->pe, best->e.tid);
        shoal_outfile_printf(
            f, ",\n{\"name\":\"signal\",\"cat\":\"signal\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,",
            flows);
        put_ts(f, "ts", to, base);
        shoal_outfile_printf(f, ",\"pid\":%d,\"tid\":%u}", wt->pe, wt->e.tid);
    }
out:
    free(sig);
    free(wait);
    return flows;
}

void shoal_trace_merge(void)
{
    uint64_t *dropped = calloc((size_t)shoal_tr.npes, sizeof(uint64_t));
    size_t n = 0;
    pe_clock_t *clock = calloc((size_t)shoal_tr.npes, sizeof(*clock));
    merged_t *all = dropped && clock ? read_all(&n, dropped, clock) : NULL;
    char path[4096];
    snprintf(path, sizeof(path), "%s/trace.json", shoal_tr.dir);
    shoal_outfile_t out, *f = &out;
    if (shoal_outfile_open(f, "shmem_finalize", "SHOAL_TRACE", path, "w", &shoal_tr.merge_lost) !=
        SHOAL_OK)
        goto out;
    uint64_t base = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (all[i].e.t0 < base)
            base = all[i].e.t0;
    if (base == UINT64_MAX)
        base = shoal_tr.t_init;
    shoal_outfile_printf(
        f,
        "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"clock\":\"CLOCK_REALTIME\","
        "\"base_ns\":%" PRIu64 ",\"dropped\":[",
        base);
    for (int pe = 0; pe < shoal_tr.npes; pe++)
        shoal_outfile_printf(f, "%s%" PRIu64, pe ? "," : "", dropped ? dropped[pe] : 0);
    /* Each PE's clock offset to PE 0's, added to its times (core/trace_clock.c). */
    shoal_outfile_printf(f, "],\"clock_offset_ns\":[");
    for (int pe = 0; pe < shoal_tr.npes; pe++)
        shoal_outfile_printf(f, "%s%" PRId64, pe ? "," : "", clock ? clock[pe].offset : 0);
    shoal_outfile_printf(f, "],\"clock_rtt_ns\":[");
    for (int pe = 0; pe < shoal_tr.npes; pe++)
        shoal_outfile_printf(f, "%s%" PRIu64, pe ? "," : "", clock ? clock[pe].rtt : 0);
    shoal_outfile_printf(f, "]},\n\"traceEvents\":[");
    for (int pe = 0; pe < shoal_tr.npes; pe++)
        shoal_outfile_printf(
            f,
            "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
            "\"PE %d\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            pe ? "," : "", pe, pe, pe, pe);
    for (size_t i = 0; i < n; i++) {
        const merged_t *m = &all[i];
        shoal_outfile_printf(
            f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",", m->fn,
            shoal_trace_family_name[m->e.family < SHOAL_TRACE_NFAMILIES ? m->e.family : 0]);
        put_ts(f, "ts", m->e.t0, base);
        shoal_outfile_printf(
            f, ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"pid\":%d,\"tid\":%u,\"args\":{",
            (m->e.t1 - m->e.t0) / 1000, (m->e.t1 - m->e.t0) % 1000, m->pe, m->e.tid);
        shoal_outfile_printf(f, "\"peer\":%d,\"bytes\":%" PRIu64, m->e.peer, m->e.bytes);
        if (m->team[0] != '\0')
            shoal_outfile_printf(f, ",\"team\":\"%s\",\"team_npes\":%d", m->team, m->e.team_npes);
        if (m->sym[0] != '\0')
            shoal_outfile_printf(f, ",\"addr\":\"%s\"", m->sym);
        else if (m->e.addr != 0) {
            unsigned row = (unsigned)(m->e.addr >> 48) - 1;
            shoal_outfile_printf(f, ",\"addr\":\"%s+0x%" PRIx64 "\"",
                                 row == SHOAL_ROUTE_HEAP      ? "heap"
                                 : row == SHOAL_ROUTE_GLOBALS ? "globals"
                                                              : "row",
                                 m->e.addr & (((uint64_t)1 << 48) - 1));
        }
        shoal_outfile_printf(f, "}}");
    }
    size_t flows = write_flows(f, all, n, base);
    shoal_outfile_printf(f, "\n]}\n");
    if (shoal_outfile_close(f) == SHOAL_OK)
        SHOAL_INFO("trace: %zu events and %zu flows from %d PEs in %s", n, flows, shoal_tr.npes,
                   path);
out:
    free(all);
    free(dropped);
    free(clock);
}
