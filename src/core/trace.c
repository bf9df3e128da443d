/*
 * The tracer and profiler (core/trace.h says what they record and how they
 * stay off the fast path). This file owns the per-thread record buffers,
 * the profile counters, the per-PE trace files and, on PE 0 at finalize,
 * the merged Chrome trace-event file and the printed profile.
 *
 * Files under SHOAL_TRACE=<dir>:
 *   trace.<pe>.jsonl  one JSON object a line per record of PE <pe>, times in
 *                     CLOCK_REALTIME ns, plus a last line with the count of
 *                     records dropped on a full buffer;
 *   trace.json        PE 0's merge: one track (pid) per PE named "PE n",
 *                     one "X" event per call, flow arrows ("s"/"f") from
 *                     each signal update to the wait it released.
 * Every write to them and to SHOAL_PROFILE_CSV is checked (util/outfile.h):
 * a failure is logged once per file, naming it and errno.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "core/pcontrol.h"
#include "core/state.h"
#include "core/trace.h"
#include "transport/net_setup.h"
#include "util/env.h"
#include "util/log.h"
#include "util/outfile.h"

int shoal_trace_on;

static const char *const family_name[SHOAL_TRACE_NFAMILIES] = {
#define SHOAL_TRACE_FAMILY_NAME(id, name) name,
    SHOAL_TRACE_FAMILIES(SHOAL_TRACE_FAMILY_NAME)
#undef SHOAL_TRACE_FAMILY_NAME
};

typedef struct {
    uint64_t t0, t1;
    const char *fn; /* a string constant: the routine's spec name */
    uint64_t addr;
    uint64_t bytes;
    int32_t peer;
    uint16_t family;
    uint16_t tid;
} trace_event_t;

/* One thread's records and counters: plain adds, no atomics, summed at
 * finalize. */
typedef struct {
    trace_event_t *ev; /* NULL when only profiling */
    size_t n, cap;
    uint64_t dropped;
    int tid;
    uint64_t calls[SHOAL_TRACE_NFAMILIES], bytes[SHOAL_TRACE_NFAMILIES], ns[SHOAL_TRACE_NFAMILIES];
    uint64_t *out_bytes; /* [npes]: bytes this thread wrote (put, signal, AMO) to each PE */
    uint64_t *in_bytes;  /* [npes]: bytes this thread read (get) from each PE */
} trace_buf_t;

#define TRACE_THREADS_MAX 256

static struct {
    const char *dir; /* NULL: not tracing */
    int profile;
    int npes, me;
    uint64_t t_init;
    pthread_mutex_t lock; /* the buffer list and file writes */
    trace_buf_t *bufs[TRACE_THREADS_MAX];
    int nbufs;
    uint64_t threads_refused;
    unsigned gen;     /* counts the inits that turned tracing on */
    int pe_file_lost; /* a write to this PE's trace file failed (reported once) */
    int merge_lost;   /* the same for trace.json */
} tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

static __thread trace_buf_t *my_buf;
static __thread unsigned my_gen; /* the tr.gen my_buf belongs to */
static __thread int my_depth;

uint64_t shoal_trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int shoal_trace_enter(void)
{
    if (my_depth)
        return 0;
    my_depth = 1;
    return 1;
}

void shoal_trace_leave(void)
{
    my_depth = 0;
}

static void buf_free(trace_buf_t *b)
{
    free(b->ev);
    free(b->out_bytes);
    free(b->in_bytes);
    free(b);
}

static trace_buf_t *thread_buf(void)
{
    if (my_buf != NULL && my_gen == tr.gen)
        return my_buf;
    pthread_mutex_lock(&tr.lock);
    my_buf = NULL;
    my_gen = tr.gen;
    if (tr.nbufs < TRACE_THREADS_MAX) {
        trace_buf_t *b = calloc(1, sizeof(*b));
        if (b != NULL) {
            b->cap = tr.dir != NULL ? shoal_env.trace_events : 0;
            b->ev = b->cap ? calloc(b->cap, sizeof(*b->ev)) : NULL;
            b->out_bytes = calloc((size_t)tr.npes, sizeof(uint64_t));
            b->in_bytes = calloc((size_t)tr.npes, sizeof(uint64_t));
            b->tid = tr.nbufs;
            if ((b->cap && b->ev == NULL) || b->out_bytes == NULL || b->in_bytes == NULL) {
                buf_free(b);
                b = NULL;
            } else {
                tr.bufs[tr.nbufs++] = b;
            }
        }
        my_buf = b;
    }
    if (my_buf == NULL)
        tr.threads_refused++;
    pthread_mutex_unlock(&tr.lock);
    return my_buf;
}

