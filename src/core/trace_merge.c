/*
 * The merge of the per-PE trace files into trace.json (Chrome trace-event
 * format; core/trace_merge.h says who calls it): one track per PE, one "X"
 * event per call, flow arrows from each signal update to the wait it
 * released, globals named by the program's symbol table.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "core/trace_merge.h"
#include "mem/route.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/symbol.h"

static const char *const family_str[SHOAL_TRACE_NFAMILIES] = {
#define SHOAL_TRACE_FAMILY_STR(id, name) name,
    SHOAL_TRACE_FAMILIES(SHOAL_TRACE_FAMILY_STR)
#undef SHOAL_TRACE_FAMILY_STR
};

const char *shoal_trace_family_str(unsigned family)
{
    return family < SHOAL_TRACE_NFAMILIES ? family_str[family] : "?";
}

/* ---- reading ---- */

static void pe_path(char *path, size_t len, const char *dir, int pe)
{
    snprintf(path, len, "%s/trace.%d.jsonl", dir, pe);
}

/* The job's size when the caller does not know it: the first line of the
 * first file that has one, else the highest trace.<pe>.jsonl + 1. */
static int count_pes(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int top = -1, said = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pe, len = 0;
        if (sscanf(e->d_name, "trace.%d.jsonl%n", &pe, &len) != 1 || e->d_name[len] != '\0' ||
            pe < 0)
            continue;
        if (pe > top)
            top = pe;
        char path[4096], line[256];
        pe_path(path, sizeof(path), dir, pe);
        FILE *f = said ? NULL : fopen(path, "r");
        if (f != NULL) {
            int p, n;
            if (fgets(line, sizeof(line), f) != NULL &&
                sscanf(line, "{\"pe\":%d,\"npes\":%d", &p, &n) == 2 && n > 0)
                said = n;
            fclose(f);
        }
    }
    closedir(d);
    return said > top ? said : top + 1;
}

/* This PE's clock against PE 0's (core/trace_clock.c), from its first
 * line: the merge adds the offset to every later time of the file. */
static void read_clock(shoal_trace_set_t *set, int pe, const char *line)
{
    const char *c = strstr(line, "\"clock_offset_ns\":");
    if (c == NULL || sscanf(c, "\"clock_offset_ns\":%" SCNd64 ",\"clock_rtt_ns\":%" SCNu64,
                            &set->clock_offset[pe], &set->clock_rtt[pe]) != 2)
        set->clock_offset[pe] = 0, set->clock_rtt[pe] = 0;
}

/* The first line's program and globals row; its exe string is JSON with
 * only \" and \\ escaped. */
static void read_header(shoal_trace_set_t *set, int pe, const char *line)
{
    read_clock(set, pe, line);
    const char *p = strstr(line, "\"exe\":\"");
    if (p == NULL || set->exe[0] != '\0')
        return;
    size_t n = 0;
    for (p += 7; *p && *p != '"' && n + 1 < sizeof(set->exe); p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        set->exe[n++] = *p;
    }
    set->exe[n] = '\0';
    const char *g = strstr(p, "\"globals_vaddr\":");
    if (g == NULL || sscanf(g, "\"globals_vaddr\":%" SCNu64 ",\"globals_size\":%" SCNu64,
                            &set->globals_vaddr, &set->globals_size) != 2)
        set->globals_vaddr = set->globals_size = 0;
}

