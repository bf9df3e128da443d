/*
 * The tracer and profiler (core/trace.h says what they record and how they
 * stay off the fast path). This file owns the per-thread record buffers and
 * counters and the per-PE trace files; at finalize it hands over to PE 0's
 * merge (trace_merge.c) and the profile (profile.c).
 *
 * Files under SHOAL_TRACE=<dir>:
 *   trace.<pe>.jsonl  a header line (job size, executable, globals row,
 *                     clock offset to PE 0), then one JSON object a line
 *                     per record of PE <pe>, times in CLOCK_REALTIME ns,
 *                     plus a last line with the count of records dropped;
 *   trace.json        PE 0's merge: one track (pid) per PE named "PE n",
 *                     one "X" event per call, flow arrows ("s"/"f") from
 *                     each signal update to the wait it released.
 * Every write to them and to SHOAL_PROFILE_CSV is checked (util/outfile.h):
 * a failure is logged once per file, naming it and errno.
 */
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "core/pcontrol.h"
#include "core/state.h"
#include "core/team.h"
#include "core/trace.h"
#include "core/trace_internal.h"
#include "core/trace_merge.h"
#include "mem/route.h"
#include "transport/net_setup.h"
#include "util/env.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/symbol.h"

int shoal_trace_on;

const char *const shoal_trace_family_name[SHOAL_TRACE_NFAMILIES] = {
#define SHOAL_TRACE_FAMILY_NAME(id, name) name,
    SHOAL_TRACE_FAMILIES(SHOAL_TRACE_FAMILY_NAME)
#undef SHOAL_TRACE_FAMILY_NAME
};

shoal_tracer_t shoal_tr = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* How often a thread that keeps recording writes its records out. */
#define TRACE_FLUSH_NS 1000000000u

static __thread trace_buf_t *my_buf;
static __thread unsigned my_gen; /* the shoal_tr.gen my_buf belongs to */
static __thread int my_depth;
static __thread const char *my_caller; /* shmemx_trace_caller's name, or NULL */

/* This thread's open user ranges (shmemx_trace_begin), innermost last. */
#define TRACE_RANGES_MAX 64
static __thread struct {
    const char *name; /* interned */
    uint64_t t0;      /* 0: begun while not recording */
} my_ranges[TRACE_RANGES_MAX];
static __thread int my_nranges;

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
    if (my_buf != NULL && my_gen == shoal_tr.gen)
        return my_buf;
    pthread_mutex_lock(&shoal_tr.lock);
    my_buf = NULL;
    my_gen = shoal_tr.gen;
    if (shoal_tr.nbufs < TRACE_THREADS_MAX) {
        trace_buf_t *b = calloc(1, sizeof(*b));
        if (b != NULL) {
            b->cap = shoal_tr.dir != NULL ? shoal_env.trace_events : 0;
            b->ev = b->cap ? calloc(b->cap, sizeof(*b->ev)) : NULL;
            b->out_bytes = calloc((size_t)shoal_tr.npes, sizeof(uint64_t));
            b->in_bytes = calloc((size_t)shoal_tr.npes, sizeof(uint64_t));
            b->tid = shoal_tr.nbufs;
            if ((b->cap && b->ev == NULL) || b->out_bytes == NULL || b->in_bytes == NULL) {
                buf_free(b);
                b = NULL;
            } else {
                shoal_tr.bufs[shoal_tr.nbufs++] = b;
            }
        }
        my_buf = b;
    }
    if (my_buf == NULL)
        shoal_tr.threads_refused++;
    pthread_mutex_unlock(&shoal_tr.lock);
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

/* The symbol of a symmetric key in the globals row, as "name+0xoff" (or
 * "name"), into sym; "" when it is elsewhere or has no symbol. One entry
 * of memory: records of one address come in runs. Under shoal_tr.lock.
 * Not async-signal-safe (dladdr1, snprintf): a flush from a signal handler
 * (shoal_trace_flush_all) does not call it, and the merge names those
 * globals from the executable's symbol table instead (the file's header). */
