/*
 * The route table: where this process sees every PE's copy of every kind
 * of symmetric memory. It is plain data (no locks, no pointers into
 * host-only structures), so host code reads it here and a copy of it can
 * serve GPU kernels the same way.
 *
 * A row is one kind of symmetric memory with the same local range on every
 * PE: the host heap (row 0), the program's globals (row 1), the device
 * heap (row 2, device/device_heap.h, kind SHOAL_MEM_DEVICE), and rows added
 * at run time (core/mem_rows.h: heap segments past the first, registered
 * memory). For row r and PE p, shoal_route_peer_base(rt, p, r) is the
 * address at which this process sees p's copy, or 0 when it does not map it
 * (another host, or the row is absent on p). A row whose size is 0 is
 * unused.
 *
 * A peer of this host is mapped on first use: its entry stays 0 until the
 * cold path (shoal_route_find_all, shoal_route_peer_map) calls map_peer,
 * which maps it and fills the entry (under its own lock, written with
 * release order once the mapping exists; see shoal_route_peer_base for the
 * read). Only such peers are asked about (`lazy`): a PE on another host
 * goes to the network without a call.
 *
 * shoal_route_find is the whole fast path of routing: it answers "a local
 * pointer", "the network, at (row, offset)" or "an error", and the caller
 * works out the error's message only on that branch.
 */
#ifndef SHOAL_MEM_ROUTE_H
#define SHOAL_MEM_ROUTE_H

#include <stddef.h>
#include <stdint.h>

/* Rows from 3 up are added and removed while the job runs
 * (core/mem_rows.h): heap segments beyond the first, registered buffers. */
#define SHOAL_ROUTE_ROWS 32
/* The peer table keeps the first 8 rows of each PE side by side, so the
 * fast path's index is pe * 8 + row, one `lea` on x86-64 (a stride of 32
 * cost shmem_long_p a shift and an add); the later rows follow in a second
 * part (peer_far). */
#define SHOAL_ROUTE_NEAR_ROWS 8
#define SHOAL_ROUTE_HEAP 0    /* the symmetric heap, internal area included */
#define SHOAL_ROUTE_GLOBALS 1 /* the executable's .data and .bss */
#define SHOAL_ROUTE_DEVICE 2  /* the device heap (device/device_heap.h), once made */
/* Rows looked up inline by shoal_route_ptr; the others (device heap,
 * registrations) by shoal_route_find_all. */
#define SHOAL_ROUTE_INLINE_ROWS 2
_Static_assert(SHOAL_ROUTE_INLINE_ROWS <= SHOAL_ROUTE_NEAR_ROWS &&
                   SHOAL_ROUTE_DEVICE < SHOAL_ROUTE_NEAR_ROWS,
               "the start-up rows are near rows");

typedef enum {
    SHOAL_MEM_HOST = 0,
    SHOAL_MEM_DEVICE = 1,
} shoal_mem_kind_t;

typedef struct {
    uintptr_t base; /* this PE's copy */
    uint64_t size;  /* 0: the row is unused */
    uint32_t kind;  /* shoal_mem_kind_t */
    uint32_t reserved;
} shoal_route_row_t;

typedef struct shoal_route shoal_route_t;
struct shoal_route {
    int32_t npes; /* 0 until the data path opens, and after finalize */
    int32_t my_pe;
    uint32_t nrows; /* rows in use are below this */
    uint32_t net;   /* a network transport reaches what is not mapped */
    shoal_route_row_t row[SHOAL_ROUTE_ROWS];
    uintptr_t *peer;     /* [npes * SHOAL_ROUTE_NEAR_ROWS]: rows below SHOAL_ROUTE_NEAR_ROWS */
    uintptr_t *peer_far; /* [npes * (SHOAL_ROUTE_ROWS - SHOAL_ROUTE_NEAR_ROWS)]: the others */
    /* [npes]: 1 for a PE whose rows map_peer may map on first use (a peer
     * of this host), 0 for the others (this PE; PEs on other hosts, which
     * are never mapped here), so a network access asks nobody: asking took
     * a call, a mutex and ~350 instructions per remote get. */
    uint8_t *lazy;
    /* Maps pe's row on first use and returns its base, or 0 when it cannot
     * be mapped here; NULL: nothing is mapped lazily. Host code only. */
    uintptr_t (*map_peer)(const shoal_route_t *rt, int pe, unsigned row);
};

typedef enum {
    SHOAL_ROUTE_LOCAL, /* `ptr` is where to load and store */
    SHOAL_ROUTE_NET,   /* through the transport, at (row, off) on the PE */
    SHOAL_ROUTE_ERROR, /* not symmetric, out of range, or unreachable */
} shoal_route_kind_t;

typedef struct {
    void *ptr;
    unsigned row;
    uint64_t off;
} shoal_where_t;

#define SHOAL_ROUTE_ALWAYS_INLINE static inline __attribute__((always_inline))

