/*
 * The flight recorder's part of a hang report (see hang_report.h): for a
 * PE that waits on one of its variables, the events of every PE of the
 * host that wrote that variable (a put, AMO or signal whose target is the
 * waiting PE and whose address range covers it), the last events of the
 * PEs that did, and a verdict: "PE 6 waits for sig >= 3 and sees 2: a
 * signal that only PE 5 sends; PE 5 last sent one 40.2 ms ago and is now in
 * shmem_barrier_all".
 *
 * Events name addresses as their issuer sees them; each is placed in a
 * route row through the issuer's published row bases, and two places match
 * when they share a row and their byte ranges meet (symmetric memory has
 * the same offsets on every PE). PEs of other hosts are not mapped, so
 * their rings are not read: what they sent shows only in their hosts'
 * reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmem.h>

#include "core/amo.h"
#include "core/flight.h"
#include "core/hang_report.h"
#include "core/hang_where.h"
#include "core/state.h"
#include "util/clock.h"
#include "util/cmp_names.h"

#define put shoal_hang_put
#define line shoal_hang_line

#define SHOWN 4 /* events listed per list */

typedef struct {
    int row;
    uint64_t off;
} place_t;

/* Where the `addr` of a PE whose header is `h` lies: its row and offset;
 * -1 when it is in neither symmetric row. */
static int place(const shoal_hang_pe_t *h, uint64_t addr, place_t *p)
{
    shoal_route_row_t rows[2];
    for (int r = 0; r < 2; r++)
        rows[r] = (shoal_route_row_t){.base = h->row_base[r], .size = h->row_size[r]};
    p->row = shoal_route_row_of(rows, 2, (const void *)(uintptr_t)addr, &p->off);
    return p->row >= 0 ? 0 : -1;
}

/* Bytes of the target's memory an event touched. */
static uint64_t ev_len(const shoal_flight_ev_t *e)
{
    switch ((shoal_flight_kind_t)e->kind) {
    case SHOAL_FLIGHT_PUT:
    case SHOAL_FLIGHT_GET:
        return e->arg ? e->arg : 1;
    case SHOAL_FLIGHT_AMO:
        return e->size ? e->size : 8;
    default:
        return 8;
    }
}

/* Whether an event of PE `p` wrote into [t.off, t.off + tlen) of PE `target`. */
static int writes_to(const shoal_flight_ev_t *e, const shoal_hang_pe_t *hp, int target, place_t t,
                     uint64_t tlen)
{
    if ((e->kind != SHOAL_FLIGHT_PUT && e->kind != SHOAL_FLIGHT_AMO &&
         e->kind != SHOAL_FLIGHT_SIGNAL) ||
        e->pe != target)
        return 0;
    place_t at;
    if (place(hp, e->addr, &at) != 0 || at.row != t.row)
        return 0;
    return at.off < t.off + tlen && t.off < at.off + ev_len(e);
}

/* The name of an address of PE `p`: "sig", "counts+8", "heap offset 64". */
static void addr_name(int p, const shoal_hang_pe_t *h, uint64_t addr, char *out, size_t cap)
{
    shoal_hang_where_t w = shoal_hang_locate(p, h, addr, 1);
    char fallback[64];
    if (w.row == SHOAL_ROUTE_HEAP && w.off >= shoal.internal_size)
        snprintf(fallback, sizeof(fallback), "heap offset %llu",
                 (unsigned long long)(w.off - shoal.internal_size));
    else if (w.row == SHOAL_ROUTE_HEAP)
        snprintf(fallback, sizeof(fallback), "Shoal's internal area");
    else
        snprintf(fallback, sizeof(fallback), "%#llx", (unsigned long long)addr);
    shoal_hang_short_name(&w, fallback, out, cap);
}

static void put_value(shoal_hang_out_t *o, uint64_t v, int is_signed)
{
    if (is_signed)
        put(o, "%lld", (long long)v);
    else
        put(o, "%llu", (unsigned long long)v);
}

