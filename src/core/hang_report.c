/*
 * Hang reports (see hang.h): turns the blocked-in records of this PE, and
 * those of the PEs of its host, into words.
 *
 * A report is built in a buffer and written with one write(2); every line
 * starts with "shoal[PE n] hang: " so that the lines of a job's PEs can be
 * told apart however they interleave, and the report ends with the line
 * SHOAL_HANG_REPORT_END, which shoalrun waits for before it ends a job that
 * timed out. Addresses a record holds are the owning PE's; hang_where.h
 * places and names them (a global's symbol, or the heap offset and the
 * allocation around it) and reads their current values.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <shmem.h>

#include "bootstrap/launcher_report.h"
#include "core/hang.h"
#include "core/hang_report.h"
#include "core/hang_where.h"
#include "core/state.h"
#include "core/team.h"
#include "core/trace.h"
#include "util/clock.h"
#include "util/cmp_names.h"
#include "util/env.h"

#define LIST_MAX 16 /* PEs named in one list before "..." */

typedef shoal_hang_out_t out_t;
typedef shoal_hang_state_t pe_state_t;

static void vput(out_t *o, const char *fmt, va_list ap)
{
    if (o->len >= sizeof(o->buf) - 1)
        return;
    int n = vsnprintf(o->buf + o->len, sizeof(o->buf) - o->len, fmt, ap);
    if (n > 0)
        o->len += (size_t)n < sizeof(o->buf) - o->len ? (size_t)n : sizeof(o->buf) - 1 - o->len;
}