/* A base is stored once (release) after its mmap returned, and every use of
 * it is an access through the loaded value (an address dependency), so a
 * plain aligned load sees 0 or the whole base and never needs more order.
 * A plain load, because GCC schedules nothing around an atomic one, not
 * even a relaxed one: the inline lookup of shmem_long_g grew from 35 to 39
 * instructions with it. ThreadSanitizer builds take the atomic load, so
 * this deliberate race is not reported. */
#if defined(__SANITIZE_THREAD__)
#define SHOAL_ROUTE_BASE_LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#else
#define SHOAL_ROUTE_BASE_LOAD(p) (*(p))
#endif

/* Where pe's entry of `row` is kept. */
SHOAL_ROUTE_ALWAYS_INLINE uintptr_t *shoal_route_peer_slot(const shoal_route_t *rt, int pe,
                                                           unsigned row)
{
    if (row < SHOAL_ROUTE_NEAR_ROWS)
        return &rt->peer[(size_t)pe * SHOAL_ROUTE_NEAR_ROWS + row];
    return &rt->peer_far[(size_t)pe * (SHOAL_ROUTE_ROWS - SHOAL_ROUTE_NEAR_ROWS) + row -
                         SHOAL_ROUTE_NEAR_ROWS];
}

SHOAL_ROUTE_ALWAYS_INLINE uintptr_t shoal_route_peer_base(const shoal_route_t *rt, int pe,
                                                          unsigned row)
{
    return SHOAL_ROUTE_BASE_LOAD(shoal_route_peer_slot(rt, pe, row));
}

/* The base of pe's row, mapping it first if this host can (route.c). */
uintptr_t shoal_route_peer_map_slow(const shoal_route_t *rt, int pe, unsigned row);
static inline uintptr_t shoal_route_peer_map(const shoal_route_t *rt, int pe, unsigned row)
{
    uintptr_t base = shoal_route_peer_base(rt, pe, row);
    return __builtin_expect(base != 0, 1) ? base : shoal_route_peer_map_slow(rt, pe, row);
}

/* The row lookup, the one every user of the table shares: the first of
 * `nrows` rows whose range holds `addr` (rt->row and rt->nrows for all of
 * them, SHOAL_ROUTE_INLINE_ROWS on the fast path), or -1; its offset there
 * in *off_p. Whether `len` bytes fit from there is the caller's question.
 * The heap is the likely row. */
SHOAL_ROUTE_ALWAYS_INLINE int shoal_route_row_of(const shoal_route_row_t *row, unsigned nrows,
                                                 const void *addr, uint64_t *off_p)
{
    for (unsigned r = 0; r < nrows; r++) {
        uint64_t off = (uintptr_t)addr - row[r].base;
        if (__builtin_expect(off < row[r].size, r == SHOAL_ROUTE_HEAP)) {
            *off_p = off;
            return (int)r;
        }
    }
    return -1;
}

/* Every row (route.c): the general lookup behind shoal_route_find. */
shoal_route_kind_t shoal_route_find_all(const shoal_route_t *rt, int pe, const void *addr,
                                        size_t len, shoal_where_t *w);

/* The fast path: the local pointer to (pe, addr, len) when it lies in one
 * of the inline rows (heap first, then globals) of a PE mapped here, else
 * NULL -- and then shoal_route_find says what it is instead. No structure
 * whose address escapes, so the callers' copies become tail calls. */
SHOAL_ROUTE_ALWAYS_INLINE void *shoal_route_ptr(const shoal_route_t *rt, int pe, const void *addr,
                                                size_t len)
{
    if (__builtin_expect((unsigned)pe >= (unsigned)rt->npes, 0))
        return NULL;
    uint64_t off;
    const int r = shoal_route_row_of(rt->row, SHOAL_ROUTE_INLINE_ROWS, addr, &off);
    if (r < 0)
        return NULL;
    /* An inline row is a near one: no test of which part holds it. */
    uintptr_t base =
        SHOAL_ROUTE_BASE_LOAD(&rt->peer[(size_t)pe * SHOAL_ROUTE_NEAR_ROWS + (unsigned)r]);
    if (__builtin_expect(len > rt->row[r].size - off || base == 0, 0))
        return NULL;
    return (void *)(base + off);
}

/* Routes the `len` bytes at symmetric address `addr` on PE `pe`: a local
 * pointer (w->ptr), the network at (w->row, w->off), or an error. */
static inline shoal_route_kind_t shoal_route_find(const shoal_route_t *rt, int pe, const void *addr,
                                                  size_t len, shoal_where_t *w)
{
    void *p = shoal_route_ptr(rt, pe, addr, len);
    if (__builtin_expect(p != NULL, 1)) {
        w->ptr = p;
        return SHOAL_ROUTE_LOCAL;
    }
    return shoal_route_find_all(rt, pe, addr, len, w);
}

#endif
