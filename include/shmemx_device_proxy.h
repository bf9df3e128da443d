/*
 * The proxy ring: how a kernel hands an operation on a PE of another host
 * to its PE's proxy thread (src/device/proxy.c), which issues it through
 * the network transport.
 *
 * Included by <shmemx_device.h>; a program never uses these names itself.
 * The layout is shared by host code (the proxy) and device code (the
 * producers), so it is plain C with fixed-width fields and no pointers.
 *
 * A ring is a header and `nslots` fixed-size slots in host memory that the
 * GPU maps. A producer takes a ticket t with an atomic add on `head` (any
 * number of threads produce at once), waits until slot t % nslots is free
 * for it (seq == t: flow control when the ring is full), fills the slot,
 * and publishes it with a release store seq = t + 1: that store is the
 * doorbell. The proxy takes slots in ticket order. A request nobody waits
 * for is freed by the proxy (seq = t + nslots); one whose producer waits
 * (gets, fetching atomics, quiet, blocking puts) is marked done = 1 with
 * its result in `value`, and the producer frees it after reading.
 *
 * Each PE also has an inbox of the same form in its host symmetric heap,
 * with a payload after every slot: other hosts' proxies fill it over the
 * network for operations on this PE's device heap, which only this host
 * can reach; this PE's proxy carries them out with a copy (proxy.c).
 */
#ifndef SHMEMX_DEVICE_PROXY_H
#define SHMEMX_DEVICE_PROXY_H

#include <stdint.h>

#define SHMEMX_DEV_PROXY_VERSION 1

/* Request kinds (low byte of `op`). */
enum {
    SHMEMX_DEV_PROXY_PUT = 1,        /* len bytes from src to (pe, dest) */
    SHMEMX_DEV_PROXY_GET = 2,        /* len bytes from (pe, src) to dest */
    SHMEMX_DEV_PROXY_PUT_SIGNAL = 3, /* a PUT, then the signal at (pe, aux): value */
    SHMEMX_DEV_PROXY_AMO = 4,        /* an atomic on (pe, dest): operand value, compare aux */
    SHMEMX_DEV_PROXY_QUIET = 5,      /* every earlier request is complete */
    SHMEMX_DEV_PROXY_FENCE = 6,      /* earlier requests ordered before later ones */
};

/* Atomic operations (second byte of `op`); SET and ADD also name the
 * signal update of a PUT_SIGNAL. */
enum {
    SHMEMX_DEV_PROXY_AMO_FETCH = 1,
    SHMEMX_DEV_PROXY_AMO_SET,
    SHMEMX_DEV_PROXY_AMO_SWAP,
    SHMEMX_DEV_PROXY_AMO_CSWAP,
    SHMEMX_DEV_PROXY_AMO_ADD,
    SHMEMX_DEV_PROXY_AMO_FETCH_ADD,
    SHMEMX_DEV_PROXY_AMO_AND,
    SHMEMX_DEV_PROXY_AMO_FETCH_AND,
    SHMEMX_DEV_PROXY_AMO_OR,
    SHMEMX_DEV_PROXY_AMO_FETCH_OR,
    SHMEMX_DEV_PROXY_AMO_XOR,
    SHMEMX_DEV_PROXY_AMO_FETCH_XOR,
    SHMEMX_DEV_PROXY_AMO_FADD,       /* floating add: float (size 4) or double (8) */
    SHMEMX_DEV_PROXY_AMO_FETCH_FADD, /* the same, fetching */
};

/* `op` = kind | amo << 8 | size << 16 | flags. */
#define SHMEMX_DEV_PROXY_WAIT (1u << 24)   /* the producer waits for done */
#define SHMEMX_DEV_PROXY_INLINE (1u << 25) /* a PUT's data, or a GET's result, is `value` */

#define SHMEMX_DEV_PROXY_OP(kind, amo, size, flags)                                                \
    ((uint32_t)(kind) | (uint32_t)(amo) << 8 | (uint32_t)(size) << 16 | (uint32_t)(flags))

/* One request: 64 bytes. In an inbox, dest/aux are offsets in the rows
 * named by `rows` (dest row | signal row << 8) rather than addresses. */
typedef struct {
    uint64_t seq; /* t: free for ticket t; t + 1: request t is ready */
    uint32_t op;
    int32_t pe;
    uint64_t dest;
    uint64_t src;
    uint64_t len;
    uint64_t aux;   /* signal address (PUT_SIGNAL), compare (CSWAP) */
    uint64_t value; /* signal, operand; the fetched value when done */
    uint32_t done;  /* 1: carried out (requests with SHMEMX_DEV_PROXY_WAIT) */
    uint32_t rows;
} shmemx_dev_proxy_slot_t;

/* The ring's header (128 bytes); slot i is at (char *)ring + 128 + i * stride. */
typedef struct shmemx_dev_proxy_ring {
    uint64_t head; /* tickets taken by producers */
    uint64_t pad0[7];
    uint64_t tail;    /* requests the proxy has carried out */
    uint64_t quieted; /* every request below this one is complete */
    uint32_t nslots, stride;
    uint32_t version, reserved;
    uint64_t pad1[4];
} shmemx_dev_proxy_ring_t;