static void put(out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(out_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(o, fmt, ap);
    va_end(ap);
}

void shoal_hang_put(out_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput(o, fmt, ap);
    va_end(ap);
}

/* Starts a line with the PE's prefix. */
static void line(out_t *o)
{
    put(o, "shoal[PE %d] hang: ", SHOAL_MY_PE);
}

void shoal_hang_line(out_t *o)
{
    line(o);
}

/* "pshmem_x" and "shmem_x" are one call to the reader. */
static const char *call_name(const char *fn)
{
    return strncmp(fn, "pshmem_", 7) == 0 ? fn + 1 : fn;
}

const char *shoal_hang_call_name(const char *fn)
{
    return call_name(fn);
}

static void put_value(out_t *o, uint64_t v, int is_signed)
{
    if (is_signed)
        put(o, "%lld", (long long)v);
    else
        put(o, "%llu", (unsigned long long)v);
}

/* ---- teams ---- */

static int set_pe(const shoal_hang_rec_t *r, int i)
{
    return r->set_start + i * r->set_stride;
}

static void team_name(out_t *o, int pe, const shoal_hang_pe_t *h, const shoal_hang_rec_t *r)
{
    if (r->kind == SHOAL_HANG_FINALIZE) {
        put(o, "the job [PEs 0..%d]", r->set_size - 1);
        return;
    }
    shoal_hang_where_t w = shoal_hang_locate(pe, h, r->psync, sizeof(uint64_t));
    const uint64_t slots = offsetof(shoal_internal_t, team_psync);
    if (w.row == SHOAL_ROUTE_HEAP && w.off >= slots && w.off < shoal.internal_size) {
        uint64_t slot = (w.off - slots) / sizeof(shoal_psync_t);
        if (slot == 0)
            put(o, "SHMEM_TEAM_WORLD");
        else if (slot == 1)
            put(o, "SHMEM_TEAM_SHARED");
        else
            put(o, "a team (slot %llu)", (unsigned long long)slot);
    } else {
        char name[128];
        shoal_hang_short_name(&w, "", name, sizeof(name));
        put(o, "an active set");
        if (name[0])
            put(o, " (pSync %s)", name);
    }
    if (r->set_stride == 1)
        put(o, " [PEs %d..%d]", r->set_start, set_pe(r, r->set_size - 1));
    else
        put(o, " [%d PEs from %d, stride %d]", r->set_size, r->set_start, r->set_stride);
}

static int barrier_rounds(int n)
{
    int rounds = 0;
    for (int dist = 1; dist < n; dist <<= 1)
        rounds++;
    return rounds;
}

/* ---- one record ---- */

/* The call with its arguments and the current value, on one line's worth:
 * "shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1) with flag = 0". */
static void put_call(out_t *o, int pe, const shoal_hang_pe_t *h, const shoal_hang_rec_t *r)
{
    const char *fn = call_name(r->fn);
    char name[128];
    uint64_t v;
    switch ((shoal_hang_kind_t)r->kind) {
    case SHOAL_HANG_WAIT: {
        shoal_hang_where_t w = shoal_hang_locate(pe, h, r->addr, r->dt_size);
        shoal_hang_short_name(&w, "ivar", name, sizeof(name));
        put(o, "%s(&%s, %s, ", fn, name, shoal_cmp_name(r->cmp));
        put_value(o, r->value, r->dt_signed);
        put(o, ")");
        if (shoal_hang_read_value(w.ptr, r->dt_size, r->dt_signed, &v) == 0) {
            put(o, " with %s%s = ", strcmp(name, "ivar") == 0 ? "*" : "", name);
            put_value(o, v, r->dt_signed);
        }
        break;
    }
    case SHOAL_HANG_WAIT_SET: {
        static const char *const modes[] = {"all", "any", "some"};
        shoal_hang_where_t w = shoal_hang_locate(pe, h, r->addr, r->dt_size);
        shoal_hang_short_name(&w, "ivars", name, sizeof(name));
        put(o, "%s(%s, nelems %llu, %s, ", fn, name, (unsigned long long)r->nelems,
            shoal_cmp_name(r->cmp));
        if (r->values)
            put(o, "cmp_values");
        else
            put_value(o, r->value, r->dt_signed);
        put(o, ") waiting for %s", modes[r->mode < 3 ? r->mode : 0]);
        if (w.ptr != NULL) {
            put(o, " with %s = {", name);
            size_t n = r->nelems < 8 ? r->nelems : 8;
            for (size_t i = 0; i < n; i++) {
                if (shoal_hang_read_value((const char *)w.ptr + i * r->dt_size, r->dt_size,
                                          r->dt_signed, &v) == 0) {
                    put(o, i ? ", " : "");
                    put_value(o, v, r->dt_signed);
                }
            }
            put(o, "%s}", r->nelems > n ? ", ..." : "");
        }
        break;
    }
    case SHOAL_HANG_BARRIER:
    case SHOAL_HANG_COUNT:
        put(o, "%s on ", fn);
        team_name(o, pe, h, r);
        if (r->kind == SHOAL_HANG_COUNT && r->root >= 0)
            put(o, " with root %d", r->root);
        break;
    case SHOAL_HANG_LOCK: {
        shoal_hang_where_t w = shoal_hang_locate(pe, h, r->addr, sizeof(long));
        shoal_hang_short_name(&w, "lock", name, sizeof(name));
        put(o, "%s(&%s) waiting for ticket %llu", fn, name, (unsigned long long)r->value);
        /* The lock word lives on PE 0. */
        if (shoal_hang_read_value(shoal_hang_on_pe(&w, 0), 8, 0, &v) == 0)
            put(o, ", ticket %u served now (%u handed out)", (unsigned)(uint32_t)v,
                (unsigned)(v >> 32));
        break;
    }
    case SHOAL_HANG_NET:
        put(o, "%s waiting for the network transport to complete this PE's operations", fn);
        break;
    case SHOAL_HANG_FINALIZE:
        put(o, "%s, in its barrier: waiting for every PE to call shmem_finalize", fn);
        break;
    default:
        put(o, "%s", fn);
    }
}

/* For a barrier or counter wait, what this PE waits for. */
static void put_sync_detail(out_t *o, int pe, const shoal_hang_pe_t *h, const shoal_hang_rec_t *r)
{
    shoal_hang_where_t w = shoal_hang_locate(pe, h, r->addr, sizeof(uint64_t));
    uint64_t v;
    int have = shoal_hang_read_value(w.ptr, 8, 0, &v) == 0;
    if (r->kind == SHOAL_HANG_BARRIER) {
        int n = r->set_size, dist = 1 << r->round;
        int from = set_pe(r, ((r->set_index - dist) % n + n) % n);
        put(o,
            "round %d of %d of the dissemination barrier: waiting for PE %d to arrive in "
            "that round",
            r->round + 1, barrier_rounds(n), from);
    } else {
        put(o, "waiting for its hand-over counter (psync word %d) to reach %llu", r->round,
            (unsigned long long)r->value);
    }
    if (have)
        put(o, " (counter now %llu)", (unsigned long long)v);
}

/* ---- the state of another PE ---- */

/* Whether a process of this host is stopped (state T or t in
 * /proc/PID/stat, after the name's closing parenthesis). */
static int is_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *end = strrchr(buf, ')');
    return end != NULL && end[1] == ' ' && (end[2] == 'T' || end[2] == 't');
}