/* A symmetric address as every PE names it: its route row and the offset
 * in it (each PE maps its copy of a row at its own address), as
 * (row + 1) << 48 | offset; 0 for none or an address outside every row. */
static uint64_t symmetric_key(const void *addr)
{
    uint64_t off;
    int row =
        addr != NULL ? shoal_route_row_of(shoal.route.row, shoal.route.nrows, addr, &off) : -1;
    return row < 0 ? 0 : ((uint64_t)(row + 1) << 48) | (off & (((uint64_t)1 << 48) - 1));
}

void shoal_trace_record(const char *fn, shoal_trace_family_t family, uint64_t t0, int peer,
                        uint64_t bytes, const void *addr)
{
    if (!shoal_trace_on || !shoal_pcontrol_enabled())
        return;
    uint64_t t1 = shoal_trace_now();
    trace_buf_t *b = thread_buf();
    if (b == NULL)
        return;
    b->calls[family]++;
    b->bytes[family] += bytes;
    b->ns[family] += t1 - t0;
    if (peer >= 0 && peer < tr.npes && bytes > 0) {
        if (family == SHOAL_TRACE_GET)
            b->in_bytes[peer] += bytes;
        else if (family == SHOAL_TRACE_PUT || family == SHOAL_TRACE_SIGNAL ||
                 family == SHOAL_TRACE_AMO)
            b->out_bytes[peer] += bytes;
    }
    if (tr.dir == NULL)
        return;
    if (b->n == b->cap) {
        b->dropped++;
        return;
    }
    b->ev[b->n++] =
        (trace_event_t){t0, t1, fn, symmetric_key(addr), bytes, peer, family, (uint16_t)b->tid};
}

void shoal_trace_wait_one(const char *fn, const void *ivar, shoal_dtype_t dt, int cmp,
                          uint64_t value)
{
    SHOAL_TRACE_SCOPE(fn, SHOAL_TRACE_WAIT, -1, 0, ivar);
    shoal_wait_one(fn, ivar, dt, cmp, value);
}

static void pe_file(char *path, size_t len, int pe)
{
    snprintf(path, len, "%s/trace.%d.jsonl", tr.dir, pe);
}

void shoal_trace_init(void)
{
    tr.dir = shoal_env.trace[0] != '\0' ? shoal_env.trace : NULL;
    tr.profile = shoal_env.profile;
    if (tr.dir == NULL && !tr.profile)
        return;
    tr.npes = SHOAL_NPES;
    tr.me = SHOAL_MY_PE;
    if (tr.dir != NULL) {
        if (mkdir(tr.dir, 0777) != 0 && errno != EEXIST) {
            SHOAL_ERROR("shmem_init: SHOAL_TRACE=%s: cannot create the directory: %m; tracing "
                        "stays off (name a directory this user may write)",
                        tr.dir);
            tr.dir = NULL;
        } else {
            char path[4096];
            pe_file(path, sizeof(path), tr.me);
            tr.pe_file_lost = tr.merge_lost = 0;
            FILE *f = fopen(path, "w");
            if (f == NULL || fclose(f) != 0) {
                int err = errno;
                shoal_outfile_lost(path, 0,
                                   "shmem_init: SHOAL_TRACE=%s: cannot write %s: %s (errno %d); "
                                   "tracing stays off (name a directory this user may write, "
                                   "with room)",
                                   tr.dir, path, strerror(err), err);
                tr.dir = NULL;
            }
        }
    }
    if (tr.dir == NULL && !tr.profile)
        return;
    tr.t_init = shoal_trace_now();
    tr.gen++;
    tr.threads_refused = 0;
    shoal_trace_on = 1;
}