#define SHMEMX_DEV_PROXY_HEADER 128u

/* ---- the producer side, in kernels ----------------------------------------
 * Compiled where <shmemx_device.h> includes this header (after its memory
 * primitives); the proxy itself (host code) sees only the layout above. */
#if defined(SHMEMX_DEV_FN)

/* Defined further on in the device header. */
SHMEMX_DEV_FN uint64_t shmemx_dev__wait(shmemx_dev_t d, const void *p, unsigned size, int sign,
                                        int cmp, uint64_t value, const char *call);

/* 1 when the proxy carries an access to addr on pe: a symmetric address
 * (it lies in a row) of a PE whose copy this GPU does not map. */
SHMEMX_DEV_FN int shmemx_dev__via_proxy(shmemx_dev_t d, const void *addr, int pe)
{
    if (d.proxy == NULL || (unsigned)pe >= (unsigned)d.npes)
        return 0;
    /* Over the table's fixed size, unrolled, as shmemx_dev__ptr_range does:
     * a loop bounded by d.nrows would copy the handle to local memory. */
    unsigned row = SHMEMX_DEV_ROWS;
    SHMEMX_DEV__UNROLL
    for (unsigned r = 0; r < SHMEMX_DEV_ROWS; r++)
        if (row == SHMEMX_DEV_ROWS && r < d.nrows &&
            (uint64_t)(uintptr_t)addr - d.row[r].base < d.row[r].size)
            row = r;
    return row != SHMEMX_DEV_ROWS && d.peer[(size_t)pe * SHMEMX_DEV_ROWS + row] == 0;
}

/* Files one request (one thread calls). A full ring is waited out within
 * the device wait timeout, whose report names the slot's ready word. For
 * requests with SHMEMX_DEV_PROXY_WAIT, waits until the proxy carried it
 * out and returns the slot's value. */
SHMEMX_DEV_FN uint64_t shmemx_dev__proxy_req(shmemx_dev_t d, uint32_t op, int pe, const void *dest,
                                             const void *src, uint64_t len, uint64_t aux,
                                             uint64_t value, const char *call)
{
    struct shmemx_dev_proxy_ring *r = d.proxy;
    const uint64_t n = shmemx_dev__ld_relaxed32(&r->nslots);
    const uint64_t t = shmemx_dev__atom_add64(&r->head, 1);
    shmemx_dev_proxy_slot_t *s =
        (shmemx_dev_proxy_slot_t *)((char *)r + SHMEMX_DEV_PROXY_HEADER +
                                    (t % n) * sizeof(shmemx_dev_proxy_slot_t));
    (void)shmemx_dev__wait(d, &s->seq, 8, 0, SHMEM_CMP_EQ, t, call);
    volatile shmemx_dev_proxy_slot_t *w = s;
    w->op = op;
    w->pe = pe;
    w->dest = (uint64_t)(uintptr_t)dest;
    w->src = (uint64_t)(uintptr_t)src;
    w->len = len;
    w->aux = aux;
    w->value = value;
    w->done = 0;
    shmemx_dev__st_release64(&s->seq, t + 1); /* the doorbell */
    if (!(op & SHMEMX_DEV_PROXY_WAIT))
        return 0;
    (void)shmemx_dev__wait(d, &s->done, 4, 0, SHMEM_CMP_NE, 0, call);
    const uint64_t v = w->value;
    shmemx_dev__st_release64(&s->seq, t + n); /* free for the next round */
    return v;
}

/* Where the route says "network": a put (with a signal when sig_op >= 0)
 * by the group of `scope`; its first thread files it once the group's
 * data is written. Blocking forms wait until the proxy took the data. */
SHMEMX_DEV_FN void shmemx_dev__proxy_put(shmemx_dev_t d, void *dest, const void *src, size_t n,
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                         int scope, int nbi, const char *call)
{
    const int dest_ok = n == 0 || shmemx_dev__via_proxy(d, dest, pe);
    if (!dest_ok || (sig_addr != NULL && !shmemx_dev__via_proxy(d, sig_addr, pe))) {
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_UNREACHABLE, call, pe,
                           dest_ok ? (const void *)sig_addr : dest, dest_ok ? 8u : (uint64_t)n, 0,
                           -1, 0);
        return;
    }
    shmemx_dev__sync_scope(scope);
    if (shmemx_dev__lane_of(scope) == 0) {
        if (scope != 0)
            shmemx_dev__fence();
        const uint32_t kind = sig_addr != NULL ? SHMEMX_DEV_PROXY_PUT_SIGNAL : SHMEMX_DEV_PROXY_PUT;
        const uint32_t amo = sig_addr == NULL             ? 0u
                             : sig_op == SHMEM_SIGNAL_ADD ? (uint32_t)SHMEMX_DEV_PROXY_AMO_ADD
                                                          : (uint32_t)SHMEMX_DEV_PROXY_AMO_SET;
        (void)shmemx_dev__proxy_req(
            d, SHMEMX_DEV_PROXY_OP(kind, amo, 0, nbi ? 0u : SHMEMX_DEV_PROXY_WAIT), pe, dest, src,
            n, (uint64_t)(uintptr_t)sig_addr, signal, call);
    }
    shmemx_dev__sync_scope(scope);
}