static void read_state(int pe, pe_state_t *s)
{
    memset(s, 0, sizeof(*s));
    shoal_hang_pe_t *h = shoal_hang_pe(pe);
    if (h == NULL)
        return;
    s->mapped = 1;
    s->h = h;
    pid_t pid = (pid_t)__atomic_load_n(&h->pid, __ATOMIC_RELAXED);
    s->exited = pe != SHOAL_MY_PE && pid > 0 && kill(pid, 0) != 0 && errno == ESRCH;
    s->stopped = pe != SHOAL_MY_PE && pid > 0 && !s->exited && is_stopped(pid);
    s->finalized = __atomic_load_n(&h->finalizing, __ATOMIC_RELAXED) != 0;
    for (int t = 0; t < SHOAL_HANG_THREADS; t++) {
        shoal_hang_rec_t copy;
        if (shoal_hang_read(&h->thread[t], &copy) == 0 && copy.kind != SHOAL_HANG_NONE)
            s->rec[s->nblocked++] = copy;
    }
}

static int is_sync(const shoal_hang_rec_t *r)
{
    return r->kind == SHOAL_HANG_BARRIER || r->kind == SHOAL_HANG_COUNT ||
           r->kind == SHOAL_HANG_FINALIZE;
}

/* Whether two records wait on the same synchronization area. */
static int same_sync(int pa, const pe_state_t *a, const shoal_hang_rec_t *ra, int pb,
                     const pe_state_t *b, const shoal_hang_rec_t *rb)
{
    if (ra->kind == SHOAL_HANG_FINALIZE || rb->kind == SHOAL_HANG_FINALIZE)
        return ra->kind == rb->kind;
    shoal_hang_where_t wa = shoal_hang_locate(pa, a->h, ra->psync, 8),
                       wb = shoal_hang_locate(pb, b->h, rb->psync, 8);
    return wa.row >= 0 && wa.row == wb.row && wa.off == wb.off;
}

/* "in shmem_...(...)", "not blocked in Shoal", ... */
static void put_state(out_t *o, int pe, const pe_state_t *s)
{
    if (!s->mapped) {
        put(o, "on another host (its host's report says where it is)");
        return;
    }
    if (s->exited) {
        put(o, "has exited");
        return;
    }
    if (s->stopped)
        put(o, "stopped (not running); when stopped it was ");
    if (s->nblocked == 0) {
        put(o, s->finalized ? "has finished shmem_finalize"
                            : "not blocked in Shoal (running the program's own code, or in a "
                              "call that does not wait)");
        return;
    }
    for (int i = 0; i < s->nblocked; i++) {
        put(o, i ? "; and in " : "in ");
        put_call(o, pe, s->h, &s->rec[i]);
    }
}

void shoal_hang_put_state(out_t *o, int pe, const pe_state_t *s)
{
    put_state(o, pe, s);
}

static void put_pe_list(out_t *o, const int *pes, int n)
{
    for (int i = 0; i < n && i < LIST_MAX; i++)
        put(o, "%s%d", i ? ", " : "", pes[i]);
    if (n > LIST_MAX)
        put(o, ", ... (%d in all)", n);
}

/* Members of r's set on this host that are not in the same barrier or
 * collective, and those on other hosts. */
static void put_missing(out_t *o, int pe, const pe_state_t *me, const shoal_hang_rec_t *r,
                        pe_state_t *states)
{
    int missing[LIST_MAX + 1], nmissing = 0, remote[LIST_MAX + 1], nremote = 0, total = 0;
    for (int i = 0; i < r->set_size; i++) {
        int q = set_pe(r, i);
        if (q < 0 || q >= SHOAL_NPES)
            continue;
        const pe_state_t *s = &states[q];
        int in = 0;
        for (int k = 0; k < s->nblocked && s->mapped; k++)
            in |= is_sync(&s->rec[k]) && same_sync(pe, me, r, q, s, &s->rec[k]);
        if (in)
            continue;
        total++;
        if (!s->mapped) {
            if (nremote <= LIST_MAX)
                remote[nremote++] = q;
        } else if (nmissing <= LIST_MAX) {
            missing[nmissing++] = q;
        }
    }
    if (total == 0) {
        line(o);
        put(o, "    every PE of the team is in it\n");
        return;
    }
    for (int i = 0; i < nmissing; i++) {
        line(o);
        put(o, "    PE %d has not arrived: ", missing[i]);
        put_state(o, missing[i], &states[missing[i]]);
        put(o, "\n");
    }
    if (nremote > 0) {
        line(o);
        put(o, "    on other hosts, not visible here: PEs ");
        put_pe_list(o, remote, nremote);
        put(o, "\n");
    }
}