static double ms_ago(uint64_t now, uint64_t t)
{
    return now > t ? (double)(now - t) / 1e6 : 0.0;
}

/* One event of PE p, in words. */
static void put_event(shoal_hang_out_t *o, int p, const shoal_hang_pe_t *h,
                      const shoal_flight_ev_t *e, uint64_t now)
{
    char name[128];
    addr_name(p, h, e->addr, name, sizeof(name));
    put(o, "PE %d %s", p, shoal_flight_fn_name(e));
    switch ((shoal_flight_kind_t)e->kind) {
    case SHOAL_FLIGHT_PUT:
        put(o, ": put %llu bytes to PE %d at %s", (unsigned long long)e->arg, e->pe, name);
        if (e->arg <= 8)
            put(o, " (value %llu)", (unsigned long long)e->value);
        break;
    case SHOAL_FLIGHT_GET:
        put(o, ": got %llu bytes from PE %d at %s", (unsigned long long)e->arg, e->pe, name);
        break;
    case SHOAL_FLIGHT_AMO:
        put(o, ": atomic on PE %d at %s, operand %llu", e->pe, name, (unsigned long long)e->value);
        break;
    case SHOAL_FLIGHT_SIGNAL:
        put(o, ": signal to PE %d at %s, %s %llu", e->pe, name,
            e->op == SHMEM_SIGNAL_ADD ? "SHMEM_SIGNAL_ADD" : "SHMEM_SIGNAL_SET",
            (unsigned long long)e->value);
        if (e->arg)
            put(o, " after %llu bytes of data", (unsigned long long)e->arg);
        break;
    case SHOAL_FLIGHT_WAIT_ENTER:
    case SHOAL_FLIGHT_WAIT_LEAVE:
        put(o, ": %s for %s %s ",
            e->kind == SHOAL_FLIGHT_WAIT_ENTER ? "began to wait" : "ended its wait", name,
            shoal_cmp_op(e->op));
        put_value(o, e->arg, e->is_signed);
        put(o, ", saw ");
        put_value(o, e->value, e->is_signed);
        break;
    case SHOAL_FLIGHT_BARRIER_ENTER:
        put(o, ": entered barrier #%llu of this PE (%llu PEs)", (unsigned long long)e->value,
            (unsigned long long)e->arg);
        break;
    case SHOAL_FLIGHT_BARRIER_LEAVE:
        put(o, ": left barrier #%llu of this PE", (unsigned long long)e->value);
        break;
    default:
        put(o, ": event %u", e->kind);
    }
    put(o, ", %.1f ms ago", ms_ago(now, e->t_ns));
}

/* The newest events (at most SHOWN) kept in time order, newest first. */
typedef struct {
    int n;
    int pe[SHOWN];
    shoal_flight_ev_t ev[SHOWN];
} newest_t;

static void keep_newest(newest_t *k, int p, const shoal_flight_ev_t *e)
{
    int at = k->n;
    while (at > 0 && k->ev[at - 1].t_ns < e->t_ns)
        at--;
    if (at >= SHOWN)
        return;
    int last = k->n < SHOWN ? k->n : SHOWN - 1;
    for (int i = last; i > at; i--) {
        k->ev[i] = k->ev[i - 1];
        k->pe[i] = k->pe[i - 1];
    }
    k->ev[at] = *e;
    k->pe[at] = p;
    if (k->n < SHOWN)
        k->n++;
}

/* shmem_signal_set and _add (and their shmem_ctx_ forms) are recorded as
 * AMOs, so that recording reads no string; here they become signals. */
