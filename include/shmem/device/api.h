/*
 * The device API's functions, written once for every target: routes,
 * copies, signals, atomics, waits, barriers and events, over the
 * primitives that <shmem/device/ptx.h> (a GPU) or <shmem/device/cpu.h> (a
 * host compiler) defines. Included by <shmemx_device.h> after those; not a
 * header to include by itself. The public names and what they promise are
 * documented in <shmemx_device.h>.
 */
#ifndef SHMEM_DEVICE_API_H
#define SHMEM_DEVICE_API_H

/* Files a report for the host and stops the kernel. The first thread to
 * fail writes the report; any other that fails meanwhile counts itself in
 * `others` and waits (up to a second) until that report is complete before
 * it stops: on a GPU its trap would end the kernel, and with it the
 * winner's half-written report. */
SHMEMX_DEV_FN void shmemx_dev__report(shmemx_dev_t d, uint32_t code, const char *call, int target,
                                      const void *addr, uint64_t expected, uint64_t last, int cmp,
                                      uint64_t waited_ns)
{
    shmemx_dev_report_t *r = &d.mailbox->report;
    if (shmemx_dev__atom_cas32(&r->state, 0, 1) == 0) {
        volatile shmemx_dev_report_t *w = r;
        w->code = code;
        w->pe = d.my_pe;
        w->target = target;
        shmemx_dev__position(w);
        w->addr = (uint64_t)(uintptr_t)addr;
        w->expected = expected;
        w->last = last;
        w->cmp = cmp;
        w->waited_ns = waited_ns;
        unsigned i = 0;
        for (; call[i] != '\0' && i < sizeof(r->call) - 1; i++)
            w->call[i] = call[i];
        w->call[i] = '\0';
        shmemx_dev__quiet();
        shmemx_dev__st_release32(&r->state, 2);
    } else {
        (void)shmemx_dev__atom_add32(&r->others, 1);
        const uint64_t t0 = shmemx_dev__now_ns();
        unsigned spins = 0;
        while (shmemx_dev__ld_acquire32(&r->state) != 2 && shmemx_dev__now_ns() - t0 < 1000000000u)
            shmemx_dev__pause(&spins);
    }
    shmemx_dev__halt();
}

/* Where this GPU sees PE pe's copy of [addr, addr + n), or NULL when the
 * PE is out of reach or the range does not lie whole inside one row (the
 * host's data path checks the whole range too). The loop runs over the
 * table's fixed size, unrolled, so every row is read at a constant index:
 * a loop bounded by d.nrows would index the by-value handle at run time,
 * which copies all of it to local memory on every lookup. */
SHMEMX_DEV_FN void *shmemx_dev__ptr_range(shmemx_dev_t d, const void *addr, size_t n, int pe)
{
    if ((unsigned)pe >= (unsigned)d.npes)
        return NULL;
    const uint64_t a = (uint64_t)(uintptr_t)addr;
    unsigned row = SHMEMX_DEV_ROWS;
    uint64_t off = 0;
    SHMEMX_DEV__UNROLL
    for (unsigned r = 0; r < SHMEMX_DEV_ROWS; r++) {
        const uint64_t o = a - d.row[r].base;
        if (r < d.nrows && o < d.row[r].size && (uint64_t)n <= d.row[r].size - o) {
            row = r;
            off = o;
        }
    }
    if (row == SHMEMX_DEV_ROWS)
        return NULL;
    const uint64_t base = d.peer[(size_t)pe * SHMEMX_DEV_ROWS + row];
    return base != 0 ? (void *)(uintptr_t)(base + off) : NULL;
}

SHMEMX_DEV_FN void *shmemx_dev_ptr(shmemx_dev_t d, const void *addr, int pe)
{
    return shmemx_dev__ptr_range(d, addr, 1, pe);
}

/* The same, for the data path: what cannot be reached is reported (with
 * the length, in the report's `expected`). */
SHMEMX_DEV_FN void *shmemx_dev__route(shmemx_dev_t d, const void *addr, size_t n, int pe,
                                      const char *call)
{
    void *p = shmemx_dev__ptr_range(d, addr, n, pe);
    if (p == NULL)
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_UNREACHABLE, call, pe, addr, (uint64_t)n, 0, -1, 0);
    return p;
}

SHMEMX_DEV_FN int shmemx_dev_my_pe(shmemx_dev_t d)
{
    return d.my_pe;
}

SHMEMX_DEV_FN int shmemx_dev_n_pes(shmemx_dev_t d)
{
    return d.npes;
}

SHMEMX_DEV_FN int shmemx_dev_team_my_pe(shmemx_dev_t d, shmemx_dev_team_t t)
{
    int rel = d.my_pe - t.start;
    if (t.stride == 0 || rel < 0 || rel % t.stride != 0 || rel / t.stride >= t.size)
        return -1;
    return rel / t.stride;
}

SHMEMX_DEV_FN int shmemx_dev_team_n_pes(shmemx_dev_team_t t)
{
    return t.size;
}

/* The world PE of team member i. */
SHMEMX_DEV_FN int shmemx_dev_team_pe(shmemx_dev_team_t t, int i)
{
    return t.start + i * t.stride;
}

