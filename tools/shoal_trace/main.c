/*
 * shoal-trace: the per-PE trace files (SHOAL_TRACE=DIR) after the job.
 *
 *   shoal-trace merge DIR [NPES]    DIR/trace.json from DIR/trace.<pe>.jsonl,
 *                                   the same merge PE 0 does at finalize
 *                                   (core/trace_merge.c), for a job that
 *                                   never got there (hang, timeout, crash)
 *   shoal-trace summary DIR [TOP]   time per family per PE, and the TOP
 *                                   (default 10) longest waits with what
 *                                   released them
 *   shoal-trace view DIR [OUT]      DIR/trace.json as a self-contained HTML
 *                                   page (default DIR/trace.html): view.c
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "core/trace_merge.h"
#include "view.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: shoal-trace merge DIR [NPES]   merge DIR/trace.<pe>.jsonl into "
               "DIR/trace.json\n"
               "       shoal-trace summary DIR [TOP]  time per family per PE and the TOP "
               "longest waits\n"
               "       shoal-trace view DIR [OUT.html]  DIR/trace.json as an HTML page that "
               "draws it\n");
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* What released record w of a barrier or collective: the PE that arrived
 * last at the same call, matched by its order among the calls of that
 * routine on each PE (exact for calls that every PE makes in the same
 * order, as the world's barriers). Returns the record or NULL. */
static const shoal_trace_rec_t *last_arrival(const shoal_trace_set_t *set, size_t w)
{
    const shoal_trace_rec_t *r = set->rec, *me = &r[w];
    int k = 0; /* which call of this routine on its PE */
    for (size_t i = 0; i < w; i++)
        if (r[i].pe == me->pe && r[i].tid == me->tid && strcmp(r[i].fn, me->fn) == 0)
            k++;
    const shoal_trace_rec_t *last = NULL;
    for (int pe = 0; pe < set->npes; pe++) {
        const shoal_trace_rec_t *found = NULL;
        int seen = 0;
        for (size_t i = 0; i < set->n && found == NULL; i++)
            if (r[i].pe == pe && r[i].tid == 0 && strcmp(r[i].fn, me->fn) == 0 && seen++ == k)
                found = &r[i];
        if (found == NULL)
            return NULL; /* a PE never got there: nothing to say */
        if (last == NULL || found->t0 > last->t0)
            last = found;
    }
    return last;
}

/* The summary table's column width for family k: its name fits. */
static int col_width(int k)
{
    const int len = (int)strlen(shoal_trace_family_str((unsigned)k));
    return len > 9 ? len : 9;
}

static int cmp_dur(const void *a, const void *b)
{
    const shoal_trace_rec_t *x = *(shoal_trace_rec_t *const *)a;
    const shoal_trace_rec_t *y = *(shoal_trace_rec_t *const *)b;
    uint64_t dx = x->t1 - x->t0, dy = y->t1 - y->t0;
    return dx > dy ? -1 : dx < dy;
}