static void key_symbol(uint64_t key, char *sym, size_t len)
{
    static uint64_t last_key;
    static char last_sym[128];
    sym[0] = '\0';
    if (key == 0 || (key >> 48) != SHOAL_ROUTE_GLOBALS + 1 ||
        shoal.route.nrows <= SHOAL_ROUTE_GLOBALS)
        return;
    if (key != last_key) {
        const uint64_t off = key & (((uint64_t)1 << 48) - 1);
        char name[96];
        size_t in = 0;
        last_sym[0] = '\0';
        if (shoal_symbol_of((const void *)(shoal.route.row[SHOAL_ROUTE_GLOBALS].base + off), name,
                            sizeof(name), &in) == 0) {
            if (in != 0)
                snprintf(last_sym, sizeof(last_sym), "%s+0x%zx", name, in);
            else
                snprintf(last_sym, sizeof(last_sym), "%s", name);
        }
        last_key = key;
    }
    snprintf(sym, len, "%s", last_sym);
}

/* Appends buffer b's records [flushed, n) to this PE's file and marks them
 * written; the caller holds shoal_tr.lock. Past "addr" a record carries the
 * team of a collective and, with `symbolize`, the symbol of a global.
 * Records that cannot be written (the file failed, reported once) count as
 * dropped. `call` names the routine for a failure's message. */
static void write_pending(trace_buf_t *b, const char *call, int symbolize)
{
    const size_t n = __atomic_load_n(&b->n, __ATOMIC_ACQUIRE);
    if (b->flushed >= n)
        return;
    char path[4096];
    shoal_trace_pe_file(path, sizeof(path), shoal_tr.me);
    shoal_outfile_t f;
    int ok =
        shoal_outfile_open(&f, call, "SHOAL_TRACE", path, "a", &shoal_tr.pe_file_lost) == SHOAL_OK;
    for (size_t i = b->flushed; ok && i < n; i++) {
        const trace_event_t *e = &b->ev[i];
        shoal_outfile_printf(&f,
                             "{\"fn\":\"%s\",\"family\":%u,\"tid\":%u,\"t0\":%" PRIu64
                             ",\"t1\":%" PRIu64 ",\"peer\":%d,\"bytes\":%" PRIu64
                             ",\"addr\":%" PRIu64,
                             e->fn, e->family, e->tid, e->t0, e->t1, e->peer, e->bytes, e->addr);
        if (e->team != TRACE_TEAM_NONE) {
            char team[32];
            shoal_trace_team_name(team, sizeof(team), e->team);
            shoal_outfile_printf(&f, ",\"team\":\"%s\",\"team_npes\":%d", team, e->team_npes);
        }
        char sym[128] = "";
        if (symbolize)
            key_symbol(e->addr, sym, sizeof(sym));
        if (sym[0] != '\0')
            shoal_outfile_printf(&f, ",\"sym\":\"%s\"", sym);
        shoal_outfile_printf(&f, "}\n");
    }
    if (ok)
        ok = shoal_outfile_close(&f) == SHOAL_OK;
    if (!ok)
        b->dropped += n - b->flushed;
    b->flushed = n;
}

/* The owning thread's flush: writes its pending records and empties the
 * buffer (a full one, or once a second so that a job that is killed
 * leaves all but its last second behind). */
static void __attribute__((noinline, cold))
flush_own(trace_buf_t *b, const char *call, uint64_t now)
{
    pthread_mutex_lock(&shoal_tr.lock);
    if (!shoal_tr.pe_file_done)
        write_pending(b, call, 1);
    b->flushed = 0;
    __atomic_store_n(&b->n, 0, __ATOMIC_RELEASE);
    b->next_flush = now + TRACE_FLUSH_NS;
    pthread_mutex_unlock(&shoal_tr.lock);
}

/* Counts and stores one record (e with t0, fn, family, peer, bytes, addr
 * and team set); t1 is now. */
