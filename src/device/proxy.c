/*
 * The device proxy (see proxy.h): this PE's ring, the thread that drains
 * it into the network transport, and the inbox where other hosts' proxies
 * leave operations on this PE's device heap.
 */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "device/cuda.h"
#include "device/device_heap.h"
#include "device/proxy.h"
#include "device/proxy_internal.h"
#include "transport/transport.h"
#include "util/env.h"
#include "util/log.h"
#include "util/thread.h"

/* Inbox slots: a 64-byte request and its data, 4 KiB in all. */
#define INBOX_STRIDE 4096u
#define INBOX_PAYLOAD (INBOX_STRIDE - sizeof(shmemx_dev_proxy_slot_t))
#define INBOX_SLOTS_MAX 64u

typedef shmemx_dev_proxy_slot_t slot_t;
typedef shmemx_dev_proxy_ring_t ring_t;

static struct {
    int up;
    shoal_bootstrap_t *bs;
    shoal_route_t *rt;
    const int *node;
    int me, npes;
    /* This PE's ring (kernels produce, the thread consumes). */
    ring_t *ring;
    size_t ring_bytes;
    int ring_registered;
    uint64_t tail;
    /* This PE's inbox (other hosts' proxies produce). */
    ring_t *inbox;
    shoal_remote_t inbox_at; /* where the inbox lies on every PE */
    uint64_t in_tail;
    /* [npes]: one past the last ticket relayed to each PE's inbox and not
     * yet known to be carried out; 0 when none. */
    uint64_t *relayed;
    int net_since_fence; /* network operations issued since the last fence */
    char *bounce;        /* a request for an inbox, with its data */
    char *stage;         /* a kernel's data on its way: bounce_bytes */
    size_t bounce_bytes;
    pthread_t thread;
    int thread_up, stop;
    uint64_t served; /* requests carried out (debug) */
} px;

static unsigned inbox_slots(void)
{
    unsigned n = shoal_env.device_proxy_slots;
    return n < 1 ? 1 : n > INBOX_SLOTS_MAX ? INBOX_SLOTS_MAX : n;
}

size_t shoal_proxy_inbox_bytes(void)
{
    return SHMEMX_DEV_PROXY_HEADER + (size_t)inbox_slots() * INBOX_STRIDE;
}

static slot_t *slot_at(ring_t *r, uint64_t t)
{
    return (slot_t *)((char *)r + SHMEMX_DEV_PROXY_HEADER + (t % r->nslots) * r->stride);
}

/* A failure here has no caller to return to: the job ends, naming it. */
void shoal_proxy_fatal(const char *fmt, ...)
{
    char msg[PROXY_MSG];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    SHOAL_ERROR("PE %d: the device proxy stopped: %s; ending the job", px.me, msg);
    px.bs->ops->abort(px.bs, 1, msg);
    _exit(1);
}

static void net_check(shoal_status_t s, const char *what, int pe)
{
    if (s != SHOAL_OK)
        shoal_proxy_fatal("%s for a kernel, to PE %d: %s", what, pe,
                          shoal_transport_strerror(shoal_net));
}

/* A pause in a loop that waits on memory or on the network. */
static void backoff(unsigned *idle)
{
    ++*idle;
    if (*idle < 64) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, *idle < 5000 ? 20000 : 500000};
    nanosleep(&ts, NULL);
}

/* ---- routing a kernel's target ---------------------------------------- */

typedef enum { TARGET_LOCAL, TARGET_NET, TARGET_RELAY } target_kind_t;

typedef struct {
    target_kind_t kind;
    void *ptr;         /* TARGET_LOCAL */
    shoal_remote_t at; /* TARGET_NET, TARGET_RELAY */
} target_t;