/* A get from another host by the group of `scope` (complete on return). */
SHMEMX_DEV_FN void shmemx_dev__proxy_get(shmemx_dev_t d, void *dest, const void *src, size_t n,
                                         int pe, int scope, const char *call)
{
    if (!shmemx_dev__via_proxy(d, src, pe)) {
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_UNREACHABLE, call, pe, src, (uint64_t)n, 0, -1, 0);
        return;
    }
    shmemx_dev__sync_scope(scope);
    if (shmemx_dev__lane_of(scope) == 0)
        (void)shmemx_dev__proxy_req(
            d, SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_GET, 0, 0, SHMEMX_DEV_PROXY_WAIT), pe, dest,
            src, n, 0, 0, call);
    shmemx_dev__sync_scope(scope);
}

/* One value of `size` bytes (p): carried in the request itself. */
SHMEMX_DEV_FN void shmemx_dev__proxy_p(shmemx_dev_t d, void *dest, uint64_t bits, unsigned size,
                                       int pe, const char *call)
{
    if (!shmemx_dev__via_proxy(d, dest, pe)) {
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_UNREACHABLE, call, pe, dest, size, 0, -1, 0);
        return;
    }
    (void)shmemx_dev__proxy_req(
        d, SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_PUT, 0, 0, SHMEMX_DEV_PROXY_INLINE), pe, dest, NULL,
        size, 0, bits, call);
}

/* One value of `size` bytes (g), returned. */
SHMEMX_DEV_FN uint64_t shmemx_dev__proxy_g(shmemx_dev_t d, const void *src, unsigned size, int pe,
                                           const char *call)
{
    if (!shmemx_dev__via_proxy(d, src, pe)) {
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_UNREACHABLE, call, pe, src, size, 0, -1, 0);
        return 0;
    }
    return shmemx_dev__proxy_req(
        d,
        SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_GET, 0, 0,
                            SHMEMX_DEV_PROXY_WAIT | SHMEMX_DEV_PROXY_INLINE),
        pe, NULL, src, size, 0, 0, call);
}

/* An atomic (SHMEMX_DEV_PROXY_AMO_*) on a word of 4 or 8 bytes; fetching
 * ones wait for their value, the others are only filed. */
SHMEMX_DEV_FN uint64_t shmemx_dev__proxy_amo(shmemx_dev_t d, void *dest, unsigned amo,
                                             unsigned size, uint64_t operand, uint64_t compare,
                                             int pe, const char *call)
{
    if (!shmemx_dev__via_proxy(d, dest, pe)) {
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_UNREACHABLE, call, pe, dest, size, 0, -1, 0);
        return 0;
    }
    const int fetching = amo != SHMEMX_DEV_PROXY_AMO_SET && amo != SHMEMX_DEV_PROXY_AMO_ADD &&
                         amo != SHMEMX_DEV_PROXY_AMO_AND && amo != SHMEMX_DEV_PROXY_AMO_OR &&
                         amo != SHMEMX_DEV_PROXY_AMO_XOR && amo != SHMEMX_DEV_PROXY_AMO_FADD;
    return shmemx_dev__proxy_req(
        d,
        SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_AMO, amo, size, fetching ? SHMEMX_DEV_PROXY_WAIT : 0u),
        pe, dest, NULL, 0, compare, operand, call);
}

/* Quiet: done when the proxy completed every request filed before it (on
 * the network and, for relayed ones, at their targets). Free when nothing
 * was filed since the last one. */
SHMEMX_DEV_FN void shmemx_dev__proxy_quiet(shmemx_dev_t d, const char *call)
{
    struct shmemx_dev_proxy_ring *r = d.proxy;
    if (r == NULL || shmemx_dev__ld_acquire64(&r->quieted) == shmemx_dev__ld_acquire64(&r->head))
        return;
    (void)shmemx_dev__proxy_req(
        d, SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_QUIET, 0, 0, SHMEMX_DEV_PROXY_WAIT), -1, NULL, NULL,
        0, 0, 0, call);
}

/* Fence: the proxy carries requests out in order, and orders the network's. */
SHMEMX_DEV_FN void shmemx_dev__proxy_fence(shmemx_dev_t d, const char *call)
{
    struct shmemx_dev_proxy_ring *r = d.proxy;
    if (r == NULL || shmemx_dev__ld_acquire64(&r->quieted) == shmemx_dev__ld_acquire64(&r->head))
        return;
    (void)shmemx_dev__proxy_req(d, SHMEMX_DEV_PROXY_OP(SHMEMX_DEV_PROXY_FENCE, 0, 0, 0), -1, NULL,
                                NULL, 0, 0, 0, call);
}

#endif /* SHMEMX_DEV_FN */

#endif