static void normalize(shoal_flight_ev_t *e)
{
    if (e->kind != SHOAL_FLIGHT_AMO || (e->op != SHOAL_AMO_SET && e->op != SHOAL_AMO_ADD))
        return;
    const char *fn = shoal_flight_fn_name(e);
    if (strncmp(fn, "shmem_", 6) == 0)
        fn += 6;
    if (strncmp(fn, "ctx_", 4) == 0)
        fn += 4;
    if (strncmp(fn, "signal_", 7) != 0)
        return;
    e->kind = SHOAL_FLIGHT_SIGNAL;
    e->op = e->op == SHOAL_AMO_SET ? SHMEM_SIGNAL_SET : SHMEM_SIGNAL_ADD;
    e->arg = 0; /* no data */
}

/* Calls fn(arg, e) for each readable event of PE p's ring, oldest first. */
typedef void (*visit_fn)(void *arg, int p, const shoal_flight_ev_t *e);

static void visit(int p, visit_fn fn, void *arg)
{
    const shoal_flight_ring_t *r = shoal_flight_ring_of(p);
    if (r == NULL)
        return;
    const uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    const uint64_t first = head > r->cap ? head - r->cap : 0;
    shoal_flight_ev_t e;
    for (uint64_t i = first; i < head; i++)
        if (shoal_flight_read(r, i, &e) == 0) {
            normalize(&e);
            fn(arg, p, &e);
        }
}

/* What a wait of PE `target` watches, and who wrote it. */
typedef struct {
    int target;
    place_t t;
    uint64_t tlen;
    const shoal_hang_pe_t *th;
    newest_t writes;         /* the newest writes to it, any PE */
    int *count;              /* [npes]: writes per PE */
    shoal_flight_ev_t *last; /* [npes]: each PE's newest write to it */
    const shoal_hang_state_t *states;
} watch_t;

static void visit_write(void *arg, int p, const shoal_flight_ev_t *e)
{
    watch_t *w = arg;
    if (!writes_to(e, w->states[p].h, w->target, w->t, w->tlen))
        return;
    keep_newest(&w->writes, p, e);
    if (w->count[p]++ == 0 || e->t_ns >= w->last[p].t_ns)
        w->last[p] = *e;
}

static void visit_any(void *arg, int p, const shoal_flight_ev_t *e)
{
    keep_newest(arg, p, e);
}

/* Fills w for the wait r of PE target: 0, or -1 when its address is not
 * symmetric or nothing is recorded. Frees with watch_free. */
static int watch_init(watch_t *w, int target, const shoal_hang_state_t *states,
                      const shoal_hang_rec_t *r)
{
    memset(w, 0, sizeof(*w));
    w->target = target;
    w->states = states;
    w->th = states[target].h;
    if (r->kind != SHOAL_HANG_WAIT && r->kind != SHOAL_HANG_WAIT_SET)
        return -1;
    if (place(w->th, r->addr, &w->t) != 0)
        return -1;
    w->tlen = (uint64_t)(r->dt_size ? r->dt_size : 8) *
              (r->kind == SHOAL_HANG_WAIT_SET && r->nelems ? r->nelems : 1);
    w->count = calloc((size_t)SHOAL_NPES, sizeof(*w->count));
    w->last = calloc((size_t)SHOAL_NPES, sizeof(*w->last));
    if (w->count == NULL || w->last == NULL) {
        free(w->count);
        free(w->last);
        return -1;
    }
    for (int p = 0; p < SHOAL_NPES; p++)
        if (states[p].mapped)
            visit(p, visit_write, w);
    return 0;
}

static void watch_free(watch_t *w)
{
    free(w->count);
    free(w->last);
}

static int any_ring(const shoal_hang_state_t *states)
{
    for (int p = 0; p < SHOAL_NPES; p++)
        if (states[p].mapped && shoal_flight_ring_of(p) != NULL)
            return 1;
    return 0;
}

static int others_unmapped(const shoal_hang_state_t *states)
{
    for (int p = 0; p < SHOAL_NPES; p++)
        if (!states[p].mapped)
            return 1;
    return 0;
}