static target_t route(int pe, uint64_t addr, size_t len, const char *what)
{
    target_t t = {0};
    uint64_t off = 0;
    int r = (unsigned)pe < (unsigned)px.npes
                ? shoal_route_row_of(px.rt->row, px.rt->nrows, (const void *)(uintptr_t)addr, &off)
                : -1;
    if (r < 0 || len > px.rt->row[r].size - off)
        shoal_proxy_fatal(
            "a kernel's %s aimed at 0x%llx (%zu bytes) on PE %d, which is not symmetric "
            "memory of a PE of this job",
            what, (unsigned long long)addr, len, pe);
    uintptr_t base = shoal_route_peer_map(px.rt, pe, (unsigned)r);
    if (base != 0) {
        t.kind = TARGET_LOCAL;
        t.ptr = (void *)(base + off);
        return t;
    }
    if (px.node[pe] == px.node[px.me])
        shoal_proxy_fatal("a kernel's %s aimed at PE %d of this host, whose memory at 0x%llx this "
                          "process cannot map",
                          what, pe, (unsigned long long)addr);
    t.at.row = (unsigned)r;
    t.at.off = off;
    t.kind = px.rt->row[r].kind == SHOAL_MEM_HOST ? TARGET_NET : TARGET_RELAY;
    return t;
}

static shoal_amo_op_t net_amo(unsigned amo)
{
    static const shoal_amo_op_t map[] = {
        [SHMEMX_DEV_PROXY_AMO_FETCH] = SHOAL_AMO_FETCH,
        [SHMEMX_DEV_PROXY_AMO_SET] = SHOAL_AMO_SET,
        [SHMEMX_DEV_PROXY_AMO_SWAP] = SHOAL_AMO_SWAP,
        [SHMEMX_DEV_PROXY_AMO_CSWAP] = SHOAL_AMO_CSWAP,
        [SHMEMX_DEV_PROXY_AMO_ADD] = SHOAL_AMO_ADD,
        [SHMEMX_DEV_PROXY_AMO_FETCH_ADD] = SHOAL_AMO_FETCH_ADD,
        [SHMEMX_DEV_PROXY_AMO_AND] = SHOAL_AMO_AND,
        [SHMEMX_DEV_PROXY_AMO_FETCH_AND] = SHOAL_AMO_FETCH_AND,
        [SHMEMX_DEV_PROXY_AMO_OR] = SHOAL_AMO_OR,
        [SHMEMX_DEV_PROXY_AMO_FETCH_OR] = SHOAL_AMO_FETCH_OR,
        [SHMEMX_DEV_PROXY_AMO_XOR] = SHOAL_AMO_XOR,
        [SHMEMX_DEV_PROXY_AMO_FETCH_XOR] = SHOAL_AMO_FETCH_XOR,
    };
    return map[amo];
}

/* An atomic on another host's host memory. The transport has no floating
 * add: that one is a compare-and-swap loop over the network. */
static uint64_t amo_net(int pe, shoal_remote_t at, unsigned amo, unsigned size, uint64_t operand,
                        uint64_t compare)
{
    uint64_t fetched = 0;
    operand &= shoal_proxy_mask_of(size);
    compare &= shoal_proxy_mask_of(size);
    px.net_since_fence = 1;
    if (amo == SHMEMX_DEV_PROXY_AMO_FADD || amo == SHMEMX_DEV_PROXY_AMO_FETCH_FADD) {
        uint64_t old = 0;
        net_check(shoal_transport_amo(shoal_net, pe, at, SHOAL_AMO_FETCH, size, NULL, NULL, &old),
                  "a floating atomic add", pe);
        for (;;) {
            int writes;
            uint64_t v = shoal_proxy_amo_apply(amo, size, old, operand, 0, &writes), seen = 0;
            net_check(
                shoal_transport_amo(shoal_net, pe, at, SHOAL_AMO_CSWAP, size, &v, &old, &seen),
                "a floating atomic add", pe);
            if ((seen & shoal_proxy_mask_of(size)) == (old & shoal_proxy_mask_of(size)))
                return old;
            old = seen;
        }
    }
    const shoal_amo_op_t op = net_amo(amo);
    const int fetching = op == SHOAL_AMO_FETCH || op == SHOAL_AMO_SWAP || op == SHOAL_AMO_CSWAP ||
                         op == SHOAL_AMO_FETCH_ADD || op == SHOAL_AMO_FETCH_AND ||
                         op == SHOAL_AMO_FETCH_OR || op == SHOAL_AMO_FETCH_XOR;
    net_check(shoal_transport_amo(shoal_net, pe, at, op, size, &operand, &compare,
                                  fetching ? &fetched : NULL),
              "an atomic", pe);
    return fetched;
}

/* ---- relaying to another host's inbox ----------------------------------- */

static void serve_inbox(void);