static void record(trace_event_t *e)
{
    if (!shoal_trace_on || !shoal_pcontrol_enabled())
        return;
    e->t1 = shoal_trace_now();
    trace_buf_t *b = thread_buf();
    if (b == NULL)
        return;
    if (my_caller != NULL && e->family < SHOAL_TRACE_NET)
        e->fn = my_caller;
    const unsigned family = e->family;
    const int peer = e->peer;
    if (family < SHOAL_TRACE_PROFILED) {
        b->calls[family]++;
        b->bytes[family] += e->bytes;
        b->ns[family] += e->t1 - e->t0;
        if (e->team == TRACE_TEAM_WORLD) {
            b->world_coll_ns += e->t1 - e->t0;
            b->world_coll_calls++;
        }
        if (peer >= 0 && peer < shoal_tr.npes && e->bytes > 0 && e->team == TRACE_TEAM_NONE) {
            if (family == SHOAL_TRACE_GET)
                b->in_bytes[peer] += e->bytes;
            else if (family == SHOAL_TRACE_PUT || family == SHOAL_TRACE_SIGNAL ||
                     family == SHOAL_TRACE_AMO)
                b->out_bytes[peer] += e->bytes;
        }
    }
    if (shoal_tr.dir == NULL)
        return;
    if (__builtin_expect(b->n == b->cap || e->t1 >= b->next_flush, 0) && b->cap > 0)
        flush_own(b, e->fn, e->t1);
    size_t n = b->n;
    if (n == b->cap) { /* no buffer (SHOAL_TRACE_EVENTS=0) */
        b->dropped++;
        return;
    }
    e->tid = (uint16_t)b->tid;
    b->ev[n] = *e;
    __atomic_store_n(&b->n, n + 1, __ATOMIC_RELEASE); /* a flusher reads the whole record */
}

void shoal_trace_record(const char *fn, shoal_trace_family_t family, uint64_t t0, int peer,
                        uint64_t bytes, const void *addr)
{
    if (!shoal_trace_on)
        return;
    trace_event_t e = {.t0 = t0,
                       .fn = fn,
                       .addr = symmetric_key(addr),
                       .bytes = bytes,
                       .peer = peer,
                       .family = (uint16_t)family,
                       .team = TRACE_TEAM_NONE};
    record(&e);
}

void shoal_trace_record_team(const char *fn, shoal_trace_family_t family, uint64_t t0,
                             const void *team, int set_size)
{
    const struct shoal_team *t = team;
    trace_event_t e = {.t0 = t0, .fn = fn, .peer = -1, .family = (uint16_t)family};
    if (t == NULL) {
        e.team = TRACE_TEAM_ACTIVE_SET;
        e.team_npes = set_size;
    } else {
        e.team = t == &shoal_team_world    ? TRACE_TEAM_WORLD
                 : t == &shoal_team_shared ? TRACE_TEAM_SHARED
                                           : TRACE_TEAM_SPLIT + t->slot;
        e.team_npes = t->set.size;
    }
    record(&e);
}

void shoal_trace_team_name(char *name, size_t len, int team)
{
    if (team == TRACE_TEAM_WORLD)
        snprintf(name, len, "SHMEM_TEAM_WORLD");
    else if (team == TRACE_TEAM_SHARED)
        snprintf(name, len, "SHMEM_TEAM_SHARED");
    else if (team == TRACE_TEAM_ACTIVE_SET)
        snprintf(name, len, "active set");
    else
        snprintf(name, len, "team %d", team - TRACE_TEAM_SPLIT);
}

uint64_t shoal_trace_net_begin(void)
{
    return shoal_trace_on && shoal_pcontrol_enabled() ? shoal_trace_now() : 0;
}

void shoal_trace_net_end(const char *what, uint64_t t0, int peer, uint64_t bytes)
{
    if (t0 == 0)
        return;
    trace_event_t e = {.t0 = t0,
                       .fn = what,
                       .bytes = bytes,
                       .peer = peer,
                       .family = SHOAL_TRACE_NET,
                       .team = TRACE_TEAM_NONE};
    record(&e);
}