/* ---- the verdict ---- */

static void put_verdict(out_t *o, pe_state_t *states)
{
    int said = 0;
    /* A stopped PE holds up whatever waits for it, whatever the records say
     * (a collective it was stopped in looks complete). */
    for (int p = 0; p < SHOAL_NPES && said < 4; p++) {
        if (!states[p].mapped || !states[p].stopped)
            continue;
        line(o);
        put(o,
            "verdict: PE %d is not running: it is stopped (SIGSTOP, a debugger or job "
            "control); the PEs that wait for it go on only once it is continued "
            "(kill -CONT %d); when stopped it was ",
            p, (int)states[p].h->pid);
        pe_state_t was = states[p];
        was.stopped = 0;
        put_state(o, p, &was);
        put(o, "\n");
        said++;
    }
    if (said)
        return;
    /* Who writes what the waiting PEs wait for, from the flight records:
     * the cause, which the lines below show the effects of. */
    shoal_hang_flight_verdict(o, states);
    /* Barriers and collectives: one group per synchronization area. */
    for (int p = 0; p < SHOAL_NPES && said < 4; p++) {
        const pe_state_t *s = &states[p];
        for (int k = 0; k < s->nblocked; k++) {
            const shoal_hang_rec_t *r = &s->rec[k];
            if (!is_sync(r))
                continue;
            /* Only the group's first member (in PE order) speaks for it. */
            int first = 1;
            for (int q = 0; q < p && first; q++)
                for (int j = 0; j < states[q].nblocked; j++)
                    if (is_sync(&states[q].rec[j]) &&
                        same_sync(p, s, r, q, &states[q], &states[q].rec[j]))
                        first = 0;
            if (!first)
                continue;
            int in[LIST_MAX + 1], nin = 0, out[LIST_MAX + 1], nout = 0, nremote = 0;
            int other_root = -1, other_root_pe = -1, other_fn_pe = -1, other_fn_k = -1;
            for (int i = 0; i < r->set_size; i++) {
                int q = set_pe(r, i);
                if (q < 0 || q >= SHOAL_NPES)
                    continue;
                const pe_state_t *t = &states[q];
                int found = -1;
                for (int j = 0; j < t->nblocked && t->mapped; j++)
                    if (is_sync(&t->rec[j]) && same_sync(p, s, r, q, t, &t->rec[j]))
                        found = j;
                if (!t->mapped)
                    nremote++;
                else if (found < 0 && nout <= LIST_MAX)
                    out[nout++] = q;
                if (found < 0)
                    continue;
                const shoal_hang_rec_t *tr = &t->rec[found];
                if (nin <= LIST_MAX)
                    in[nin++] = q;
                if (strcmp(tr->fn, r->fn) != 0 && other_fn_pe < 0) {
                    other_fn_pe = q;
                    other_fn_k = found;
                }
                if (r->kind == SHOAL_HANG_COUNT && tr->kind == SHOAL_HANG_COUNT &&
                    tr->root != r->root && other_root_pe < 0) {
                    other_root_pe = q;
                    other_root = tr->root;
                }
            }
            line(o);
            put(o, "verdict: ");
            said++;
            if (other_root_pe >= 0) {
                put(o, "the PEs disagree on the root of %s on ", call_name(r->fn));
                team_name(o, p, s->h, r);
                put(o, ": PE %d passes root %d, PE %d passes root %d\n", p, r->root, other_root_pe,
                    other_root);
            } else if (other_fn_pe >= 0) {
                put(o, "the PEs are in different collectives on ");
                team_name(o, p, s->h, r);
                put(o, ": PE %d in %s, PE %d in %s\n", p, call_name(r->fn), other_fn_pe,
                    call_name(states[other_fn_pe].rec[other_fn_k].fn));
            } else if (nout > 0) {
                for (int i = 0; i < nout && i < 4; i++) {
                    if (i)
                        put(o, "; ");
                    put(o, "PE %d has not entered %s", out[i], call_name(r->fn));
                    if (r->kind != SHOAL_HANG_FINALIZE) {
                        put(o, " on ");
                        team_name(o, p, s->h, r);
                    }
                    put(o, "; it is ");
                    put_state(o, out[i], &states[out[i]]);
                }
                if (nout > 4)
                    put(o, "; and %d more PEs", nout - 4);
                put(o, "\n");
            } else if (nremote > 0) {
                put(o, "every PE of this host is in %s on ", call_name(r->fn));
                team_name(o, p, s->h, r);
                put(o,
                    "; %d PEs of it on other hosts have not all arrived (see their hosts' "
                    "reports)\n",
                    nremote);
            } else {
                put(o, "every PE of ");
                team_name(o, p, s->h, r);
                put(o,
                    " is in %s and they wait for each other: did every PE call the same "
                    "collectives in the same order with the same arguments?\n",
                    call_name(r->fn));
            }
            (void)in;
        }
    }
    if (said)
        return;
    /* Locks: who waits for each, and who holds it. */
    int blocked = 0;
    for (int p = 0; p < SHOAL_NPES && said < 4; p++) {
        const pe_state_t *s = &states[p];
        if (!s->mapped || s->nblocked == 0 || s->rec[0].kind != SHOAL_HANG_LOCK)
            continue;
        const shoal_hang_rec_t *r = &s->rec[0];
        shoal_hang_where_t w = shoal_hang_locate(p, s->h, r->addr, sizeof(long));
        int first = 1, waiters[LIST_MAX + 1], nwaiters = 0, holder = -1;
        for (int q = 0; q < SHOAL_NPES; q++) {
            const pe_state_t *t = &states[q];
            if (!t->mapped)
                continue;
            shoal_hang_where_t held = shoal_hang_locate(
                q, t->h, __atomic_load_n(&t->h->lock_held, __ATOMIC_RELAXED), sizeof(long));
            if (t->h->lock_held != 0 && held.row == w.row && held.off == w.off)
                holder = q;
            if (t->nblocked == 0 || t->rec[0].kind != SHOAL_HANG_LOCK)
                continue;
            shoal_hang_where_t tw = shoal_hang_locate(q, t->h, t->rec[0].addr, sizeof(long));
            if (tw.row != w.row || tw.off != w.off)
                continue;
            if (q < p)
                first = 0;
            if (nwaiters <= LIST_MAX)
                waiters[nwaiters++] = q;
        }
        if (!first)
            continue;
        char name[128];
        shoal_hang_short_name(&w, "the lock", name, sizeof(name));
        line(o);
        put(o, "verdict: PE%s ", nwaiters > 1 ? "s" : "");
        put_pe_list(o, waiters, nwaiters);
        put(o, " wait%s in %s for %s; ", nwaiters > 1 ? "" : "s", call_name(r->fn), name);
        if (holder >= 0) {
            put(o, "PE %d holds it and is ", holder);
            put_state(o, holder, &states[holder]);
        } else {
            put(o, "no PE of this host holds it");
        }
        put(o, "\n");
        said++;
        blocked++;
    }
    /* Otherwise: name the PEs that wait and those that do not. */
    int idle[LIST_MAX + 1], nidle = 0;
    for (int p = 0; p < SHOAL_NPES; p++) {
        const pe_state_t *s = &states[p];
        if (!s->mapped)
            continue;
        if (s->nblocked == 0 && !s->exited && !s->finalized && nidle <= LIST_MAX)
            idle[nidle++] = p;
        if (s->nblocked == 0 || blocked >= 4 || s->rec[0].kind == SHOAL_HANG_LOCK)
            continue;
        int holds = 0;
        for (int q = 0; q < SHOAL_NPES; q++)
            holds |= states[q].mapped && states[q].nblocked > 0 &&
                     states[q].rec[0].kind == SHOAL_HANG_LOCK && s->h->lock_held != 0;
        if (holds)
            continue; /* named as a lock's holder above */
        line(o);
        put(o, "verdict: PE %d is ", p);
        put_state(o, p, s);
        put(o, " and nothing it waits for has come");
        put(o, "\n");
        blocked++;
    }
    if (blocked == 0) {
        line(o);
        put(o, "verdict: no PE of this host is blocked in Shoal\n");
    } else if (nidle > 0) {
        line(o);
        put(o, "    not blocked in Shoal (the PEs that may owe the update): PEs ");
        put_pe_list(o, idle, nidle);
        put(o, "\n");
    }
}