static shoal_remote_t inbox_field(size_t off)
{
    shoal_remote_t at = px.inbox_at;
    at.off += off;
    return at;
}

static uint64_t get_word(int pe, shoal_remote_t at)
{
    uint64_t v = 0;
    net_check(shoal_transport_get(shoal_net, pe, &v, at, sizeof(v), 0), "reading a peer's inbox",
              pe);
    return v;
}

/* Waits until pe's proxy carried out everything relayed to it. */
static void relay_complete(int pe)
{
    if (px.relayed[pe] == 0)
        return;
    unsigned idle = 0;
    while (get_word(pe, inbox_field(offsetof(ring_t, tail))) < px.relayed[pe]) {
        serve_inbox(); /* that proxy may be waiting for this one */
        backoff(&idle);
    }
    px.relayed[pe] = 0;
}

static void relay_complete_all(void)
{
    for (int pe = 0; pe < px.npes; pe++)
        relay_complete(pe);
}

/* One request into pe's inbox: a ticket, a free slot, the slot and its data
 * with its ready word as the signal. Requests that are waited for (op has
 * SHMEMX_DEV_PROXY_WAIT) return the slot's value, and GET's data in
 * `get_to` (host memory); the others return 0 at once. */
static uint64_t relay(int pe, uint32_t op, shoal_remote_t dest, shoal_remote_t sig,
                      const void *payload, size_t len, uint64_t aux, uint64_t value, void *get_to)
{
    const unsigned nslots = inbox_slots();
    if (px.net_since_fence) { /* earlier network puts to pe land first */
        net_check(shoal_transport_fence(shoal_net), "a fence", pe);
        px.net_since_fence = 0;
    }
    uint64_t one = 1, t = 0;
    net_check(shoal_transport_amo(shoal_net, pe, inbox_field(offsetof(ring_t, head)),
                                  SHOAL_AMO_FETCH_ADD, 8, &one, NULL, &t),
              "taking a ticket of a peer's inbox", pe);
    const size_t slot_off = SHMEMX_DEV_PROXY_HEADER + (t % nslots) * INBOX_STRIDE;
    unsigned idle = 0;
    uint64_t seen;
    while ((seen = get_word(pe, inbox_field(slot_off))) != t) { /* the inbox is full */
        serve_inbox();
        backoff(&idle);
        if (seen > t)
            shoal_proxy_fatal("PE %d's inbox slot for ticket %llu says %llu", pe,
                              (unsigned long long)t, (unsigned long long)seen);
    }
    slot_t *s = (slot_t *)px.bounce;
    memset(s, 0, sizeof(*s));
    s->op = op;
    s->pe = px.me;
    s->dest = dest.off;
    s->rows = dest.row | sig.row << 8;
    s->len = len;
    s->aux = aux;
    s->value = value;
    if (payload != NULL && len > 0)
        memcpy(px.bounce + sizeof(*s), payload, len);
    const size_t body = sizeof(*s) - 8 + (payload != NULL ? len : 0);
    net_check(shoal_transport_put_signal(shoal_net, pe, inbox_field(slot_off + 8), px.bounce + 8,
                                         body, inbox_field(slot_off), t + 1, SHOAL_AMO_SET, 0),
              "writing a request into a peer's inbox", pe);
    if (!(op & SHMEMX_DEV_PROXY_WAIT)) {
        px.relayed[pe] = t + 1;
        return 0;
    }
    slot_t got;
    idle = 0;
    for (;;) {
        net_check(shoal_transport_get(shoal_net, pe, &got, inbox_field(slot_off), sizeof(got), 0),
                  "reading a peer's inbox", pe);
        if (got.done == 1)
            break;
        serve_inbox();
        backoff(&idle);
    }
    /* Read again: the value was written before `done`, but a get of the
     * whole slot may have read it before. */
    net_check(shoal_transport_get(shoal_net, pe, &got, inbox_field(slot_off), sizeof(got), 0),
              "reading a peer's inbox", pe);
    if (get_to != NULL)
        net_check(
            shoal_transport_get(shoal_net, pe, get_to, inbox_field(slot_off + sizeof(got)), len, 0),
            "reading a peer's inbox", pe);
    uint64_t next = t + nslots;
    net_check(shoal_transport_amo(shoal_net, pe, inbox_field(slot_off), SHOAL_AMO_SET, 8, &next,
                                  NULL, NULL),
              "freeing a slot of a peer's inbox", pe);
    /* Everything before this ticket is carried out too. */
    if (px.relayed[pe] != 0 && px.relayed[pe] <= t + 1)
        px.relayed[pe] = 0;
    return got.value;
}