void shoal_hang_flight_wait(shoal_hang_out_t *o, int pe, const shoal_hang_state_t *states,
                            const shoal_hang_rec_t *r)
{
    if (!any_ring(states))
        return;
    watch_t w;
    if (watch_init(&w, pe, states, r) != 0)
        return;
    const uint64_t now = shoal_clock_ns();
    line(o);
    if (w.writes.n == 0) {
        put(o, "    flight record: no PE of this host wrote it in the events recorded%s\n",
            others_unmapped(states) ? " (PEs of other hosts are not visible here)" : "");
    } else {
        put(o, "    flight record: the last writes to it:\n");
        for (int i = 0; i < w.writes.n; i++) {
            line(o);
            put(o, "      ");
            put_event(o, w.writes.pe[i], states[w.writes.pe[i]].h, &w.writes.ev[i], now);
            put(o, "\n");
        }
    }
    /* The last events of each PE that wrote it (two at most), and of this one. */
    int shown = 0;
    for (int p = 0; p < SHOAL_NPES && shown < 2; p++) {
        if (w.count[p] == 0 || p == pe)
            continue;
        newest_t k = {0};
        visit(p, visit_any, &k);
        line(o);
        put(o, "    flight record: the last events of PE %d (which writes it):\n", p);
        for (int i = 0; i < k.n && i < 3; i++) {
            line(o);
            put(o, "      ");
            put_event(o, p, states[p].h, &k.ev[i], now);
            put(o, "\n");
        }
        shown++;
    }
    newest_t mine = {0};
    visit(pe, visit_any, &mine);
    if (mine.n > 0) {
        line(o);
        put(o, "    flight record: the last events of this PE:\n");
        for (int i = 0; i < mine.n && i < 3; i++) {
            line(o);
            put(o, "      ");
            put_event(o, pe, states[pe].h, &mine.ev[i], now);
            put(o, "\n");
        }
    }
    watch_free(&w);
}

/* "sig >= 3 and sees 2" for the wait r of PE pe. */
static void put_awaited(shoal_hang_out_t *o, int pe, const shoal_hang_state_t *s,
                        const shoal_hang_rec_t *r)
{
    char name[128];
    addr_name(pe, s->h, r->addr, name, sizeof(name));
    if (r->kind == SHOAL_HANG_WAIT_SET)
        put(o, "%llu elements of %s %s ", (unsigned long long)r->nelems, name,
            shoal_cmp_op(r->cmp));
    else
        put(o, "%s %s ", name, shoal_cmp_op(r->cmp));
    if (r->values)
        put(o, "cmp_values");
    else
        put_value(o, r->value, r->dt_signed);
    shoal_hang_where_t wh = shoal_hang_locate(pe, s->h, r->addr, r->dt_size ? r->dt_size : 8);
    uint64_t v;
    if (r->kind == SHOAL_HANG_WAIT &&
        shoal_hang_read_value(wh.ptr, r->dt_size, r->dt_signed, &v) == 0) {
        put(o, " and sees ");
        put_value(o, v, r->dt_signed);
    }
}

/* Each PE's newest signal to each PE of another host. */
typedef struct {
    shoal_flight_ev_t *last; /* [npes] */
    const shoal_hang_state_t *states;
} remote_t;

static void visit_remote(void *arg, int p, const shoal_flight_ev_t *e)
{
    remote_t *r = arg;
    (void)p;
    if (e->kind != SHOAL_FLIGHT_SIGNAL || e->pe < 0 || e->pe >= SHOAL_NPES ||
        r->states[e->pe].mapped)
        return;
    if (e->t_ns >= r->last[e->pe].t_ns)
        r->last[e->pe] = *e;
}

/* The waiting PE's host cannot read the rings of other hosts, so each host
 * says what its PEs last signalled to PEs elsewhere: with the other host's
 * report ("PE 6 waits for hang_sig >= 3 and sees 2; no PE of this host wrote
 * it"), the sender shows. */