/* ---- the report ---- */

static pe_state_t *states; /* [npes], the watchdog's scratch; only it reports */
static int states_npes;

void shoal_hang_report(shoal_hang_reason_t reason, int verdict)
{
    static out_t o;
    o.len = 0;
    shoal_trace_flush_all(); /* the trace survives the kill that may follow */
    const int me = SHOAL_MY_PE, npes = SHOAL_NPES;
    if (states_npes != npes) {
        free(states);
        states = calloc((size_t)npes, sizeof(*states));
        states_npes = states ? npes : 0;
        if (states == NULL)
            return;
    }
    for (int p = 0; p < npes; p++)
        read_state(p, &states[p]);
    const pe_state_t *s = &states[me];
    char host[64] = "?";
    gethostname(host, sizeof(host) - 1);
    line(&o);
    put(&o, "report of PE %d of %d (host %s, pid %ld), %s\n", me, npes, host, (long)getpid(),
        reason == SHOAL_HANG_TIMEOUT ? "a PE of this host passed SHOAL_HANG_TIMEOUT"
                                     : "on request (SIGUSR1)");
    const uint64_t now = shoal_clock_ns();
    for (int i = 0; i < s->nblocked; i++) {
        const shoal_hang_rec_t *r = &s->rec[i];
        line(&o);
        put(&o, "  thread %u%s ", r->owner, r->owner == (uint32_t)getpid() ? " (main)" : "");
        if (r->since_ns != 0 && now > r->since_ns)
            put(&o, "blocked for %.1f s in ", (double)(now - r->since_ns) / 1e9);
        else
            put(&o, "blocked in ");
        put_call(&o, me, s->h, r);
        put(&o, "\n");
        if (r->kind == SHOAL_HANG_WAIT || r->kind == SHOAL_HANG_WAIT_SET ||
            r->kind == SHOAL_HANG_LOCK) {
            shoal_hang_where_t w =
                shoal_hang_locate(me, s->h, r->addr, r->dt_size ? r->dt_size : 8);
            line(&o);
            put(&o, "    address %p: ", (void *)(uintptr_t)r->addr);
            char what[256];
            shoal_hang_describe(&w, r->addr, what, sizeof(what));
            put(&o, "%s", what);
            if (r->dt_size)
                put(&o, "; %u-byte %s", r->dt_size, r->dt_signed ? "signed" : "unsigned");
            put(&o, "\n");
            shoal_hang_flight_wait(&o, me, states, r);
        } else if (is_sync(r)) {
            if (r->kind == SHOAL_HANG_FINALIZE)
                put_missing(&o, me, s, r, states);
            if (r->kind == SHOAL_HANG_FINALIZE)
                continue;
            line(&o);
            put(&o, "    ");
            put_sync_detail(&o, me, s->h, r);
            put(&o, "\n");
            put_missing(&o, me, s, r, states);
        }
    }
    if (s->nblocked == 0) {
        line(&o);
        put(&o, "  no thread of this PE is blocked in Shoal (it runs the program's own code, or "
                "a call that does not wait)\n");
    }
    if (s->h->untracked) {
        line(&o);
        put(&o, "  (%u threads beyond the first %d are not tracked)\n", s->h->untracked,
            SHOAL_HANG_THREADS);
    }
    if (verdict) {
        line(&o);
        put(&o, "the PEs as this PE sees them:\n");
        for (int p = 0; p < npes; p++) {
            if (!states[p].mapped && npes > 64)
                continue;
            line(&o);
            put(&o, "  PE %d: ", p);
            put_state(&o, p, &states[p]);
            put(&o, "\n");
        }
        put_verdict(&o, states);
    }
    line(&o);
    put(&o, "%s %d\n", SHOAL_HANG_REPORT_END, me);
    if (o.len >= sizeof(o.buf) - 1)
        o.buf[o.len - 1] = '\n';
    for (size_t done = 0; done < o.len;) {
        ssize_t n = write(STDERR_FILENO, o.buf + done, o.len - done);
        if (n <= 0 && errno != EINTR)
            break;
        done += n > 0 ? (size_t)n : 0;
    }
}