/* ---- bulk copies: lane `lane` of `nlanes` moves its share ---------------- */

SHMEMX_DEV_FN void shmemx_dev__copy(void *dst, const void *src, size_t n, unsigned lane,
                                    unsigned nlanes)
{
    char *d = (char *)dst;
    const char *s = (const char *)src;
    size_t i = 0;
    if ((((uintptr_t)d | (uintptr_t)s) & 15) == 0) {
        /* Four 16-byte loads in flight per lane, then their stores: one
         * load at a time leaves a remote or host link mostly idle. */
        const size_t nv = n / sizeof(shmemx_dev__vec_t);
        shmemx_dev__vec_t *dv = (shmemx_dev__vec_t *)d;
        const shmemx_dev__vec_t *sv = (const shmemx_dev__vec_t *)s;
        const size_t group = 4 * (size_t)nlanes, rounds = nv / group;
        for (size_t r = 0; r < rounds; r++) {
            const size_t k = r * group + lane;
            const shmemx_dev__vec_t v0 = sv[k], v1 = sv[k + nlanes], v2 = sv[k + 2 * nlanes],
                                    v3 = sv[k + 3 * nlanes];
            dv[k] = v0;
            dv[k + nlanes] = v1;
            dv[k + 2 * nlanes] = v2;
            dv[k + 3 * nlanes] = v3;
        }
        for (size_t k = rounds * group + lane; k < nv; k += nlanes)
            dv[k] = sv[k];
        i = nv * sizeof(shmemx_dev__vec_t);
    } else if ((((uintptr_t)d | (uintptr_t)s) & 7) == 0) {
        const size_t nw = n / 8;
        for (size_t k = lane; k < nw; k += nlanes)
            ((uint64_t *)d)[k] = ((const uint64_t *)s)[k];
        i = nw * 8;
    }
    for (size_t k = i + lane; k < n; k += nlanes)
        d[k] = s[k];
}

/* Scope: 0 thread, 1 warp, 2 block. */
SHMEMX_DEV_FN unsigned shmemx_dev__lane_of(int scope)
{
    return scope == 0 ? 0u : scope == 1 ? shmemx_dev__lane() : shmemx_dev__tid();
}

SHMEMX_DEV_FN unsigned shmemx_dev__lanes_of(int scope)
{
    return scope == 0 ? 1u : scope == 1 ? shmemx_dev__warp_size() : shmemx_dev__nthreads();
}

SHMEMX_DEV_FN void shmemx_dev__sync_scope(int scope)
{
    if (scope == 1)
        shmemx_dev__sync_warp();
    else if (scope == 2)
        shmemx_dev__sync_block();
}

/* The proxy for PEs of other hosts (needs the primitives above). */
#include <shmemx_device_proxy.h>

SHMEMX_DEV_FN void shmemx_dev__put(shmemx_dev_t d, void *dest, const void *src, size_t n, int pe,
                                   int scope, const char *call)
{
    if (n != 0 && shmemx_dev_ptr(d, dest, pe) == NULL) { /* another host: the proxy */
        shmemx_dev__proxy_put(d, dest, src, n, NULL, 0, 0, pe, scope, 0, call);
        return;
    }
    if (n == 0) { /* nothing to move: dest may be anything, even NULL */
        shmemx_dev__sync_scope(scope);
        return;
    }
    void *to = shmemx_dev__route(d, dest, n, pe, call);
    shmemx_dev__copy(to, src, n, shmemx_dev__lane_of(scope), shmemx_dev__lanes_of(scope));
    shmemx_dev__sync_scope(scope);
}

SHMEMX_DEV_FN void shmemx_dev__get(shmemx_dev_t d, void *dest, const void *src, size_t n, int pe,
                                   int scope, const char *call)
{
    if (n != 0 && shmemx_dev_ptr(d, src, pe) == NULL) { /* another host: the proxy */
        shmemx_dev__proxy_get(d, dest, src, n, pe, scope, call);
        return;
    }
    if (n == 0) {
        shmemx_dev__sync_scope(scope);
        return;
    }
    const void *from = shmemx_dev__route(d, src, n, pe, call);
    shmemx_dev__copy(dest, from, n, shmemx_dev__lane_of(scope), shmemx_dev__lanes_of(scope));
    shmemx_dev__sync_scope(scope);
}

/* The signal after the data, one system fence in all: a thread's own
 * signal is a release store or add; a group's (already synchronized by the
 * copy, so lane 0 has seen every lane's data) is one fence by lane 0, then
 * a relaxed store or add (a release there would fence a second time). */
SHMEMX_DEV_FN void shmemx_dev__signal(shmemx_dev_t d, uint64_t *sig_addr, uint64_t signal,
                                      int sig_op, int pe, int scope, const char *call)
{
    if (shmemx_dev__lane_of(scope) == 0) {
        uint64_t *sig = (uint64_t *)shmemx_dev__route(d, sig_addr, sizeof(uint64_t), pe, call);
        if (scope == 0 && sig_op == SHMEM_SIGNAL_ADD)
            shmemx_dev__add_release64(sig, signal);
        else if (scope == 0)
            shmemx_dev__st_release64(sig, signal);
        else {
            shmemx_dev__fence();
            if (sig_op == SHMEM_SIGNAL_ADD)
                (void)shmemx_dev__atom_add64(sig, signal);
            else
                shmemx_dev__st_relaxed64(sig, signal);
        }
    }
    shmemx_dev__sync_scope(scope);
}