/* ---- this PE's inbox ---------------------------------------------------- */

static void *inbox_local(unsigned row, uint64_t off, size_t len, int origin)
{
    if (row >= px.rt->nrows || off > px.rt->row[row].size || len > px.rt->row[row].size - off)
        shoal_proxy_fatal(
            "PE %d relayed a request for %zu bytes at offset %llu of memory row %u, which "
            "is not that big here",
            origin, len, (unsigned long long)off, row);
    return (void *)(px.rt->row[row].base + off);
}

/* Carries out one relayed request on this PE's memory. */
static void serve_inbox_slot(slot_t *s, uint64_t t)
{
    const uint32_t op = s->op;
    const unsigned kind = op & 0xff, amo = (op >> 8) & 0xff, size = (op >> 16) & 0xff;
    const char *payload = (const char *)(s + 1);
    const unsigned drow = s->rows & 0xff, srow = (s->rows >> 8) & 0xff;
    switch (kind) {
    case SHMEMX_DEV_PROXY_PUT:
    case SHMEMX_DEV_PROXY_PUT_SIGNAL:
        shoal_proxy_copy_local(inbox_local(drow, s->dest, s->len, s->pe), payload, s->len);
        if (kind == SHMEMX_DEV_PROXY_PUT_SIGNAL)
            (void)shoal_proxy_amo_local(inbox_local(srow, s->aux, 8, s->pe), amo, 8, s->value, 0);
        break;
    case SHMEMX_DEV_PROXY_GET:
        shoal_proxy_copy_local((void *)payload, inbox_local(drow, s->dest, s->len, s->pe), s->len);
        break;
    case SHMEMX_DEV_PROXY_AMO:
        s->value = shoal_proxy_amo_local(inbox_local(drow, s->dest, size, s->pe), amo, size,
                                         s->value, s->aux);
        break;
    default:
        shoal_proxy_fatal("PE %d relayed a request of unknown kind %u", s->pe, kind);
    }
    if (op & SHMEMX_DEV_PROXY_WAIT)
        __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&s->seq, t + px.inbox->nslots, __ATOMIC_RELEASE);
    __atomic_store_n(&px.inbox->tail, t + 1, __ATOMIC_RELEASE);
}

static void serve_inbox(void)
{
    for (;;) {
        slot_t *s = slot_at(px.inbox, px.in_tail);
        if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != px.in_tail + 1)
            return;
        serve_inbox_slot(s, px.in_tail);
        px.in_tail++;
    }
}

/* ---- this PE's ring ------------------------------------------------------ */

/* The local end of a request: a kernel's memory (through the driver), or
 * host memory of this process (the request's own value). */
static void copy_end(void *dst, const void *src, size_t len, int host)
{
    if (host)
        memcpy(dst, src, len);
    else
        shoal_proxy_copy_kernel(dst, src, len);
}

/* The data of a kernel's put, in host memory (the stage) for the network. */
static const void *stage_from(uint64_t src, size_t len, int host)
{
    copy_end(px.stage, (const void *)(uintptr_t)src, len, host);
    return px.stage;
}