static int put_remote_signals(shoal_hang_out_t *o, const shoal_hang_state_t *states, uint64_t now)
{
    int lines = 0;
    remote_t r = {calloc((size_t)SHOAL_NPES, sizeof(shoal_flight_ev_t)), states};
    if (r.last == NULL)
        return 0;
    for (int p = 0; p < SHOAL_NPES && lines < 8; p++) {
        if (!states[p].mapped)
            continue;
        memset(r.last, 0, (size_t)SHOAL_NPES * sizeof(shoal_flight_ev_t));
        visit(p, visit_remote, &r);
        for (int q = 0; q < SHOAL_NPES && lines < 8; q++) {
            if (r.last[q].kind != SHOAL_FLIGHT_SIGNAL)
                continue;
            line(o);
            put(o, "    flight record: the last signal to PE %d (another host): ", q);
            put_event(o, p, states[p].h, &r.last[q], now);
            put(o, "; PE %d is now ", p);
            shoal_hang_put_state(o, p, &states[p]);
            put(o, "\n");
            lines++;
        }
    }
    free(r.last);
    return lines;
}

int shoal_hang_flight_verdict(shoal_hang_out_t *o, const shoal_hang_state_t *states)
{
    if (!any_ring(states))
        return 0;
    const uint64_t now = shoal_clock_ns();
    int said = 0;
    for (int pe = 0; pe < SHOAL_NPES && said < 4; pe++) {
        const shoal_hang_state_t *s = &states[pe];
        if (!s->mapped || s->exited || s->nblocked == 0)
            continue;
        const shoal_hang_rec_t *r = &s->rec[0];
        watch_t w;
        if (watch_init(&w, pe, states, r) != 0)
            continue;
        int writers[SHOWN], nwriters = 0, total = 0, newest = -1;
        for (int p = 0; p < SHOAL_NPES; p++) {
            if (w.count[p] == 0)
                continue;
            total++;
            if (nwriters < SHOWN)
                writers[nwriters++] = p;
            if (newest < 0 || w.last[p].t_ns > w.last[newest].t_ns)
                newest = p;
        }
        line(o);
        put(o, "verdict: PE %d waits for ", pe);
        put_awaited(o, pe, s, r);
        if (total == 0) {
            put(o, "; no PE of this host wrote it in the events recorded (the last %u of each)",
                shoal_flight_ring_of(pe) ? shoal_flight_ring_of(pe)->cap : 0u);
            if (others_unmapped(states))
                put(o, "; PEs of other hosts are not visible here (see their hosts' reports)");
            put(o, "\n");
        } else if (total == 1) {
            const int p = writers[0];
            const shoal_flight_ev_t *e = &w.last[p];
            const int sig = e->kind == SHOAL_FLIGHT_SIGNAL;
            put(o,
                ": %s that only PE %d %s; PE %d last %s %.1f ms ago (%s, value %llu) "
                "and is now ",
                sig ? "a signal" : "an update", p, sig ? "sends" : "writes", p,
                sig ? "sent one" : "wrote it", ms_ago(now, e->t_ns), shoal_flight_fn_name(e),
                (unsigned long long)e->value);
            shoal_hang_put_state(o, p, &states[p]);
            put(o, "\n");
        } else {
            put(o, "; PEs ");
            for (int i = 0; i < nwriters; i++)
                put(o, "%s%d (%d times)", i ? ", " : "", writers[i], w.count[writers[i]]);
            if (total > nwriters)
                put(o, " and %d more", total - nwriters);
            put(o, " wrote it, the last PE %d %.1f ms ago", newest,
                ms_ago(now, w.last[newest].t_ns));
            for (int i = 0; i < nwriters; i++) {
                put(o, "; PE %d is now ", writers[i]);
                shoal_hang_put_state(o, writers[i], &states[writers[i]]);
            }
            put(o, "\n");
        }
        said++;
        watch_free(&w);
    }
    if (others_unmapped(states))
        said += put_remote_signals(o, states, now);
    return said;
}