uint64_t shoal_trace_order_begin(int *top_p)
{
    *top_p = 0;
    if (!shoal_trace_on || !shoal_pcontrol_enabled())
        return 0;
    *top_p = shoal_trace_enter();
    return shoal_trace_now();
}

void shoal_trace_order_end(const char *fn, const char *what, uint64_t t0, int top)
{
    if (t0 == 0)
        return;
    if (top)
        shoal_trace_leave();
    /* The program's quiet or fence; one that another routine makes without
     * a slice of its own (shmem_finalize, shmem_ctx_destroy) is the network's. */
    if (top && (strstr(fn, "quiet") != NULL || strstr(fn, "fence") != NULL)) {
        shoal_trace_record(fn, SHOAL_TRACE_ORDER, t0, -1, 0, NULL);
    } else {
        shoal_trace_net_end(what, t0, -1, 0);
    }
}

void shoal_trace_set_caller(const char *name)
{
    my_caller = name;
}

/* User range names, copied once and kept for the life of the process (a
 * record points at its name until the files are written, and a program
 * names few distinct ranges). Beyond TRACE_NAMES_MAX names, new ones are
 * recorded as "(range)". Under shoal_tr.lock. */
#define TRACE_NAMES_MAX 4096
static char *range_names[TRACE_NAMES_MAX];
static int nrange_names;

static const char *range_name(const char *name)
{
    const char *found = "(range)";
    if (name == NULL || name[0] == '\0')
        return "(unnamed range)";
    pthread_mutex_lock(&shoal_tr.lock);
    for (int i = 0; i < nrange_names; i++)
        if (strcmp(range_names[i], name) == 0) {
            found = range_names[i];
            goto out;
        }
    if (nrange_names < TRACE_NAMES_MAX) {
        /* Quotes and backslashes would break the JSON line; keep it printable. */
        char *copy = strndup(name, 95);
        if (copy != NULL) {
            for (char *c = copy; *c; c++)
                if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
                    *c = '_';
            range_names[nrange_names++] = copy;
            found = copy;
        }
    }
out:
    pthread_mutex_unlock(&shoal_tr.lock);
    return found;
}

void shoal_trace_range_begin(const char *fn, const char *name)
{
    if (my_nranges == TRACE_RANGES_MAX) {
        SHOAL_WARN("%s(\"%s\"): %d ranges are open on this thread already; this one is not "
                   "recorded (end ranges with shmemx_trace_end)",
                   fn, name ? name : "", TRACE_RANGES_MAX);
        my_nranges++; /* its end pops nothing */
        return;
    }
    if (my_nranges > TRACE_RANGES_MAX) {
        my_nranges++;
        return;
    }
    int recording = shoal_trace_on && shoal_tr.dir != NULL && shoal_pcontrol_enabled();
    my_ranges[my_nranges].name = recording ? range_name(name) : NULL;
    my_ranges[my_nranges].t0 = recording ? shoal_trace_now() : 0;
    my_nranges++;
}

void shoal_trace_range_end(const char *fn, const char *name)
{
    if (my_nranges == 0) {
        SHOAL_WARN("%s(\"%s\"): no range is open on this thread (each shmemx_trace_end "
                   "closes the latest shmemx_trace_begin)",
                   fn, name ? name : "");
        return;
    }
    if (--my_nranges >= TRACE_RANGES_MAX)
        return;
    const char *open = my_ranges[my_nranges].name;
    if (open != NULL && name != NULL && name[0] != '\0' && strncmp(open, name, 95) != 0 &&
        strcmp(open, "(range)") != 0)
        SHOAL_WARN("%s(\"%s\"): the innermost open range is \"%s\"; closing that one (ranges "
                   "nest: end them in the reverse order of their begins)",
                   fn, name, open);
    if (my_ranges[my_nranges].t0 == 0 || !shoal_trace_on || shoal_tr.dir == NULL)
        return;
    trace_event_t e = {.t0 = my_ranges[my_nranges].t0,
                       .fn = open,
                       .peer = -1,
                       .family = SHOAL_TRACE_RANGE,
                       .team = TRACE_TEAM_NONE};
    record(&e);
}