static void do_put(int pe, uint64_t dest, uint64_t src, size_t len, int sig_amo, uint64_t sig_addr,
                   uint64_t signal, int host)
{
    const int with_signal = sig_amo != 0;
    if (len == 0 && !with_signal)
        return;
    target_t sg = with_signal ? route(pe, sig_addr, 8, "signal") : (target_t){0};
    /* A put of nothing with a signal: the signal alone (dest may be NULL). */
    target_t d = len == 0 ? sg : route(pe, dest, len, with_signal ? "put with signal" : "put");
    if (!with_signal)
        sg = d;
    if (d.kind == TARGET_LOCAL && sg.kind == TARGET_LOCAL) {
        copy_end(d.ptr, (const void *)(uintptr_t)src, len, host);
        if (with_signal)
            (void)shoal_proxy_amo_local(sg.ptr, (unsigned)sig_amo, 8, signal, 0);
        return;
    }
    if (d.kind == TARGET_NET && sg.kind == TARGET_NET) {
        /* In pieces of the bounce buffer; the signal goes with the last. */
        size_t done = 0;
        do {
            size_t n = len - done < px.bounce_bytes ? len - done : px.bounce_bytes;
            const void *data = stage_from(src + done, n, host);
            shoal_remote_t at = d.at;
            at.off += done;
            px.net_since_fence = 1;
            if (with_signal && done + n == len)
                net_check(shoal_transport_put_signal(
                              shoal_net, pe, at, data, n, sg.at, signal,
                              sig_amo == SHMEMX_DEV_PROXY_AMO_ADD ? SHOAL_AMO_ADD : SHOAL_AMO_SET,
                              0),
                          "a put with signal", pe);
            else
                net_check(shoal_transport_put(shoal_net, pe, at, data, n, 0), "a put", pe);
            done += n;
        } while (done < len);
        return;
    }
    if (d.kind == TARGET_LOCAL || sg.kind == TARGET_LOCAL)
        shoal_proxy_fatal(
            "a kernel's put with signal to PE %d has its data and its signal on different "
            "sides (one mapped here, one not)",
            pe);
    /* Relayed (a device heap of another host at either end): in pieces of
     * an inbox payload, the signal with the last. A host-memory end is
     * reached by the target's proxy as well, through its own mapping. */
    size_t done = 0;
    do {
        size_t n = len - done < INBOX_PAYLOAD ? len - done : INBOX_PAYLOAD;
        const void *data = stage_from(src + done, n, host);
        shoal_remote_t at = d.at;
        at.off += done;
        const int last = done + n == len;
        relay(pe,
              SHMEMX_DEV_PROXY_OP(with_signal && last ? SHMEMX_DEV_PROXY_PUT_SIGNAL
                                                      : SHMEMX_DEV_PROXY_PUT,
                                  sig_amo, 0, 0),
              at, sg.at, data, n, sg.at.off, signal, NULL);
        done += n;
    } while (done < len);
}

static void do_get(int pe, uint64_t dest, uint64_t src, size_t len, int host)
{
    if (len == 0)
        return;
    target_t s = route(pe, src, len, "get");
    if (s.kind == TARGET_LOCAL) {
        copy_end((void *)(uintptr_t)dest, s.ptr, len, host);
        return;
    }
    const size_t piece = s.kind == TARGET_NET ? px.bounce_bytes : INBOX_PAYLOAD;
    char *to = px.stage;
    for (size_t done = 0; done < len;) {
        size_t n = len - done < piece ? len - done : piece;
        shoal_remote_t at = s.at;
        at.off += done;
        if (s.kind == TARGET_NET)
            net_check(shoal_transport_get(shoal_net, pe, to, at, n, 0), "a get", pe);
        else
            relay(pe, SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_GET, 0, 0, SHMEMX_DEV_PROXY_WAIT), at,
                  at, NULL, n, 0, 0, to);
        copy_end((void *)(uintptr_t)(dest + done), to, n, host);
        done += n;
    }
}

static uint64_t do_amo(int pe, uint64_t dest, unsigned amo, unsigned size, uint64_t operand,
                       uint64_t compare)
{
    target_t d = route(pe, dest, size, "atomic");
    if (d.kind == TARGET_LOCAL)
        return shoal_proxy_amo_local(d.ptr, amo, size, operand, compare);
    if (d.kind == TARGET_NET)
        return amo_net(pe, d.at, amo, size, operand, compare);
    return relay(pe, SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_AMO, amo, size, SHMEMX_DEV_PROXY_WAIT),
                 d.at, d.at, NULL, 0, compare, operand, NULL);
}

static void do_quiet(void)
{
    net_check(shoal_transport_quiet(shoal_net), "a quiet", -1);
    px.net_since_fence = 0;
    relay_complete_all();
}