/* Appends buffer b's records to f and empties it. */
static void write_buf(shoal_outfile_t *f, trace_buf_t *b)
{
    for (size_t i = 0; i < b->n; i++) {
        const trace_event_t *e = &b->ev[i];
        shoal_outfile_printf(f,
                             "{\"fn\":\"%s\",\"family\":%u,\"tid\":%u,\"t0\":%" PRIu64
                             ",\"t1\":%" PRIu64 ",\"peer\":%d,\"bytes\":%" PRIu64
                             ",\"addr\":%" PRIu64 "}\n",
                             e->fn, e->family, e->tid, e->t0, e->t1, e->peer, e->bytes, e->addr);
    }
    b->n = 0;
}

void shoal_trace_flush(void)
{
    if (!shoal_trace_on || tr.dir == NULL || my_buf == NULL || my_gen != tr.gen)
        return;
    char path[4096];
    pe_file(path, sizeof(path), tr.me);
    pthread_mutex_lock(&tr.lock);
    shoal_outfile_t f;
    if (shoal_outfile_open(&f, "shmem_pcontrol", "SHOAL_TRACE", path, "a", &tr.pe_file_lost) ==
        SHOAL_OK) {
        write_buf(&f, my_buf);
        shoal_outfile_close(&f);
    }
    pthread_mutex_unlock(&tr.lock);
}

/* ---- PE 0's merge ---- */