/* A put with a signal: to another host, one request to the proxy, so that
 * the signal follows the data there too. */
SHMEMX_DEV_FN void shmemx_dev__put_signal(shmemx_dev_t d, void *dest, const void *src, size_t n,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                          int scope, int nbi, const char *call)
{
    if (shmemx_dev_ptr(d, sig_addr, pe) == NULL) {
        shmemx_dev__proxy_put(d, dest, src, n, sig_addr, signal, sig_op, pe, scope, nbi, call);
        return;
    }
    shmemx_dev__put(d, dest, src, n, pe, scope, call);
    shmemx_dev__signal(d, sig_addr, signal, sig_op, pe, scope, call);
}

#define SHMEMX_DEV__SCOPES(X)                                                                      \
    X(, 0)                                                                                         \
    X(_warp, 1)                                                                                    \
    X(_block, 2)

#define SHMEMX_DEV__MEM_FNS(suffix, scope)                                                         \
    SHMEMX_DEV_FN void shmemx_dev_putmem##suffix(shmemx_dev_t d, void *dest, const void *src,      \
                                                 size_t nbytes, int pe)                            \
    {                                                                                              \
        shmemx_dev__put(d, dest, src, nbytes, pe, scope, "shmemx_dev_putmem" #suffix);             \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_getmem##suffix(shmemx_dev_t d, void *dest, const void *src,      \
                                                 size_t nbytes, int pe)                            \
    {                                                                                              \
        shmemx_dev__get(d, dest, src, nbytes, pe, scope, "shmemx_dev_getmem" #suffix);             \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_putmem_nbi##suffix(shmemx_dev_t d, void *dest, const void *src,  \
                                                     size_t nbytes, int pe)                        \
    {                                                                                              \
        shmemx_dev__put(d, dest, src, nbytes, pe, scope, "shmemx_dev_putmem_nbi" #suffix);         \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_getmem_nbi##suffix(shmemx_dev_t d, void *dest, const void *src,  \
                                                     size_t nbytes, int pe)                        \
    {                                                                                              \
        shmemx_dev__get(d, dest, src, nbytes, pe, scope, "shmemx_dev_getmem_nbi" #suffix);         \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_putmem_signal##suffix(                                           \
        shmemx_dev_t d, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,            \
        uint64_t signal, int sig_op, int pe)                                                       \
    {                                                                                              \
        shmemx_dev__put_signal(d, dest, src, nbytes, sig_addr, signal, sig_op, pe, scope, 0,       \
                               "shmemx_dev_putmem_signal" #suffix);                                \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_putmem_signal_nbi##suffix(                                       \
        shmemx_dev_t d, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,            \
        uint64_t signal, int sig_op, int pe)                                                       \
    {                                                                                              \
        shmemx_dev__put_signal(d, dest, src, nbytes, sig_addr, signal, sig_op, pe, scope, 1,       \
                               "shmemx_dev_putmem_signal_nbi" #suffix);                            \
    }
SHMEMX_DEV__SCOPES(SHMEMX_DEV__MEM_FNS)

#define SHMEMX_DEV__TYPED_SCOPE(T, N, suffix, scope)                                               \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put##suffix(shmemx_dev_t d, T *dest, const T *src,         \
                                                    size_t nelems, int pe)                         \
    {                                                                                              \
        shmemx_dev__put(d, dest, src, nelems * sizeof(T), pe, scope,                               \
                        "shmemx_dev_" #N "_put" #suffix);                                          \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get##suffix(shmemx_dev_t d, T *dest, const T *src,         \
                                                    size_t nelems, int pe)                         \
    {                                                                                              \
        shmemx_dev__get(d, dest, src, nelems * sizeof(T), pe, scope,                               \
                        "shmemx_dev_" #N "_get" #suffix);                                          \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_nbi##suffix(shmemx_dev_t d, T *dest, const T *src,     \
                                                        size_t nelems, int pe)                     \
    {                                                                                              \
        shmemx_dev__put(d, dest, src, nelems * sizeof(T), pe, scope,                               \
                        "shmemx_dev_" #N "_put_nbi" #suffix);                                      \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get_nbi##suffix(shmemx_dev_t d, T *dest, const T *src,     \
                                                        size_t nelems, int pe)                     \
    {                                                                                              \
        shmemx_dev__get(d, dest, src, nelems * sizeof(T), pe, scope,                               \
                        "shmemx_dev_" #N "_get_nbi" #suffix);                                      \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_signal##suffix(shmemx_dev_t d, T *dest, const T *src,  \
                                                           size_t nelems, uint64_t *sig_addr,      \
                                                           uint64_t signal, int sig_op, int pe)    \
    {                                                                                              \
        shmemx_dev__put_signal(d, dest, src, nelems * sizeof(T), sig_addr, signal, sig_op, pe,     \
                               scope, 0, "shmemx_dev_" #N "_put_signal" #suffix);                  \
    }

#define SHMEMX_DEV__TYPED(T, N, unused)                                                            \
    SHMEMX_DEV__TYPED_SCOPE(T, N, , 0)                                                             \
    SHMEMX_DEV__TYPED_SCOPE(T, N, _warp, 1)                                                        \
    SHMEMX_DEV__TYPED_SCOPE(T, N, _block, 2)                                                       \
    SHMEMX_DEV_FN void shmemx_dev_##N##_p(shmemx_dev_t d, T *dest, T value, int pe)                \
    {                                                                                              \
        T *to_ = (T *)shmemx_dev__ptr_range(d, dest, sizeof(T), pe);                               \
        if (to_ != NULL) {                                                                         \
            *(volatile T *)to_ = value;                                                            \
        } else {                                                                                   \
            uint64_t w_ = 0;                                                                       \
            memcpy(&w_, &value, sizeof(T));                                                        \
            shmemx_dev__proxy_p(d, dest, w_, sizeof(T), pe, "shmemx_dev_" #N "_p");                \
        }                                                                                          \
    }                                                                                              \
    SHMEMX_DEV_FN T shmemx_dev_##N##_g(shmemx_dev_t d, const T *src, int pe)                       \
    {                                                                                              \
        const T *from_ = (const T *)shmemx_dev__ptr_range(d, src, sizeof(T), pe);                  \
        if (from_ != NULL)                                                                         \
            return *(const volatile T *)from_;                                                     \
        const uint64_t w_ = shmemx_dev__proxy_g(d, src, sizeof(T), pe, "shmemx_dev_" #N "_g");     \
        T v_;                                                                                      \
        memcpy(&v_, &w_, sizeof(T));                                                               \
        return v_;                                                                                 \
    }
SHMEMX_DEV_RMA_TYPES(SHMEMX_DEV__TYPED, )

/* ---- atomics -------------------------------------------------------------
 * On the bits: 4- or 8-byte types go through the 32- or 64-bit atom. */

/* The read-modify-writes of shmemx_dev__*_rmw. */
enum {
    SHMEMX_DEV__ADD,
    SHMEMX_DEV__AND,
    SHMEMX_DEV__OR,
    SHMEMX_DEV__XOR,
    SHMEMX_DEV__EXCH,
    SHMEMX_DEV__CAS,
};

/* Bit-exact conversions between a 4- or 8-byte value and its word. */
#define SHMEMX_DEV__WORD_FNS(T, N, unused)                                                         \
    SHMEMX_DEV_FN uint64_t shmemx_dev__##N##_bits(T v)                                             \
    {                                                                                              \
        if (sizeof(T) == 8) {                                                                      \
            uint64_t w;                                                                            \
            memcpy(&w, &v, 8);                                                                     \
            return w;                                                                              \
        }                                                                                          \
        uint32_t w;                                                                                \
        memcpy(&w, &v, 4);                                                                         \
        return w;                                                                                  \
    }                                                                                              \
    SHMEMX_DEV_FN T shmemx_dev__##N##_value(uint64_t w)                                            \
    {                                                                                              \
        T v;                                                                                       \
        if (sizeof(T) == 8) {                                                                      \
            memcpy(&v, &w, 8);                                                                     \
        } else {                                                                                   \
            uint32_t w32 = (uint32_t)w;                                                            \
            memcpy(&v, &w32, 4);                                                                   \
        }                                                                                          \
        return v;                                                                                  \
    }                                                                                              \
    SHMEMX_DEV_FN uint64_t shmemx_dev__##N##_rmw(void *p, int op, uint64_t v, uint64_t cond)       \
    {                                                                                              \
        if (sizeof(T) == 8) {                                                                      \
            switch (op) {                                                                          \
            case SHMEMX_DEV__ADD:                                                                  \
                return shmemx_dev__atom_add64(p, v);                                               \
            case SHMEMX_DEV__AND:                                                                  \
                return shmemx_dev__atom_and64(p, v);                                               \
            case SHMEMX_DEV__OR:                                                                   \
                return shmemx_dev__atom_or64(p, v);                                                \
            case SHMEMX_DEV__XOR:                                                                  \
                return shmemx_dev__atom_xor64(p, v);                                               \
            case SHMEMX_DEV__EXCH:                                                                 \
                return shmemx_dev__atom_exch64(p, v);                                              \
            default:                                                                               \
                return shmemx_dev__atom_cas64(p, cond, v);                                         \
            }                                                                                      \
        }                                                                                          \
        switch (op) {                                                                              \
        case SHMEMX_DEV__ADD:                                                                      \
            return shmemx_dev__atom_add32(p, (uint32_t)v);                                         \
        case SHMEMX_DEV__AND:                                                                      \
            return shmemx_dev__atom_and32(p, (uint32_t)v);                                         \
        case SHMEMX_DEV__OR:                                                                       \
            return shmemx_dev__atom_or32(p, (uint32_t)v);                                          \
        case SHMEMX_DEV__XOR:                                                                      \
            return shmemx_dev__atom_xor32(p, (uint32_t)v);                                         \
        case SHMEMX_DEV__EXCH:                                                                     \
            return shmemx_dev__atom_exch32(p, (uint32_t)v);                                        \
        default:                                                                                   \
            return shmemx_dev__atom_cas32(p, (uint32_t)cond, (uint32_t)v);                         \
        }                                                                                          \
    }                                                                                              \
    SHMEMX_DEV_FN uint64_t shmemx_dev__##N##_load(const void *p)                                   \
    {                                                                                              \
        return sizeof(T) == 8 ? shmemx_dev__ld_relaxed64(p) : shmemx_dev__ld_relaxed32(p);         \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev__##N##_store(void *p, uint64_t w)                                \
    {                                                                                              \
        if (sizeof(T) == 8)                                                                        \
            shmemx_dev__st_relaxed64(p, w);                                                        \
        else                                                                                       \
            shmemx_dev__st_relaxed32(p, (uint32_t)w);                                              \
    }
SHMEM_EXTENDED_AMO_TYPES(SHMEMX_DEV__WORD_FNS, )

/* An atomic through the route: here, the word's rmw; on another host, the
 * proxy (code: SHMEMX_DEV_PROXY_AMO_*). */
#define SHMEMX_DEV__ROUTED_AMO(T, N, unused)                                                       \
    SHMEMX_DEV_FN uint64_t shmemx_dev__##N##_amo(shmemx_dev_t d, const T *dest, int pe,            \
                                                 unsigned code, uint64_t v, uint64_t cond,         \
                                                 const char *call)                                 \
    {                                                                                              \
        void *p = shmemx_dev__ptr_range(d, dest, sizeof(T), pe);                                   \
        if (p == NULL)                                                                             \
            return shmemx_dev__proxy_amo(d, (void *)dest, code, sizeof(T), v, cond, pe, call);     \
        switch (code) {                                                                            \
        case SHMEMX_DEV_PROXY_AMO_FETCH:                                                           \
            return shmemx_dev__##N##_load(p);                                                      \
        case SHMEMX_DEV_PROXY_AMO_SET:                                                             \
            shmemx_dev__##N##_store(p, v);                                                         \
            return 0;                                                                              \
        case SHMEMX_DEV_PROXY_AMO_SWAP:                                                            \
            return shmemx_dev__##N##_rmw(p, SHMEMX_DEV__EXCH, v, 0);                               \
        case SHMEMX_DEV_PROXY_AMO_CSWAP:                                                           \
            return shmemx_dev__##N##_rmw(p, SHMEMX_DEV__CAS, v, cond);                             \
        case SHMEMX_DEV_PROXY_AMO_ADD:                                                             \
        case SHMEMX_DEV_PROXY_AMO_FETCH_ADD:                                                       \
            return shmemx_dev__##N##_rmw(p, SHMEMX_DEV__ADD, v, 0);                                \
        case SHMEMX_DEV_PROXY_AMO_AND:                                                             \
        case SHMEMX_DEV_PROXY_AMO_FETCH_AND:                                                       \
            return shmemx_dev__##N##_rmw(p, SHMEMX_DEV__AND, v, 0);                                \
        case SHMEMX_DEV_PROXY_AMO_OR:                                                              \
        case SHMEMX_DEV_PROXY_AMO_FETCH_OR:                                                        \
            return shmemx_dev__##N##_rmw(p, SHMEMX_DEV__OR, v, 0);                                 \
        default:                                                                                   \
            return shmemx_dev__##N##_rmw(p, SHMEMX_DEV__XOR, v, 0);                                \
        }                                                                                          \
    }
SHMEM_EXTENDED_AMO_TYPES(SHMEMX_DEV__ROUTED_AMO, )

#define SHMEMX_DEV__EXTENDED_AMO(T, N, unused)                                                     \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch(shmemx_dev_t d, const T *source, int pe)         \
    {                                                                                              \
        return shmemx_dev__##N##_value(shmemx_dev__##N##_amo(                                      \
            d, source, pe, SHMEMX_DEV_PROXY_AMO_FETCH, 0, 0, "shmemx_dev_" #N "_atomic_fetch"));   \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_set(shmemx_dev_t d, T *dest, T value, int pe)       \
    {                                                                                              \
        (void)shmemx_dev__##N##_amo(d, dest, pe, SHMEMX_DEV_PROXY_AMO_SET,                         \
                                    shmemx_dev__##N##_bits(value), 0,                              \
                                    "shmemx_dev_" #N "_atomic_set");                               \
    }                                                                                              \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_swap(shmemx_dev_t d, T *dest, T value, int pe)         \
    {                                                                                              \
        return shmemx_dev__##N##_value(shmemx_dev__##N##_amo(                                      \
            d, dest, pe, SHMEMX_DEV_PROXY_AMO_SWAP, shmemx_dev__##N##_bits(value), 0,              \
            "shmemx_dev_" #N "_atomic_swap"));                                                     \
    }
SHMEM_EXTENDED_AMO_TYPES(SHMEMX_DEV__EXTENDED_AMO, )

#define SHMEMX_DEV__STANDARD_AMO(T, N, unused)                                                     \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_compare_swap(shmemx_dev_t d, T *dest, T cond, T value, \
                                                         int pe)                                   \
    {                                                                                              \
        return shmemx_dev__##N##_value(shmemx_dev__##N##_amo(                                      \
            d, dest, pe, SHMEMX_DEV_PROXY_AMO_CSWAP, shmemx_dev__##N##_bits(value),                \
            shmemx_dev__##N##_bits(cond), "shmemx_dev_" #N "_atomic_compare_swap"));               \
    }                                                                                              \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_add(shmemx_dev_t d, T *dest, T value, int pe)    \
    {                                                                                              \
        return shmemx_dev__##N##_value(shmemx_dev__##N##_amo(                                      \
            d, dest, pe, SHMEMX_DEV_PROXY_AMO_FETCH_ADD, shmemx_dev__##N##_bits(value), 0,         \
            "shmemx_dev_" #N "_atomic_fetch_add"));                                                \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_add(shmemx_dev_t d, T *dest, T value, int pe)       \
    {                                                                                              \
        (void)shmemx_dev__##N##_amo(d, dest, pe, SHMEMX_DEV_PROXY_AMO_ADD,                         \
                                    shmemx_dev__##N##_bits(value), 0,                              \
                                    "shmemx_dev_" #N "_atomic_add");                               \
    }                                                                                              \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_inc(shmemx_dev_t d, T *dest, int pe)             \
    {                                                                                              \
        return shmemx_dev__##N##_value(                                                            \
            shmemx_dev__##N##_amo(d, dest, pe, SHMEMX_DEV_PROXY_AMO_FETCH_ADD, 1, 0,               \
                                  "shmemx_dev_" #N "_atomic_fetch_inc"));                          \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_inc(shmemx_dev_t d, T *dest, int pe)                \
    {                                                                                              \
        (void)shmemx_dev__##N##_amo(d, dest, pe, SHMEMX_DEV_PROXY_AMO_ADD, 1, 0,                   \
                                    "shmemx_dev_" #N "_atomic_inc");                               \
    }
SHMEM_STANDARD_AMO_TYPES(SHMEMX_DEV__STANDARD_AMO, )

/* The proxy's code of a bitwise op (SHMEMX_DEV__AND/OR/XOR), fetching or not. */
#define SHMEMX_DEV__BITWISE_CODE(op, fetching)                                                     \
    ((op) == SHMEMX_DEV__AND                                                                       \
         ? ((fetching) ? SHMEMX_DEV_PROXY_AMO_FETCH_AND : SHMEMX_DEV_PROXY_AMO_AND)                \
     : (op) == SHMEMX_DEV__OR                                                                      \
         ? ((fetching) ? SHMEMX_DEV_PROXY_AMO_FETCH_OR : SHMEMX_DEV_PROXY_AMO_OR)                  \
         : ((fetching) ? SHMEMX_DEV_PROXY_AMO_FETCH_XOR : SHMEMX_DEV_PROXY_AMO_XOR))

#define SHMEMX_DEV__BITWISE_AMO(T, N, unused)                                                      \
    SHMEMX_DEV__BITWISE_OP(T, N, and, SHMEMX_DEV__AND)                                             \
    SHMEMX_DEV__BITWISE_OP(T, N, or, SHMEMX_DEV__OR)                                               \
    SHMEMX_DEV__BITWISE_OP(T, N, xor, SHMEMX_DEV__XOR)
#define SHMEMX_DEV__BITWISE_OP(T, N, name, op)                                                     \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_##name(shmemx_dev_t d, T *dest, T value, int pe) \
    {                                                                                              \
        return shmemx_dev__##N##_value(shmemx_dev__##N##_amo(                                      \
            d, dest, pe, SHMEMX_DEV__BITWISE_CODE(op, 1), shmemx_dev__##N##_bits(value), 0,        \
            "shmemx_dev_" #N "_atomic_fetch_" #name));                                             \
    }                                                                                              \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_##name(shmemx_dev_t d, T *dest, T value, int pe)    \
    {                                                                                              \
        (void)shmemx_dev__##N##_amo(d, dest, pe, SHMEMX_DEV__BITWISE_CODE(op, 0),                  \
                                    shmemx_dev__##N##_bits(value), 0,                              \
                                    "shmemx_dev_" #N "_atomic_" #name);                            \
    }
SHMEM_BITWISE_AMO_TYPES(SHMEMX_DEV__BITWISE_AMO, )

/* Floating-point atomic add (needs the word conversions above). */
#include <shmemx_device_famo.h>

/* ---- fence, quiet, signals, waits ---------------------------------------- */

SHMEMX_DEV_FN void shmemx_dev_fence(shmemx_dev_t d)
{
    shmemx_dev__fence();
    shmemx_dev__proxy_fence(d, "shmemx_dev_fence");
}

SHMEMX_DEV_FN void shmemx_dev_quiet(shmemx_dev_t d)
{
    shmemx_dev__quiet();
    shmemx_dev__proxy_quiet(d, "shmemx_dev_quiet");
}

SHMEMX_DEV_FN int shmemx_dev__compare(int cmp, int sign, uint64_t a, uint64_t b)
{
    if (sign) {
        int64_t x = (int64_t)a, y = (int64_t)b;
        switch (cmp) {
        case SHMEM_CMP_EQ:
            return x == y;
        case SHMEM_CMP_NE:
            return x != y;
        case SHMEM_CMP_GT:
            return x > y;
        case SHMEM_CMP_GE:
            return x >= y;
        case SHMEM_CMP_LT:
            return x < y;
        case SHMEM_CMP_LE:
            return x <= y;
        }
        return 0;
    }
    switch (cmp) {
    case SHMEM_CMP_EQ:
        return a == b;
    case SHMEM_CMP_NE:
        return a != b;
    case SHMEM_CMP_GT:
        return a > b;
    case SHMEM_CMP_GE:
        return a >= b;
    case SHMEM_CMP_LT:
        return a < b;
    case SHMEM_CMP_LE:
        return a <= b;
    }
    return 0;
}

/* An acquire load of a 2-, 4- or 8-byte word, widened with its sign. */
SHMEMX_DEV_FN uint64_t shmemx_dev__load_word(const void *p, unsigned size, int sign)
{
    if (size == 8)
        return shmemx_dev__ld_acquire64(p);
    if (size == 4) {
        uint32_t v = shmemx_dev__ld_acquire32(p);
        return sign ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    uint16_t v = shmemx_dev__ld_acquire16(p);
    return sign ? (uint64_t)(int64_t)(int16_t)v : v;
}

/* A relaxed load of the same, for polling. */
SHMEMX_DEV_FN uint64_t shmemx_dev__poll_word(const void *p, unsigned size, int sign)
{
    if (size == 8)
        return shmemx_dev__ld_relaxed64(p);
    if (size == 4) {
        uint32_t v = shmemx_dev__ld_relaxed32(p);
        return sign ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    uint16_t v = shmemx_dev__ld_relaxed16(p);
    return sign ? (uint64_t)(int64_t)(int16_t)v : v;
}

/* Waits until the word at p compares `cmp` to value; returns the word.
 * Polls with relaxed loads (an acquire load on every poll would invalidate
 * the L1 each time) and acquires once, with a fence, after the word
 * compares: what the writer released before it is then visible. */
SHMEMX_DEV_FN uint64_t shmemx_dev__wait(shmemx_dev_t d, const void *p, unsigned size, int sign,
                                        int cmp, uint64_t value, const char *call)
{
    uint64_t v = shmemx_dev__poll_word(p, size, sign);
    if (shmemx_dev__compare(cmp, sign, v, value)) {
        shmemx_dev__fence();
        return v;
    }
    const uint64_t t0 = shmemx_dev__now_ns();
    unsigned spins = 0;
    for (;;) {
        shmemx_dev__pause(&spins);
        v = shmemx_dev__poll_word(p, size, sign);
        if (shmemx_dev__compare(cmp, sign, v, value)) {
            shmemx_dev__fence();
            return v;
        }
        const uint64_t waited = shmemx_dev__now_ns() - t0;
        if (d.timeout_ns != 0 && waited > d.timeout_ns)
            shmemx_dev__report(d, SHMEMX_DEV_REPORT_TIMEOUT, call, d.my_pe, p, value, v, cmp,
                               waited);
    }
}

#define SHMEMX_DEV__SIGNED(T) ((T)-1 < (T)1)

#define SHMEMX_DEV__WAIT(T, N, unused)                                                             \
    SHMEMX_DEV_FN void shmemx_dev_##N##_wait_until(shmemx_dev_t d, T *ivar, int cmp, T value)      \
    {                                                                                              \
        (void)shmemx_dev__wait(d, ivar, sizeof(T), SHMEMX_DEV__SIGNED(T), cmp,                     \
                               (uint64_t)(int64_t)value, "shmemx_dev_" #N "_wait_until");          \
    }                                                                                              \
    SHMEMX_DEV_FN int shmemx_dev_##N##_test(shmemx_dev_t d, T *ivar, int cmp, T value)             \
    {                                                                                              \
        (void)d;                                                                                   \
        return shmemx_dev__compare(cmp, SHMEMX_DEV__SIGNED(T),                                     \
                                   shmemx_dev__load_word(ivar, sizeof(T), SHMEMX_DEV__SIGNED(T)),  \
                                   (uint64_t)(int64_t)value);                                      \
    }
SHMEM_SYNC_TYPES(SHMEMX_DEV__WAIT, )

SHMEMX_DEV_FN uint64_t shmemx_dev_signal_fetch(shmemx_dev_t d, const uint64_t *sig_addr)
{
    (void)d;
    return shmemx_dev__ld_acquire64(sig_addr);
}

SHMEMX_DEV_FN uint64_t shmemx_dev_signal_wait_until(shmemx_dev_t d, uint64_t *sig_addr, int cmp,
                                                    uint64_t value)
{
    return shmemx_dev__wait(d, sig_addr, 8, 0, cmp, value, "shmemx_dev_signal_wait_until");
}

/* ---- barriers ---------------------------------------------------------------
 * Each PE counts the syncs of each slot in its own seq[slot]; a sync stores
 * the new count (release) into flag[slot][me] of every other member and
 * waits (acquire) until each member's flag[slot][member] here reaches it.
 * Members call the same syncs in the same order, so the counts agree. */

/* A release store of a synchronization flag of PE pe (the proxy's SET for
 * a PE of another host: it follows this thread's earlier requests). */
SHMEMX_DEV_FN void shmemx_dev__flag_set(shmemx_dev_t d, uint64_t *flag, uint64_t v, int pe,
                                        const char *call)
{
    uint64_t *p = (uint64_t *)shmemx_dev_ptr(d, flag, pe);
    if (p != NULL)
        shmemx_dev__st_release64(p, v);
    else
        (void)shmemx_dev__proxy_amo(d, flag, SHMEMX_DEV_PROXY_AMO_SET, 8, v, 0, pe, call);
}

SHMEMX_DEV_FN void shmemx_dev__team_sync(shmemx_dev_t d, shmemx_dev_team_t t, const char *call)
{
    if ((unsigned)t.slot >= d.nslots || t.size <= 0) {
        shmemx_dev__report(d, SHMEMX_DEV_REPORT_ARGUMENT, call, -1, NULL, (uint64_t)t.slot,
                           d.nslots, -1, 0);
        return;
    }
    uint64_t *seq_p = d.sync + t.slot;
    uint64_t *flags = d.sync + d.nslots + (size_t)t.slot * (size_t)d.npes;
    const uint64_t seq = *(volatile uint64_t *)seq_p + 1;
    *(volatile uint64_t *)seq_p = seq;
    for (int i = 0; i < t.size; i++) {
        int pe = shmemx_dev_team_pe(t, i);
        if (pe != d.my_pe)
            shmemx_dev__flag_set(d, flags + d.my_pe, seq, pe, call);
    }
    for (int i = 0; i < t.size; i++) {
        int pe = shmemx_dev_team_pe(t, i);
        if (pe != d.my_pe)
            (void)shmemx_dev__wait(d, flags + pe, 8, 0, SHMEM_CMP_GE, seq, call);
    }
}

SHMEMX_DEV_FN shmemx_dev_team_t shmemx_dev_team_world(shmemx_dev_t d)
{
    shmemx_dev_team_t t = {0, 1, d.npes, 0};
    return t;
}

SHMEMX_DEV_FN void shmemx_dev_team_sync(shmemx_dev_t d, shmemx_dev_team_t t)
{
    shmemx_dev__team_sync(d, t, "shmemx_dev_team_sync");
}

SHMEMX_DEV_FN void shmemx_dev_sync_all(shmemx_dev_t d)
{
    shmemx_dev__team_sync(d, shmemx_dev_team_world(d), "shmemx_dev_sync_all");
}

SHMEMX_DEV_FN void shmemx_dev_barrier_all(shmemx_dev_t d)
{
    shmemx_dev__quiet();
    shmemx_dev__proxy_quiet(d, "shmemx_dev_barrier_all");
    shmemx_dev__team_sync(d, shmemx_dev_team_world(d), "shmemx_dev_barrier_all");
}

/* The block forms: every thread of one block calls; thread 0 synchronizes. */
SHMEMX_DEV_FN void shmemx_dev_team_sync_block(shmemx_dev_t d, shmemx_dev_team_t t)
{
    shmemx_dev__sync_block();
    if (shmemx_dev__tid() == 0)
        shmemx_dev__team_sync(d, t, "shmemx_dev_team_sync_block");
    shmemx_dev__sync_block();
}

SHMEMX_DEV_FN void shmemx_dev_sync_all_block(shmemx_dev_t d)
{
    shmemx_dev__sync_block();
    if (shmemx_dev__tid() == 0)
        shmemx_dev__team_sync(d, shmemx_dev_team_world(d), "shmemx_dev_sync_all_block");
    shmemx_dev__sync_block();
}

SHMEMX_DEV_FN void shmemx_dev_barrier_all_block(shmemx_dev_t d)
{
    shmemx_dev__sync_block();
    if (shmemx_dev__tid() == 0) {
        shmemx_dev__quiet();
        shmemx_dev__proxy_quiet(d, "shmemx_dev_barrier_all_block");
        shmemx_dev__team_sync(d, shmemx_dev_team_world(d), "shmemx_dev_barrier_all_block");
    }
    shmemx_dev__sync_block();
}

/* ---- events between a kernel and its own PE's host code ------------------ */

SHMEMX_DEV_FN int shmemx_dev__event_ok(shmemx_dev_t d, int id, const char *call)
{
    if ((unsigned)id < SHMEMX_DEV_EVENTS)
        return 1;
    shmemx_dev__report(d, SHMEMX_DEV_REPORT_ARGUMENT, call, -1, NULL, (uint64_t)(int64_t)id,
                       SHMEMX_DEV_EVENTS, -1, 0);
    return 0;
}

/* Raises event id once (after this thread's earlier writes are visible). */
SHMEMX_DEV_FN void shmemx_dev_event_raise(shmemx_dev_t d, int id)
{
    if (shmemx_dev__event_ok(d, id, "shmemx_dev_event_raise"))
        shmemx_dev__add_release64(&d.mailbox->to_host[id], 1);
}

/* Waits until the host set event id to at least value; returns it. */
SHMEMX_DEV_FN uint64_t shmemx_dev_event_wait(shmemx_dev_t d, int id, uint64_t value)
{
    if (!shmemx_dev__event_ok(d, id, "shmemx_dev_event_wait"))
        return 0;
    return shmemx_dev__wait(d, &d.mailbox->to_device[id], 8, 0, SHMEM_CMP_GE, value,
                            "shmemx_dev_event_wait");
}

#endif
