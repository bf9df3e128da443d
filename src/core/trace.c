/*
 * The tracer and profiler (core/trace.h says what they record and how they
 * stay off the fast path). This file owns the per-thread record buffers and
 * counters and the per-PE trace files; at finalize it hands over to PE 0's
 * merge (trace_merge.c) and the profile (profile.c).
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
#include "core/trace.h"
#include "core/trace_internal.h"
#include "core/trace_merge.h"
#include "mem/route.h"
#include "transport/net_setup.h"
#include "util/env.h"
#include "util/log.h"
#include "util/outfile.h"

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

/* Appends buffer b's records [flushed, n) to this PE's file and marks them
 * written; the caller holds shoal_tr.lock. Records that cannot be written
 * (the file failed, reported once) count as dropped. `call` names the
 * routine for a failure's message. */
static void write_pending(trace_buf_t *b, const char *call)
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
                             ",\"addr\":%" PRIu64 "}\n",
                             e->fn, e->family, e->tid, e->t0, e->t1, e->peer, e->bytes, e->addr);
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
        write_pending(b, call);
    b->flushed = 0;
    __atomic_store_n(&b->n, 0, __ATOMIC_RELEASE);
    b->next_flush = now + TRACE_FLUSH_NS;
    pthread_mutex_unlock(&shoal_tr.lock);
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
    if (peer >= 0 && peer < shoal_tr.npes && bytes > 0) {
        if (family == SHOAL_TRACE_GET)
            b->in_bytes[peer] += bytes;
        else if (family == SHOAL_TRACE_PUT || family == SHOAL_TRACE_SIGNAL ||
                 family == SHOAL_TRACE_AMO)
            b->out_bytes[peer] += bytes;
    }
    if (shoal_tr.dir == NULL)
        return;
    if (__builtin_expect(b->n == b->cap || t1 >= b->next_flush, 0) && b->cap > 0)
        flush_own(b, fn, t1);
    size_t n = b->n;
    if (n == b->cap) { /* no buffer (SHOAL_TRACE_EVENTS=0) */
        b->dropped++;
        return;
    }
    b->ev[n] =
        (trace_event_t){t0, t1, fn, symmetric_key(addr), bytes, peer, family, (uint16_t)b->tid};
    __atomic_store_n(&b->n, n + 1, __ATOMIC_RELEASE); /* a flusher reads the whole record */
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
 * needs to know without the job: the job's size, and the executable and
 * where its globals row starts in it (a link-time address), so that
 * "globals+0x88" can be named by the executable's symbol table. */
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
    return fprintf(f, "\",\"globals_vaddr\":%" PRIu64 ",\"globals_size\":%" PRIu64 "}\n",
                   g->size ? (uint64_t)(g->base - bias) : 0, g->size);
}

void shoal_trace_init(void)
{
    shoal_tr.dir = shoal_env.trace[0] != '\0' ? shoal_env.trace : NULL;
    shoal_tr.profile = shoal_env.profile;
    if (shoal_tr.dir == NULL && !shoal_tr.profile)
        return;
    shoal_tr.npes = SHOAL_NPES;
    shoal_tr.me = SHOAL_MY_PE;
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
            write_pending(shoal_tr.bufs[i], "trace flush");
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
            write_pending(shoal_tr.bufs[i], "shmem_finalize");
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