typedef struct {
    trace_event_t e;
    int pe;
    int matched;
    char fn[96];
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
static merged_t *read_all(size_t *n_p, uint64_t *dropped)
{
    merged_t *all = NULL;
    size_t n = 0, cap = 0;
    char path[4096], line[512];
    for (int pe = 0; pe < tr.npes; pe++) {
        pe_file(path, sizeof(path), pe);
        FILE *f = fopen(path, "r");
        if (f == NULL) {
            SHOAL_WARN("shmem_finalize: SHOAL_TRACE: cannot read PE %d's %s: %m; its track "
                       "is left out of trace.json",
                       pe, path);
            continue;
        }
        while (fgets(line, sizeof(line), f) != NULL) {
            uint64_t d;
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

static void merge_trace(void)
{
    uint64_t *dropped = calloc((size_t)tr.npes, sizeof(uint64_t));
    size_t n = 0;
    merged_t *all = dropped ? read_all(&n, dropped) : NULL;
    char path[4096];
    snprintf(path, sizeof(path), "%s/trace.json", tr.dir);
    shoal_outfile_t out, *f = &out;
    if (shoal_outfile_open(f, "shmem_finalize", "SHOAL_TRACE", path, "w", &tr.merge_lost) !=
        SHOAL_OK)
        goto out;
    uint64_t base = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (all[i].e.t0 < base)
            base = all[i].e.t0;
    if (base == UINT64_MAX)
        base = tr.t_init;
    shoal_outfile_printf(
        f,
        "{\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"clock\":\"CLOCK_REALTIME\","
        "\"base_ns\":%" PRIu64 ",\"dropped\":[",
        base);
    for (int pe = 0; pe < tr.npes; pe++)
        shoal_outfile_printf(f, "%s%" PRIu64, pe ? "," : "", dropped ? dropped[pe] : 0);
    shoal_outfile_printf(f, "]},\n\"traceEvents\":[");
    for (int pe = 0; pe < tr.npes; pe++)
        shoal_outfile_printf(
            f,
            "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
            "\"PE %d\"}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            pe ? "," : "", pe, pe, pe, pe);
    for (size_t i = 0; i < n; i++) {
        const merged_t *m = &all[i];
        shoal_outfile_printf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",", m->fn,
                             family_name[m->e.family < SHOAL_TRACE_NFAMILIES ? m->e.family : 0]);
        put_ts(f, "ts", m->e.t0, base);
        shoal_outfile_printf(
            f, ",\"dur\":%" PRIu64 ".%03" PRIu64 ",\"pid\":%d,\"tid\":%u,\"args\":{",
            (m->e.t1 - m->e.t0) / 1000, (m->e.t1 - m->e.t0) % 1000, m->pe, m->e.tid);
        shoal_outfile_printf(f, "\"peer\":%d,\"bytes\":%" PRIu64, m->e.peer, m->e.bytes);
        if (m->e.addr != 0) {
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
        SHOAL_INFO("trace: %zu events and %zu flows from %d PEs in %s", n, flows, tr.npes, path);
out:
    free(all);
    free(dropped);
}

/* ---- the profile ---- */

/* One PE's counters, as sent to PE 0 over the bootstrap. */
static size_t profile_words(void)
{
    return 3 * SHOAL_TRACE_NFAMILIES + 2 * (size_t)tr.npes;
}

/* Sums every thread's counters into w (zeroed). The threads are done:
 * finalize runs after the program's last call. */
static void profile_pack(uint64_t *w)
{
    for (int i = 0; i < tr.nbufs; i++) {
        const trace_buf_t *b = tr.bufs[i];
        for (int k = 0; k < SHOAL_TRACE_NFAMILIES; k++) {
            w[3 * k] += b->calls[k];
            w[3 * k + 1] += b->bytes[k];
            w[3 * k + 2] += b->ns[k];
        }
        for (int q = 0; q < tr.npes; q++) {
            w[3 * SHOAL_TRACE_NFAMILIES + q] += b->out_bytes[q];
            w[3 * SHOAL_TRACE_NFAMILIES + tr.npes + q] += b->in_bytes[q];
        }
    }
}

static void profile_print(const uint64_t *all)
{
    const size_t words = profile_words();
    const int np = tr.npes;
    uint64_t *matrix = calloc((size_t)np * (size_t)np, sizeof(uint64_t));
    if (matrix == NULL)
        return;
    for (int pe = 0; pe < np; pe++) {
        const uint64_t *w = all + (size_t)pe * words;
        for (int q = 0; q < np; q++) {
            matrix[(size_t)pe * np + q] += w[3 * SHOAL_TRACE_NFAMILIES + q];
            matrix[(size_t)q * np + pe] += w[3 * SHOAL_TRACE_NFAMILIES + np + q];
        }
    }
    shoal_outfile_t csv_file, *csv = NULL;
    if (shoal_env.profile_csv[0] != '\0' &&
        shoal_outfile_open(&csv_file, "shmem_finalize", "SHOAL_PROFILE_CSV", shoal_env.profile_csv,
                           "w", NULL) == SHOAL_OK) {
        csv = &csv_file;
        shoal_outfile_printf(csv, "family,calls,bytes,time_ns,slowest_pe,slowest_pe_time_ns\n");
    }
    printf("Shoal profile: %d PEs, %.3f ms from shmem_init to shmem_finalize on PE 0\n", np,
           (double)(shoal_trace_now() - tr.t_init) / 1e6);
    printf("%-20s %12s %14s %12s  %s\n", "family", "calls", "bytes", "time (ms)",
           "slowest PE (ms)");
    for (int k = 0; k < SHOAL_TRACE_NFAMILIES; k++) {
        uint64_t calls = 0, bytes = 0, ns = 0, worst = 0;
        int worst_pe = 0;
        for (int pe = 0; pe < np; pe++) {
            const uint64_t *w = all + (size_t)pe * words;
            calls += w[3 * k];
            bytes += w[3 * k + 1];
            ns += w[3 * k + 2];
            if (w[3 * k + 2] > worst) {
                worst = w[3 * k + 2];
                worst_pe = pe;
            }
        }
        if (calls == 0)
            printf("%-20s %12d %14d %12s  %s\n", family_name[k], 0, 0, "-", "-");
        else
            printf("%-20s %12" PRIu64 " %14" PRIu64 " %12.3f  PE %d (%.3f)\n", family_name[k],
                   calls, bytes, (double)ns / 1e6, worst_pe, (double)worst / 1e6);
        if (csv != NULL)
            shoal_outfile_printf(csv, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,%" PRIu64 "\n",
                                 family_name[k], calls, bytes, ns, calls ? worst_pe : -1, worst);
    }
    printf("Traffic in bytes, from the row's PE to the column's PE (puts, signals, AMOs, "
           "gets; not the collectives' own):\n%8s",
           "");
    for (int q = 0; q < np; q++) {
        char col[16];
        snprintf(col, sizeof(col), "PE %d", q);
        printf(" %13s", col);
    }
    printf("\n");
    if (csv != NULL)
        shoal_outfile_printf(csv, "\nfrom_pe,to_pe,bytes\n");
    for (int pe = 0; pe < np; pe++) {
        printf("PE %-5d", pe);
        for (int q = 0; q < np; q++) {
            printf(" %13" PRIu64, matrix[(size_t)pe * np + q]);
            if (csv != NULL)
                shoal_outfile_printf(csv, "%d,%d,%" PRIu64 "\n", pe, q,
                                     matrix[(size_t)pe * np + q]);
        }
        printf("\n");
    }
    fflush(stdout);
    if (csv != NULL)
        shoal_outfile_close(csv);
    free(matrix);
}

static void profile_gather(void)
{
    const size_t words = profile_words();
    uint64_t *mine = calloc(words, sizeof(uint64_t));
    uint64_t *all = tr.me == 0 ? calloc(words * (size_t)tr.npes, sizeof(uint64_t)) : NULL;
    char key[64];
    snprintf(key, sizeof(key), "trace.profile.%u", shoal.generation);
    if (mine == NULL || (tr.me == 0 && all == NULL)) {
        SHOAL_ERROR("shmem_finalize: no memory for the profile");
        goto out;
    }
    profile_pack(mine);
    shoal_status_t status = shoal_bootstrap_put(&shoal.bs, key, mine, words * sizeof(uint64_t));
    if (status == SHOAL_OK)
        status = shoal_bootstrap_fence(&shoal.bs);
    if (status != SHOAL_OK) {
        SHOAL_ERROR("shmem_finalize: cannot publish this PE's profile over the bootstrap: %s",
                    shoal_status_str(status));
        goto out;
    }
    if (tr.me == 0) {
        for (int pe = 0; pe < tr.npes && status == SHOAL_OK; pe++)
            status = shoal_bootstrap_get(&shoal.bs, pe, key, all + (size_t)pe * words,
                                         words * sizeof(uint64_t), NULL);
        if (status != SHOAL_OK)
            SHOAL_ERROR("shmem_finalize: cannot read the PEs' profiles over the bootstrap: %s",
                        shoal_status_str(status));
        else
            profile_print(all);
    }
out:
    free(mine);
    free(all);
}

void shoal_trace_finalize(void)
{
    shoal.route_fast.npes = 0;
    if (!shoal_trace_on)
        return;
    shoal_trace_on = 0; /* finalize's own traffic is not the program's */
    if (tr.dir != NULL) {
        char path[4096];
        pe_file(path, sizeof(path), tr.me);
        uint64_t dropped = 0;
        pthread_mutex_lock(&tr.lock);
        shoal_outfile_t out;
        int opened = shoal_outfile_open(&out, "shmem_finalize", "SHOAL_TRACE", path, "a",
                                        &tr.pe_file_lost) == SHOAL_OK;
        for (int i = 0; i < tr.nbufs; i++) {
            if (opened)
                write_buf(&out, tr.bufs[i]);
            dropped += tr.bufs[i]->dropped;
        }
        if (opened) {
            shoal_outfile_printf(&out, "{\"dropped\":%" PRIu64 "}\n", dropped);
            shoal_outfile_close(&out);
        }
        pthread_mutex_unlock(&tr.lock);
        if (dropped > 0)
            SHOAL_WARN("trace: PE %d dropped %" PRIu64 " records on full buffers (%u records "
                       "per thread); raise SHOAL_TRACE_EVENTS to keep them",
                       tr.me, dropped, shoal_env.trace_events);
        if (tr.threads_refused > 0)
            SHOAL_WARN("trace: PE %d recorded no calls of %" PRIu64 " threads past the first %d",
                       tr.me, tr.threads_refused, TRACE_THREADS_MAX);
    }
    if (tr.profile)
        profile_gather();
    if (tr.dir != NULL) {
        shoal_net_idle();
        shoal_bootstrap_barrier(&shoal.bs); /* every PE's file is complete */
        if (tr.me == 0)
            merge_trace();
    }
    for (int i = 0; i < tr.nbufs; i++) {
        buf_free(tr.bufs[i]);
        tr.bufs[i] = NULL;
    }
    tr.nbufs = 0;
    my_buf = NULL; /* other threads notice by tr.gen */
    tr.dir = NULL;
}