static int read_pe(shoal_trace_set_t *set, const char *dir, int pe, size_t *cap)
{
    char path[4096], line[8192]; /* the header holds a path */
    pe_path(path, sizeof(path), dir, pe);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        uint64_t d;
        if (sscanf(line, "{\"dropped\":%" SCNu64, &d) == 1) {
            set->dropped[pe] = d;
            set->complete[pe] = 1;
            continue;
        }
        if (strncmp(line, "{\"pe\":", 6) == 0) {
            read_header(set, pe, line);
            continue;
        }
        if (strncmp(line, "{\"clock_offset_ns\":", 19) == 0) { /* a clock line of its own */
            read_clock(set, pe, line);
            continue;
        }
        if (set->n == *cap) {
            size_t grown_cap = *cap ? 2 * *cap : 4096;
            shoal_trace_rec_t *grown = realloc(set->rec, grown_cap * sizeof(*grown));
            if (grown == NULL)
                break;
            set->rec = grown;
            *cap = grown_cap;
        }
        shoal_trace_rec_t *m = &set->rec[set->n];
        unsigned fam, tid;
        if (sscanf(line,
                   "{\"fn\":\"%95[^\"]\",\"family\":%u,\"tid\":%u,\"t0\":%" SCNu64
                   ",\"t1\":%" SCNu64 ",\"peer\":%d,\"bytes\":%" SCNu64 ",\"addr\":%" SCNu64,
                   m->fn, &fam, &tid, &m->t0, &m->t1, &m->peer, &m->bytes, &m->addr) != 8)
            continue; /* a line cut by the job's end */
        /* Optional fields past "addr" (core/trace.c's write_pending). */
        const char *extra;
        m->sym[0] = m->team[0] = '\0';
        m->team_npes = 0;
        if ((extra = strstr(line, ",\"team\":\"")) != NULL)
            sscanf(extra, ",\"team\":\"%31[^\"]\",\"team_npes\":%d", m->team, &m->team_npes);
        if ((extra = strstr(line, ",\"sym\":\"")) != NULL)
            sscanf(extra, ",\"sym\":\"%127[^\"]", m->sym);
        m->t0 += (uint64_t)set->clock_offset[pe];
        m->t1 += (uint64_t)set->clock_offset[pe];
        m->family = (uint16_t)fam;
        m->tid = (uint16_t)tid;
        m->pe = pe;
        m->released_by = -1;
        m->matched = 0;
        set->n++;
    }
    fclose(f);
    return 0;
}