void shoal_trace_wait_one(const char *fn, const void *ivar, shoal_dtype_t dt, int cmp,
                          uint64_t value)
{
    SHOAL_TRACE_SCOPE(fn, SHOAL_TRACE_WAIT, -1, 0, ivar);
    shoal_wait_one(fn, ivar, dt, cmp, value);
}

void shoal_trace_pe_file(char *path, size_t len, int pe)
{
    snprintf(path, len, "%s/trace.%d.jsonl", shoal_tr.dir, pe);
}

/* The main program's load address (0 for a program that is not PIE). */
static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(uintptr_t *)arg = info->dlpi_addr;
    return 1; /* the first object is the main program */
}

/* The file's first line: what a merge after the fact (shoal-trace merge)
 * needs to know without the job: the job's size, the executable and
 * where its globals row starts in it (a link-time address), so that
 * "globals+0x88" can be named by the executable's symbol table, and this
 * PE's clock offset to PE 0's (trace_clock.c), which the merge adds to its
 * times. */
static int write_header(FILE *f)
{
    char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[len > 0 ? len : 0] = '\0';
    uintptr_t bias = 0;
    dl_iterate_phdr(main_bias, &bias);
    const shoal_route_row_t *g = &shoal.route.row[SHOAL_ROUTE_GLOBALS];
    fprintf(f, "{\"pe\":%d,\"npes\":%d,\"t_init\":%" PRIu64 ",\"exe\":\"", shoal_tr.me,
            shoal_tr.npes, shoal_trace_now());
    for (const char *c = exe; *c; c++)
        fprintf(f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    return fprintf(f,
                   "\",\"globals_vaddr\":%" PRIu64 ",\"globals_size\":%" PRIu64
                   ",\"clock_offset_ns\":%" PRId64 ",\"clock_rtt_ns\":%" PRIu64 "}\n",
                   g->size ? (uint64_t)(g->base - bias) : 0, g->size, shoal_tr.clock_offset_ns,
                   shoal_tr.clock_rtt_ns);
}

void shoal_trace_init(void)
{
    shoal_tr.dir = shoal_env.trace[0] != '\0' ? shoal_env.trace : NULL;
    /* Naming a CSV file asks for the profile too. */
    shoal_tr.profile = shoal_env.profile || shoal_env.profile_csv[0] != '\0';
    if (shoal_tr.dir == NULL && !shoal_tr.profile)
        return;
    shoal_tr.npes = SHOAL_NPES;
    shoal_tr.me = SHOAL_MY_PE;
    if (shoal_tr.dir != NULL)
        shoal_trace_clock_sync(); /* collective: before anything that may fail on one PE */
    if (shoal_tr.dir != NULL) {
        if (mkdir(shoal_tr.dir, 0777) != 0 && errno != EEXIST) {
            SHOAL_ERROR("shmem_init: SHOAL_TRACE=%s: cannot create the directory: %m; tracing "
                        "stays off (name a directory this user may write)",
                        shoal_tr.dir);
            shoal_tr.dir = NULL;
        } else {
            char path[4096];
            shoal_trace_pe_file(path, sizeof(path), shoal_tr.me);
            shoal_tr.pe_file_lost = shoal_tr.merge_lost = shoal_tr.pe_file_done = 0;
            FILE *f = fopen(path, "w");
            if (f == NULL || write_header(f) < 0 || fclose(f) != 0) {
                int err = errno;
                shoal_outfile_lost(path, 0,
                                   "shmem_init: SHOAL_TRACE=%s: cannot write %s: %s (errno %d); "
                                   "tracing stays off (name a directory this user may write, "
                                   "with room)",
                                   shoal_tr.dir, path, strerror(err), err);
                shoal_tr.dir = NULL;
            }
        }
    }
    if (shoal_tr.dir == NULL && !shoal_tr.profile)
        return;
    if (shoal_tr.dir != NULL && shoal.route.nrows > SHOAL_ROUTE_GLOBALS) {
        /* Loads the program's symbol table now, not while records are
         * written (which may be late in a failing process). */
        char name[8];
        size_t off;
        (void)shoal_symbol_of((const void *)shoal.route.row[SHOAL_ROUTE_GLOBALS].base, name,
                              sizeof(name), &off);
    }
    shoal_tr.t_init = shoal_trace_now();
    shoal_tr.gen++;
    shoal_tr.threads_refused = 0;
    shoal_trace_on = 1;
}

void shoal_trace_flush(void)
{
    if (!shoal_trace_on || shoal_tr.dir == NULL || my_buf == NULL || my_gen != shoal_tr.gen)
        return;
    flush_own(my_buf, "shmem_pcontrol", shoal_trace_now());
}

void shoal_trace_flush_all(void)
{
    if (!shoal_trace_on || shoal_tr.dir == NULL)
        return;
    /* Called from a signal handler too (a fault, which may have hit in a
     * flush of this very thread): tries the lock for up to 2 s rather than
     * waiting on it without bound. */
    for (int tries = 0; pthread_mutex_trylock(&shoal_tr.lock) != 0; tries++) {
        if (tries == 2000)
            return;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (shoal_tr.dir != NULL && !shoal_tr.pe_file_done)
        for (int i = 0; i < shoal_tr.nbufs; i++)
            write_pending(shoal_tr.bufs[i], "trace flush", 0);
    pthread_mutex_unlock(&shoal_tr.lock);
}

void shoal_trace_finalize(void)
{
    shoal.route_fast.npes = 0;
    if (!shoal_trace_on)
        return;
    shoal_trace_on = 0; /* finalize's own traffic is not the program's */
    if (shoal_tr.dir != NULL) {
        char path[4096];
        shoal_trace_pe_file(path, sizeof(path), shoal_tr.me);
        uint64_t dropped = 0;
        pthread_mutex_lock(&shoal_tr.lock);
        for (int i = 0; i < shoal_tr.nbufs; i++) {
            write_pending(shoal_tr.bufs[i], "shmem_finalize", 1);
            dropped += shoal_tr.bufs[i]->dropped;
        }
        shoal_outfile_t out;
        if (shoal_outfile_open(&out, "shmem_finalize", "SHOAL_TRACE", path, "a",
                               &shoal_tr.pe_file_lost) == SHOAL_OK) {
            shoal_outfile_printf(&out, "{\"dropped\":%" PRIu64 "}\n", dropped);
            shoal_outfile_close(&out);
        }
        shoal_tr.pe_file_done = 1;
        pthread_mutex_unlock(&shoal_tr.lock);
        if (dropped > 0)
            SHOAL_WARN("trace: PE %d dropped %" PRIu64 " records it could not write to %s",
                       shoal_tr.me, dropped, path);
        if (shoal_tr.threads_refused > 0)
            SHOAL_WARN("trace: PE %d recorded no calls of %" PRIu64 " threads past the first %d",
                       shoal_tr.me, shoal_tr.threads_refused, TRACE_THREADS_MAX);
    }
    if (shoal_tr.profile)
        shoal_profile_gather();
    if (shoal_tr.dir != NULL) {
        shoal_net_idle();
        shoal_bootstrap_barrier(&shoal.bs); /* every PE's file is complete */
        if (shoal_tr.me == 0)
            shoal_trace_merge_dir(shoal_tr.dir, shoal_tr.npes, "shmem_finalize",
                                  &shoal_tr.merge_lost);
    }
    pthread_mutex_lock(&shoal_tr.lock); /* a hang report's flush may be reading them */
    for (int i = 0; i < shoal_tr.nbufs; i++) {
        buf_free(shoal_tr.bufs[i]);
        shoal_tr.bufs[i] = NULL;
    }
    shoal_tr.nbufs = 0;
    my_buf = NULL; /* other threads notice by shoal_tr.gen */
    shoal_tr.dir = NULL;
    pthread_mutex_unlock(&shoal_tr.lock);
}