static void serve_slot(slot_t *s, uint64_t t)
{
    const uint32_t op = s->op;
    const unsigned kind = op & 0xff, amo = (op >> 8) & 0xff, size = (op >> 16) & 0xff;
    const int inl = (op & SHMEMX_DEV_PROXY_INLINE) != 0;
    uint64_t result = 0, value = s->value;
    if (inl && s->len > sizeof(value))
        shoal_proxy_fatal("a kernel's request carries %llu bytes in its 8-byte value",
                          (unsigned long long)s->len);
    switch (kind) {
    case SHMEMX_DEV_PROXY_PUT:
        do_put(s->pe, s->dest, inl ? (uint64_t)(uintptr_t)&value : s->src, s->len, 0, 0, 0, inl);
        break;
    case SHMEMX_DEV_PROXY_PUT_SIGNAL:
        do_put(s->pe, s->dest, s->src, s->len, (int)amo, s->aux, s->value, 0);
        break;
    case SHMEMX_DEV_PROXY_GET:
        do_get(s->pe, inl ? (uint64_t)(uintptr_t)&result : s->dest, s->src, s->len, inl);
        break;
    case SHMEMX_DEV_PROXY_AMO:
        result = do_amo(s->pe, s->dest, amo, size, s->value, s->aux);
        break;
    case SHMEMX_DEV_PROXY_QUIET:
        do_quiet();
        __atomic_store_n(&px.ring->quieted, t + 1, __ATOMIC_RELEASE);
        break;
    case SHMEMX_DEV_PROXY_FENCE:
        relay_complete_all();
        net_check(shoal_transport_fence(shoal_net), "a fence", -1);
        px.net_since_fence = 0;
        break;
    default:
        shoal_proxy_fatal("a kernel made a request of unknown kind %u (op 0x%x)", kind, op);
    }
    if (op & SHMEMX_DEV_PROXY_WAIT) {
        __atomic_store_n(&s->value, result, __ATOMIC_RELAXED);
        __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&s->seq, t + px.ring->nslots, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&px.ring->tail, t + 1, __ATOMIC_RELEASE);
    px.served++;
}

/* One pass over both rings; how many requests it carried out. */
static unsigned serve(void)
{
    unsigned n = 0;
    const uint64_t in0 = px.in_tail;
    serve_inbox();
    n += (unsigned)(px.in_tail - in0);
    for (;;) {
        slot_t *s = slot_at(px.ring, px.tail);
        if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != px.tail + 1)
            break;
        serve_slot(s, px.tail);
        px.tail++;
        n++;
    }
    return n;
}

static void *proxy_main(void *arg)
{
    (void)arg;
    shoal_thread_name("shoal-devproxy");
    unsigned idle = 0;
    while (!__atomic_load_n(&px.stop, __ATOMIC_ACQUIRE)) {
        if (serve() != 0)
            idle = 0;
        else
            backoff(&idle);
    }
    serve();
    return NULL;
}

/* ---- start and stop ------------------------------------------------------ */

static void ring_init(ring_t *r, unsigned nslots, unsigned stride)
{
    r->nslots = nslots;
    r->stride = stride;
    r->version = SHMEMX_DEV_PROXY_VERSION;
    for (unsigned i = 0; i < nslots; i++)
        slot_at(r, i)->seq = i;
}

static void undo(void)
{
    if (px.ring_registered) {
        shoal_CUcontext prev = shoal_device_ctx_enter();
        shoal_cu.cuMemHostUnregister(px.ring);
        shoal_device_ctx_leave(prev);
    }
    if (px.ring != NULL)
        munmap(px.ring, px.ring_bytes);
    free(px.relayed);
    free(px.bounce);
    memset(&px, 0, sizeof(px));
}