static int cmp_pe_t0(const void *a, const void *b)
{
    const shoal_trace_rec_t *x = a, *y = b;
    if (x->pe != y->pe)
        return x->pe < y->pe ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static const shoal_trace_rec_t *sort_base;

static int cmp_signal(const void *a, const void *b)
{
    const shoal_trace_rec_t *x = &sort_base[*(const size_t *)a];
    const shoal_trace_rec_t *y = &sort_base[*(const size_t *)b];
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

static int cmp_t1(const void *a, const void *b)
{
    const shoal_trace_rec_t *x = &sort_base[*(const size_t *)a];
    const shoal_trace_rec_t *y = &sort_base[*(const size_t *)b];
    return x->t1 < y->t1 ? -1 : x->t1 > y->t1;
}

/* Each wait on (PE b, address s), in the order the waits ended, is joined
 * to the latest signal update to (b, s) that began before the wait ended
 * and that no earlier wait took. Best effort: a signal that two waits both
 * saw releases only the first of them. */
static void match_waits(shoal_trace_set_t *set)
{
    size_t nsig = 0, nwait = 0;
    size_t *sig = malloc((set->n + 1) * sizeof(*sig));
    size_t *wait = malloc((set->n + 1) * sizeof(*wait));
    shoal_trace_rec_t *r = set->rec;
    if (sig == NULL || wait == NULL)
        goto out;
    for (size_t i = 0; i < set->n; i++) {
        if (r[i].family == SHOAL_TRACE_SIGNAL && r[i].addr != 0)
            sig[nsig++] = i;
        else if (r[i].family == SHOAL_TRACE_WAIT && r[i].addr != 0)
            wait[nwait++] = i;
    }
    sort_base = r;
    qsort(sig, nsig, sizeof(*sig), cmp_signal);
    qsort(wait, nwait, sizeof(*wait), cmp_t1);
    for (size_t w = 0; w < nwait; w++) {
        shoal_trace_rec_t *wt = &r[wait[w]];
        /* The first signal of the key (PE, address), by binary search. */
        size_t lo = 0, hi = nsig;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            const shoal_trace_rec_t *s = &r[sig[mid]];
            if (s->peer < wt->pe || (s->peer == wt->pe && s->addr < wt->addr))
                lo = mid + 1;
            else
                hi = mid;
        }
        long best = -1;
        for (size_t i = lo; i < nsig && r[sig[i]].peer == wt->pe && r[sig[i]].addr == wt->addr;
             i++) {
            if (r[sig[i]].t0 > wt->t1)
                break;
            if (!r[sig[i]].matched)
                best = (long)sig[i];
        }
        if (best < 0)
            continue;
        r[best].matched = 1;
        wt->released_by = best;
    }
out:
    free(sig);
    free(wait);
}

int shoal_trace_read(shoal_trace_set_t *set, const char *dir, int npes, const char *call)
{
    memset(set, 0, sizeof(*set));
    set->npes = npes > 0 ? npes : count_pes(dir);
    if (set->npes <= 0)
        return -1;
    set->dropped = calloc((size_t)set->npes, sizeof(*set->dropped));
    set->complete = calloc((size_t)set->npes, sizeof(*set->complete));
    set->present = calloc((size_t)set->npes, sizeof(*set->present));
    set->clock_offset = calloc((size_t)set->npes, sizeof(*set->clock_offset));
    set->clock_rtt = calloc((size_t)set->npes, sizeof(*set->clock_rtt));
    if (set->dropped == NULL || set->complete == NULL || set->present == NULL ||
        set->clock_offset == NULL || set->clock_rtt == NULL)
        return -1;
    size_t cap = 0;
    int read = 0;
    for (int pe = 0; pe < set->npes; pe++) {
        if (read_pe(set, dir, pe, &cap) != 0) {
            char path[4096];
            pe_path(path, sizeof(path), dir, pe);
            SHOAL_WARN("%s: SHOAL_TRACE: cannot read PE %d's %s: %m; its track is left out of "
                       "trace.json",
                       call, pe, path);
            continue;
        }
        set->present[pe] = 1;
        read++;
    }
    qsort(set->rec, set->n, sizeof(*set->rec), cmp_pe_t0);
    set->base = UINT64_MAX;
    for (size_t i = 0; i < set->n; i++)
        if (set->rec[i].t0 < set->base)
            set->base = set->rec[i].t0;
    if (set->base == UINT64_MAX)
        set->base = 0;
    match_waits(set);
    return read > 0 ? 0 : -1;
}

void shoal_trace_set_free(shoal_trace_set_t *set)
{
    free(set->rec);
    free(set->dropped);
    free(set->complete);
    free(set->present);
    free(set->clock_offset);
    free(set->clock_rtt);
    memset(set, 0, sizeof(*set));
}

void shoal_trace_addr_name(const shoal_trace_set_t *set, uint64_t key, char *out, size_t cap)
{
    const unsigned row = (unsigned)(key >> 48) - 1;
    const uint64_t off = key & (((uint64_t)1 << 48) - 1);
    char sym[256];
    size_t sym_off;
    if (row == SHOAL_ROUTE_GLOBALS && set->exe[0] != '\0' && set->globals_size > off &&
        shoal_symbol_in_file(set->exe, set->globals_vaddr + off, sym, sizeof(sym), &sym_off) == 0) {
        if (sym_off)
            snprintf(out, cap, "%s+0x%zx", sym, sym_off);
        else
            snprintf(out, cap, "%s", sym);
        return;
    }
    snprintf(out, cap, "%s+0x%" PRIx64,
             row == SHOAL_ROUTE_HEAP      ? "heap"
             : row == SHOAL_ROUTE_GLOBALS ? "globals"
                                          : "row",
             off);
}

void shoal_trace_rec_addr_name(const shoal_trace_set_t *set, const shoal_trace_rec_t *rec,
                               char *out, size_t cap)
{
    if (rec->sym[0] != '\0')
        snprintf(out, cap, "%s", rec->sym);
    else
        shoal_trace_addr_name(set, rec->addr, out, cap);
}

/* ---- writing ---- */

/* Chrome trace-event time: microseconds from `base`, to the nanosecond. */
static void put_ts(shoal_outfile_t *f, const char *key, uint64_t t, uint64_t base)
{
    uint64_t d = t - base;
    shoal_outfile_printf(f, "\"%s\":%" PRIu64 ".%03" PRIu64, key, d / 1000, d % 1000);
}

static size_t write_flows(shoal_outfile_t *f, const shoal_trace_set_t *set)
{
    size_t flows = 0;
    for (size_t w = 0; w < set->n; w++) {
        const shoal_trace_rec_t *wt = &set->rec[w];
        if (wt->released_by < 0)
            continue;
        const shoal_trace_rec_t *s = &set->rec[wt->released_by];
        flows++;
        uint64_t from = s->t0 + (s->t1 - s->t0) / 2;
        uint64_t to = wt->t1 > wt->t0 ? wt->t1 - 1 : wt->t0;
        shoal_outfile_printf(
            f, ",\n{\"name\":\"signal\",\"cat\":\"signal\",\"ph\":\"s\",\"id\":%zu,", flows);
        put_ts(f, "ts", from, set->base);
        shoal_outfile_printf(f, ",\"pid\":%d,\"tid\":%u}", s->pe, s->tid);
        shoal_outfile_printf(
            f, ",\n{\"name\":\"signal\",\"cat\":\"signal\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,",
            flows);
        put_ts(f, "ts", to, set->base);
        shoal_outfile_printf(f, ",\"pid\":%d,\"tid\":%u}", wt->pe, wt->tid);
    }
    return flows;
}

int shoal_trace_write_json(const shoal_trace_set_t *set, const char *path, const char *call,
                           int *lost)
{
    shoal_outfile_t out, *f = &out;
    if (shoal_outfile_open(f, call, "SHOAL_TRACE", path, "w", lost) != SHOAL_OK)
        return -1;
    shoal_outfile_printf(
        f,
        "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"clock\":\"CLOCK_REALTIME\","
        "\"base_ns\":%" PRIu64 ",\"dropped\":[",
        set->base);
    for (int pe = 0; pe < set->npes; pe++)
        shoal_outfile_printf(f, "%s%" PRIu64, pe ? "," : "", set->dropped[pe]);
    /* PEs whose file lacks finalize's last line: the job ended before it
     * (their records reach the last flush: a hang report, a fault). */
    shoal_outfile_printf(f, "],\"unfinished\":[");
    for (int pe = 0, k = 0; pe < set->npes; pe++)
        if (set->present[pe] && !set->complete[pe])
            shoal_outfile_printf(f, "%s%d", k++ ? "," : "", pe);
    /* Each PE's clock offset to PE 0's, added to its times (core/trace_clock.c). */
    shoal_outfile_printf(f, "],\"clock_offset_ns\":[");
    for (int pe = 0; pe < set->npes; pe++)
        shoal_outfile_printf(f, "%s%" PRId64, pe ? "," : "", set->clock_offset[pe]);
    shoal_outfile_printf(f, "],\"clock_rtt_ns\":[");
    for (int pe = 0; pe < set->npes; pe++)
        shoal_outfile_printf(f, "%s%" PRIu64, pe ? "," : "", set->clock_rtt[pe]);
    shoal_outfile_printf(f, "]},\n\"traceEvents\":[");
    for (int pe = 0; pe < set->npes; pe++)
        shoal_outfile_printf(
            f,
            "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
            "\"PE %d\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            pe ? "," : "", pe, pe, pe, pe);
    for (size_t i = 0; i < set->n; i++) {
        const shoal_trace_rec_t *m = &set->rec[i];
        shoal_outfile_printf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",", m->fn,
                             shoal_trace_family_str(m->family));
        put_ts(f, "ts", m->t0, set->base);
        shoal_outfile_printf(f,
                             ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"pid\":%d,\"tid\":%u,\"args\":{",
                             (m->t1 - m->t0) / 1000, (m->t1 - m->t0) % 1000, m->pe, m->tid);
        shoal_outfile_printf(f, "\"peer\":%d,\"bytes\":%" PRIu64, m->peer, m->bytes);
        if (m->team[0] != '\0')
            shoal_outfile_printf(f, ",\"team\":\"%s\",\"team_npes\":%d", m->team, m->team_npes);
        if (m->addr != 0) {
            char name[300];
            shoal_trace_rec_addr_name(set, m, name, sizeof(name));
            shoal_outfile_printf(f, ",\"addr\":\"%s\"", name);
        }
        shoal_outfile_printf(f, "}}");
    }
    size_t flows = write_flows(f, set);
    shoal_outfile_printf(f, "\n]}\n");
    if (shoal_outfile_close(f) != SHOAL_OK)
        return -1;
    SHOAL_INFO("trace: %zu events and %zu flows from %d PEs in %s", set->n, flows, set->npes, path);
    return 0;
}

int shoal_trace_merge_dir(const char *dir, int npes, const char *call, int *lost)
{
    shoal_trace_set_t set;
    int rc = shoal_trace_read(&set, dir, npes, call);
    if (set.npes > 0 && set.dropped != NULL && set.present != NULL) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/trace.json", dir);
        rc = shoal_trace_write_json(&set, path, call, lost);
    }
    shoal_trace_set_free(&set);
    return rc;
}