static int summary(const char *dir, int top)
{
    shoal_trace_set_t set;
    if (shoal_trace_read(&set, dir, 0, "shoal-trace summary") != 0) {
        fprintf(stderr, "shoal-trace summary: no trace.<pe>.jsonl could be read in %s\n", dir);
        shoal_trace_set_free(&set);
        return 1;
    }
    printf("trace of %d PEs in %s: %zu calls\n", set.npes, dir, set.n);
    for (int pe = 0; pe < set.npes; pe++) {
        if (!set.present[pe])
            printf("  PE %d: no file\n", pe);
        else if (!set.complete[pe])
            printf("  PE %d: unfinished (no shmem_finalize; records up to its last flush)\n", pe);
        if (set.dropped[pe])
            printf("  PE %d: %" PRIu64 " records dropped\n", pe, set.dropped[pe]);
    }
    /* Time per family per PE: the sum of its calls' durations (a
     * routine's own inner calls are not recorded, so nothing counts twice).
     * Network operations (inside calls) and user ranges (around them) are
     * shown past "in Shoal", not added into it. */
    uint64_t(*ns)[SHOAL_TRACE_NFAMILIES] = calloc((size_t)set.npes, sizeof(*ns));
    uint64_t *first = calloc((size_t)set.npes, sizeof(uint64_t));
    uint64_t *last = calloc((size_t)set.npes, sizeof(uint64_t));
    const shoal_trace_rec_t **waits = calloc(set.n + 1, sizeof(*waits));
    if (ns == NULL || first == NULL || last == NULL || waits == NULL) {
        fprintf(stderr, "shoal-trace summary: out of memory\n");
        return 1;
    }
    size_t nwaits = 0;
    for (size_t i = 0; i < set.n; i++) {
        const shoal_trace_rec_t *r = &set.rec[i];
        if (r->family < SHOAL_TRACE_NFAMILIES)
            ns[r->pe][r->family] += r->t1 - r->t0;
        if (first[r->pe] == 0 || r->t0 < first[r->pe])
            first[r->pe] = r->t0;
        if (r->t1 > last[r->pe])
            last[r->pe] = r->t1;
        if (r->family == SHOAL_TRACE_WAIT || r->family == SHOAL_TRACE_COLL)
            waits[nwaits++] = r;
    }
    printf("\ntime per family per PE (ms; span: first call to last call end)\n%-4s", "PE");
    for (int k = 0; k < SHOAL_TRACE_NFAMILIES; k++) {
        if (k == SHOAL_TRACE_PROFILED)
            printf(" %9s", "in Shoal");
        printf(" %*s", col_width(k), shoal_trace_family_str((unsigned)k));
    }
    printf(" %9s\n", "span");
    for (int pe = 0; pe < set.npes; pe++) {
        uint64_t sum = 0;
        printf("%-4d", pe);
        for (int k = 0; k < SHOAL_TRACE_NFAMILIES; k++) {
            if (k == SHOAL_TRACE_PROFILED)
                printf(" %9.3f", ms(sum));
            printf(" %*.3f", col_width(k), ms(ns[pe][k]));
            if (k < SHOAL_TRACE_PROFILED)
                sum += ns[pe][k];
        }
        printf(" %9.3f\n", ms(last[pe] - first[pe]));
    }
    qsort(waits, nwaits, sizeof(*waits), cmp_dur);
    if (nwaits > (size_t)top)
        nwaits = (size_t)top;
    printf("\nlongest waits (times from the first call, +ms)\n");
    for (size_t i = 0; i < nwaits; i++) {
        const shoal_trace_rec_t *w = waits[i];
        printf("%2zu. PE %d %s %.3f ms at +%.3f", i + 1, w->pe, w->fn, ms(w->t1 - w->t0),
               ms(w->t0 - set.base));
        if (w->addr != 0) {
            char name[300];
            shoal_trace_rec_addr_name(&set, w, name, sizeof(name));
            printf(" on %s", name);
        }
        if (w->team[0] != '\0')
            printf(" on %s (%d PEs)", w->team, w->team_npes);
        if (w->family == SHOAL_TRACE_WAIT) {
            if (w->released_by >= 0) {
                const shoal_trace_rec_t *s = &set.rec[w->released_by];
                printf(": released by PE %d's %s at +%.3f\n", s->pe, s->fn, ms(s->t0 - set.base));
            } else {
                printf(": no recorded signal update released it (the value was there, or a "
                       "put or AMO set it)\n");
            }
        } else {
            const shoal_trace_rec_t *l = last_arrival(&set, (size_t)(w - set.rec));
            if (l != NULL && l->pe != w->pe)
                printf(": released when PE %d arrived last, at +%.3f\n", l->pe,
                       ms(l->t0 - set.base));
            else if (l != NULL)
                printf(": this PE arrived last\n");
            else
                printf(": not every PE's trace has this call\n");
        }
    }
    free(ns);
    free(first);
    free(last);
    free(waits);
    shoal_trace_set_free(&set);
    return 0;
}

static int merge(const char *dir, int npes)
{
    shoal_trace_set_t set;
    char path[4096];
    snprintf(path, sizeof(path), "%s/trace.json", dir);
    int lost = 0;
    int rc = shoal_trace_read(&set, dir, npes, "shoal-trace merge");
    if (rc != 0)
        fprintf(stderr, "shoal-trace merge: no trace.<pe>.jsonl could be read in %s\n", dir);
    else if ((rc = shoal_trace_write_json(&set, path, "shoal-trace merge", &lost)) == 0) {
        size_t flows = 0;
        for (size_t i = 0; i < set.n; i++)
            flows += set.rec[i].released_by >= 0;
        printf("shoal-trace merge: %s: %zu calls and %zu signal arrows from %d PEs", path, set.n,
               flows, set.npes);
        const char *sep = "; unfinished (no shmem_finalize): PE ";
        for (int pe = 0; pe < set.npes; pe++)
            if (set.present[pe] && !set.complete[pe]) {
                printf("%s%d", sep, pe);
                sep = ", ";
            }
        printf("\n");
    }
    shoal_trace_set_free(&set);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 3 || argc > 4) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "view") == 0) {
        char json[4096], html[4096];
        snprintf(json, sizeof(json), "%s/trace.json", argv[2]);
        snprintf(html, sizeof(html), "%s/trace.html", argv[2]);
        return shoal_trace_view(json, argc == 4 ? argv[3] : html);
    }
    const int extra = argc == 4 ? atoi(argv[3]) : 0;
    if (argc == 4 && extra <= 0) {
        fprintf(stderr, "shoal-trace %s: %s is not a positive number\n", argv[1], argv[3]);
        return 2;
    }
    if (strcmp(argv[1], "merge") == 0)
        return merge(argv[2], extra);
    if (strcmp(argv[1], "summary") == 0)
        return summary(argv[2], extra ? extra : 10);
    usage(stderr);
    return 2;
}