shoal_status_t shoal_proxy_start(const shoal_proxy_job_t *job, const char *fn,
                                 struct shmemx_dev_proxy_ring **ring_dev, char *msg, size_t msglen)
{
    char err[200];
    if (px.up) {
        snprintf(msg, msglen, "%s: the device proxy runs already", fn);
        return SHOAL_ERR_INVALID;
    }
    px.bs = job->bs;
    px.rt = job->rt;
    px.node = job->node;
    px.me = job->bs->rank;
    px.npes = job->bs->npes;
    const unsigned nslots = shoal_env.device_proxy_slots < 1 ? 1 : shoal_env.device_proxy_slots;
    px.ring_bytes = SHMEMX_DEV_PROXY_HEADER + (size_t)nslots * sizeof(slot_t);
    px.ring_bytes = (px.ring_bytes + 4095) / 4096 * 4096;
    void *ring =
        mmap(NULL, px.ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    px.relayed = calloc((size_t)px.npes, sizeof(*px.relayed));
    /* An inbox slot for a relayed request, and the stage for data. */
    px.bounce_bytes = INBOX_STRIDE;
    px.bounce = aligned_alloc(64, 2 * INBOX_STRIDE);
    px.stage = px.bounce != NULL ? px.bounce + INBOX_STRIDE : NULL;
    if (ring == MAP_FAILED || px.relayed == NULL || px.bounce == NULL) {
        snprintf(msg, msglen, "%s: no memory for the device proxy's ring (%zu bytes)", fn,
                 px.ring_bytes);
        if (ring != MAP_FAILED)
            munmap(ring, px.ring_bytes);
        undo();
        return SHOAL_ERR_NOMEM;
    }
    px.ring = ring;
    ring_init(px.ring, nslots, sizeof(slot_t));

    uint64_t off = 0;
    int row = shoal_route_row_of(px.rt->row, px.rt->nrows, job->inbox, &off);
    if (row != SHOAL_ROUTE_HEAP) {
        snprintf(msg, msglen, "%s: the device proxy's inbox at %p is not in the symmetric heap", fn,
                 job->inbox);
        undo();
        return SHOAL_ERR_INVALID;
    }
    px.inbox = job->inbox;
    px.inbox_at = (shoal_remote_t){(unsigned)row, off};
    ring_init(px.inbox, inbox_slots(), INBOX_STRIDE);

    shoal_CUcontext prev = shoal_device_ctx_enter();
    shoal_CUresult r = shoal_cu.cuMemHostRegister(px.ring, px.ring_bytes,
                                                  SHOAL_CU_MEMHOSTREGISTER_PORTABLE |
                                                      SHOAL_CU_MEMHOSTREGISTER_DEVICEMAP);
    shoal_CUdeviceptr dptr = 0;
    if (r == SHOAL_CUDA_SUCCESS) {
        px.ring_registered = 1;
        r = shoal_cu.cuMemHostGetDevicePointer(&dptr, px.ring, 0);
    }
    shoal_device_ctx_leave(prev);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen, "%s: cannot make the device proxy's ring reachable from the GPU: %s",
                 fn, shoal_cuda_strerror("cuMemHostRegister", r, err, sizeof(err)));
        undo();
        return SHOAL_ERR_SYSTEM;
    }
    px.stop = 0;
    if (pthread_create(&px.thread, NULL, proxy_main, NULL) != 0) {
        snprintf(msg, msglen, "%s: cannot start the device proxy thread: %m", fn);
        undo();
        return SHOAL_ERR_SYSTEM;
    }
    px.thread_up = 1;
    px.up = 1;
    SHOAL_DEBUG("device proxy: ring of %u slots, inbox of %u slots of %u bytes", nslots,
                inbox_slots(), INBOX_STRIDE);
    *ring_dev = (struct shmemx_dev_proxy_ring *)(uintptr_t)dptr;
    return SHOAL_OK;
}

void shoal_proxy_quiesce(void)
{
    if (!px.up)
        return;
    /* A quiet filed like a kernel's: done when every earlier request is
     * complete, relayed ones included. Kernels are over by now, so this
     * thread's CPU atomics on the ticket counter race with nobody's. */
    ring_t *r = px.ring;
    const uint64_t t = __atomic_fetch_add(&r->head, 1, __ATOMIC_ACQ_REL);
    slot_t *s = slot_at(r, t);
    unsigned idle = 0;
    while (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != t)
        backoff(&idle);
    s->op = SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_QUIET, 0, 0, SHMEMX_DEV_PROXY_WAIT);
    s->done = 0;
    __atomic_store_n(&s->seq, t + 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
        backoff(&idle);
    __atomic_store_n(&s->seq, t + r->nslots, __ATOMIC_RELEASE);
}

void shoal_proxy_stop(void)
{
    if (!px.up)
        return;
    if (px.thread_up) {
        __atomic_store_n(&px.stop, 1, __ATOMIC_RELEASE);
        pthread_join(px.thread, NULL);
    }
    SHOAL_DEBUG("device proxy: %llu requests carried out", (unsigned long long)px.served);
    undo();
}
