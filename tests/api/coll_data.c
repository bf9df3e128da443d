/*
 * coll_data: team-based data-movement collectives (OpenSHMEM 1.5) for every
 * standard RMA type and the mem forms, on every team shape (the world, a
 * strided subteam, the world reversed, both 2-D teams; see check.h).
 *
 *  - broadcast from the first, the last and a middle team PE: dest is
 *    updated on every PE, the root included (team-based semantics);
 *  - collect with a different element count on each PE (zero on some),
 *    concatenated in team order;
 *  - fcollect, alltoall, and alltoalls with dest stride 2 and source
 *    stride 3 (the elements between the strided ones stay untouched);
 *  - 1, 7 and 1000 elements per PE, and 70000 bytes for the mem forms;
 *    guard elements after dest untouched, sources unchanged, every call
 *    returns 0, and each source overwritten as soon as its call returns
 *    (a peer still reading it would get garbage);
 *  - back to back: broadcast, fcollect and alltoall into separate buffers
 *    without synchronization between them;
 *  - zero elements: every form returns 0 and writes nothing;
 *  - on global (static) arrays as well as the heap.
 *
 * Across hosts (SHOAL_TEST_HOSTS > 1: tests/netns) the typed calls run for
 * one type of each element size (1, 2, 4, 8 and 16 bytes) and the mem forms:
 * src/api/coll.c hands every typed call to the collective as nelems *
 * sizeof(T) bytes, so another type of the same size moved the same bytes
 * over the same path again. The 70000-byte alltoallsmem runs across hosts
 * on the world team only (see alltoalls_runs). The one-host runs keep
 * every type and call.
 */
#include "check.h"

#if !SHT_HAVE_TEAMS
SHT_SKIP_MAIN("coll_data", "needs the OpenSHMEM 1.5 team API")
#else

#define GUARD 16
#define SENTINEL 0xA5
#define BUF_BYTES ((size_t)2 << 20)
#define DST_STRIDE 2
#define SRC_STRIDE 3

static sht_shape_t shapes[SHT_NSHAPES];
static unsigned char *src_buf, *dst_buf;
static long g_src[3 * 8 * 1000 + GUARD], g_dst[2 * 8 * 1000 + GUARD];
static char what[256];

static void check_sentinel(const char *name, const unsigned char *p, size_t from, size_t to)
{
    for (size_t b = from; b < to; b++)
        CHECK(p[b] == SENTINEL, "%s: byte %zu of dest, outside the result, was written (0x%02x)",
              name, b, p[b]);
}

/* Element count team PE k contributes to collect in round r (0 on some). */
static size_t collect_count(int k, size_t n, int r)
{
    return (k + r) % 3 == 0 ? 0 : n + (size_t)k;
}

#define VAL(T, pe, i, r) SHT_VAL(T, pe, (int)((i) % 100000), r)
/* A source may be reused as soon as the call returns: overwrite it, so a
 * peer that still reads it (a pull-based algorithm whose owner returned
 * too early) gets garbage. */
#define SCRIBBLE(p, n) memset((p), 0x5A, (n) * sizeof *(p))

/* Across hosts alltoalls moves each element with a get of its own
 * (shoal_strided in src/core/rma_route.c): the 70000-byte mem call is 70000
 * small TCP messages from each peer, most of netns_coll_data.h2x2's CPU.
 * Across hosts the per-element path is that of the 1000-element calls, on
 * every shape; one host keeps the 70000-byte call too. */
static int alltoalls_runs(const sht_shape_t *s, size_t n)
{
    (void)s;
    return sht_hosts() == 1 || n <= 1000;
}

/* All five collectives for one type (or the mem forms, T = unsigned char). */
#define DEF_DATA(T, N, BCAST, COLLECT, FCOLLECT, A2A, A2AS)                                        \
    static void data_##N(const sht_shape_t *s, unsigned char *sb, unsigned char *db, size_t n,     \
                         int r)                                                                    \
    {                                                                                              \
        T *src = (T *)sb, *dst = (T *)db;                                                          \
        int me = shmem_my_pe(), nt = s->n, rc;                                                     \
        size_t total;                                                                              \
        const char *where = sb == (unsigned char *)g_src ? " (globals)" : "";                      \
        /* broadcast */                                                                            \
        int roots[3] = {0, nt - 1, nt / 2};                                                        \
        for (int ri = 0; ri < 3; ri++) {                                                           \
            int root = roots[ri];                                                                  \
            for (size_t i = 0; i < n; i++)                                                         \
                src[i] = VAL(T, me, i, r + ri);                                                    \
            memset(dst, SENTINEL, (n + GUARD) * sizeof(T));                                        \
            shmem_team_sync(s->team);                                                              \
            rc = BCAST(s->team, dst, src, n, root);                                                \
            snprintf(what, sizeof what, "%s: %s n=%zu root %d%s", s->name, #BCAST, n, root,        \
                     where);                                                                       \
            CHECK(rc == 0, "%s returned %d", what, rc);                                            \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, i, src[i], VAL(T, me, i, r + ri));                                 \
            SCRIBBLE(src, n);                                                                      \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, i, dst[i], VAL(T, s->world[root], i, r + ri));                     \
            check_sentinel(what, (unsigned char *)dst, n * sizeof(T), (n + GUARD) * sizeof(T));    \
        }                                                                                          \
        /* collect: counts differ per PE */                                                        \
        size_t mine = collect_count(s->me, n, r);                                                  \
        total = 0;                                                                                 \
        for (int k = 0; k < nt; k++)                                                               \
            total += collect_count(k, n, r);                                                       \
        for (size_t i = 0; i < mine; i++)                                                          \
            src[i] = VAL(T, me, i, r);                                                             \
        memset(dst, SENTINEL, (total + GUARD) * sizeof(T));                                        \
        shmem_team_sync(s->team);                                                                  \
        rc = COLLECT(s->team, dst, src, mine);                                                     \
        snprintf(what, sizeof what, "%s: %s n=%zu (this PE %zu, total %zu)%s", s->name, #COLLECT,  \
                 n, mine, total, where);                                                           \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        SCRIBBLE(src, mine);                                                                       \
        {                                                                                          \
            size_t at = 0;                                                                         \
            for (int k = 0; k < nt; k++)                                                           \
                for (size_t i = 0; i < collect_count(k, n, r); i++, at++)                          \
                    CHECK_VAL(what, at, dst[at], VAL(T, s->world[k], i, r));                       \
        }                                                                                          \
        check_sentinel(what, (unsigned char *)dst, total * sizeof(T),                              \
                       (total + GUARD) * sizeof(T));                                               \
        /* fcollect */                                                                             \
        for (size_t i = 0; i < n; i++)                                                             \
            src[i] = VAL(T, me, i, r + 1);                                                         \
        total = n * (size_t)nt;                                                                    \
        memset(dst, SENTINEL, (total + GUARD) * sizeof(T));                                        \
        shmem_team_sync(s->team);                                                                  \
        rc = FCOLLECT(s->team, dst, src, n);                                                       \
        snprintf(what, sizeof what, "%s: %s n=%zu%s", s->name, #FCOLLECT, n, where);               \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        SCRIBBLE(src, n);                                                                          \
        for (int k = 0; k < nt; k++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, k *n + i, dst[k * n + i], VAL(T, s->world[k], i, r + 1));          \
        check_sentinel(what, (unsigned char *)dst, total * sizeof(T),                              \
                       (total + GUARD) * sizeof(T));                                               \
        /* alltoall: block j of my source goes to team PE j */                                     \
        for (size_t i = 0; i < total; i++)                                                         \
            src[i] = VAL(T, me, i, r + 2);                                                         \
        memset(dst, SENTINEL, (total + GUARD) * sizeof(T));                                        \
        shmem_team_sync(s->team);                                                                  \
        rc = A2A(s->team, dst, src, n);                                                            \
        snprintf(what, sizeof what, "%s: %s n=%zu%s", s->name, #A2A, n, where);                    \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        SCRIBBLE(src, total);                                                                      \
        for (int k = 0; k < nt; k++)                                                               \
            for (size_t i = 0; i < n; i++)                                                         \
                CHECK_VAL(what, k *n + i, dst[k * n + i],                                          \
                          VAL(T, s->world[k], s->me * n + i, r + 2));                              \
        check_sentinel(what, (unsigned char *)dst, total * sizeof(T),                              \
                       (total + GUARD) * sizeof(T));                                               \
        if (!alltoalls_runs(s, n))                                                                 \
            return;                                                                                \
        /* alltoalls: element e for team PE j is source[SST * (j * n + e)] and                     \
         * lands in dest[DST * (k * n + e)] on PE j, k being the sender. */                        \
        for (size_t i = 0; i < total * SRC_STRIDE; i++)                                            \
            src[i] = i % SRC_STRIDE ? (T)0 : VAL(T, me, i / SRC_STRIDE, r + 3);                    \
        size_t span = (total - 1) * DST_STRIDE + 1;                                                \
        memset(dst, SENTINEL, (span + GUARD) * sizeof(T));                                         \
        shmem_team_sync(s->team);                                                                  \
        rc = A2AS(s->team, dst, src, DST_STRIDE, SRC_STRIDE, n);                                   \
        snprintf(what, sizeof what, "%s: %s n=%zu dst %d sst %d%s", s->name, #A2AS, n, DST_STRIDE, \
                 SRC_STRIDE, where);                                                               \
        CHECK(rc == 0, "%s returned %d", what, rc);                                                \
        SCRIBBLE(src, total *SRC_STRIDE);                                                          \
        for (int k = 0; k < nt; k++)                                                               \
            for (size_t i = 0; i < n; i++) {                                                       \
                size_t at = (k * n + i) * DST_STRIDE;                                              \
                CHECK_VAL(what, at, dst[at], VAL(T, s->world[k], s->me *n + i, r + 3));            \
                if (at + 1 < span)                                                                 \
                    check_sentinel(what, (unsigned char *)dst, (at + 1) * sizeof(T),               \
                                   (at + DST_STRIDE) * sizeof(T));                                 \
            }                                                                                      \
        check_sentinel(what, (unsigned char *)dst, span * sizeof(T), (span + GUARD) * sizeof(T));  \
    }

#define DEF_TYPED(T, N)                                                                            \
    DEF_DATA(T, N, shmem_##N##_broadcast, shmem_##N##_collect, shmem_##N##_fcollect,               \
             shmem_##N##_alltoall, shmem_##N##_alltoalls)
SHT_RMA_TYPES(DEF_TYPED)
DEF_DATA(unsigned char, mem, shmem_broadcastmem, shmem_collectmem, shmem_fcollectmem,
         shmem_alltoallmem, shmem_alltoallsmem)

typedef void (*data_fn)(const sht_shape_t *, unsigned char *, unsigned char *, size_t, int);
static const data_fn typed[] = {
#define ROW(T, N) data_##N,
    SHT_RMA_TYPES(ROW) data_mem,
};
#define NTYPED (sizeof typed / sizeof typed[0])
static const size_t typed_size[] = {
#define SIZE_ROW(T, N) sizeof(T),
    SHT_RMA_TYPES(SIZE_ROW) 1,
};

/* Whether typed[t] runs: always on one host; across hosts only the first
 * type of its element size, and the mem forms (see the top). */
static int typed_runs(size_t t)
{
    if (sht_hosts() == 1 || t == NTYPED - 1)
        return 1;
    for (size_t u = 0; u < t; u++)
        if (typed_size[u] == typed_size[t])
            return 0;
    return 1;
}

/* Broadcast, fcollect and alltoall back to back into separate buffers. */
static void back_to_back(const sht_shape_t *s, size_t n)
{
    int me = shmem_my_pe(), nt = s->n;
    long *src = (long *)src_buf, *dst = (long *)dst_buf;
    long *b_dst = dst, *f_dst = dst + n, *a_dst = dst + n + nt * n;
    long *b_src = src, *f_src = src + n, *a_src = src + 2 * n;
    for (size_t i = 0; i < n; i++) {
        b_src[i] = VAL(long, me, i, 50);
        f_src[i] = VAL(long, me, i, 51);
    }
    for (size_t i = 0; i < nt * n; i++)
        a_src[i] = VAL(long, me, i, 52);
    memset(dst, SENTINEL, (n + 2 * nt * n) * sizeof(long));
    shmem_team_sync(s->team);
    int root = nt - 1;
    CHECK(shmem_long_broadcast(s->team, b_dst, b_src, n, root) == 0, "b2b broadcast");
    SCRIBBLE(b_src, n);
    CHECK(shmem_long_fcollect(s->team, f_dst, f_src, n) == 0, "b2b fcollect");
    SCRIBBLE(f_src, n);
    CHECK(shmem_long_alltoall(s->team, a_dst, a_src, n) == 0, "b2b alltoall");
    SCRIBBLE(a_src, nt * n);
    snprintf(what, sizeof what, "%s: back-to-back broadcast/fcollect/alltoall n=%zu", s->name, n);
    for (size_t i = 0; i < n; i++)
        CHECK_VAL(what, i, b_dst[i], VAL(long, s->world[root], i, 50));
    for (int k = 0; k < nt; k++)
        for (size_t i = 0; i < n; i++) {
            CHECK_VAL(what, k * n + i, f_dst[k * n + i], VAL(long, s->world[k], i, 51));
            CHECK_VAL(what, k * n + i, a_dst[k * n + i], VAL(long, s->world[k], s->me *n + i, 52));
        }
    shmem_team_sync(s->team);
}

/* Broadcasts one after another with the root moving each time and no
 * synchronization between them: each result is checked, and the root's
 * source scribbled, right after its call returns, while faster PEs may
 * already be in the next one. */
static void rotating_roots(const sht_shape_t *s, size_t n)
{
    int me = shmem_my_pe(), nt = s->n;
    long *src = (long *)src_buf, *dst = (long *)dst_buf;
    shmem_team_sync(s->team);
    for (int r = 0; r < 3 * nt; r++) {
        int root = (r * 5 + 1) % nt;
        for (size_t i = 0; i < n; i++)
            src[i] = VAL(long, me, i, 60 + r);
        CHECK(shmem_long_broadcast(s->team, dst, src, n, root) == 0, "rotating broadcast");
        SCRIBBLE(src, n);
        snprintf(what, sizeof what, "%s: broadcast %d of a series, root %d, n=%zu", s->name, r,
                 root, n);
        for (size_t i = 0; i < n; i++)
            CHECK_VAL(what, i, dst[i], VAL(long, s->world[root], i, 60 + r));
    }
    shmem_team_sync(s->team);
}

/* fcollect and alltoall one after another into fresh dest blocks (so no
 * synchronization is needed between them), each result checked and the
 * source rewritten right after its call returns, while faster PEs may
 * already be in the next call. */
static void exchange_series(const sht_shape_t *s, size_t n)
{
    int me = shmem_my_pe(), nt = s->n;
    long *src = (long *)src_buf, *dst = (long *)dst_buf;
    const size_t block = (size_t)nt * n;
    shmem_team_sync(s->team);
    for (int r = 0; r < 400; r++) {
        long *d = dst + (size_t)(r % 16) * block;
        if (r % 16 == 0 && r > 0)
            shmem_team_sync(s->team); /* the 16 dest blocks are reused after this */
        for (size_t i = 0; i < block; i++)
            src[i] = VAL(long, me, i, 70 + r % 50);
        if (r % 2 == 0)
            CHECK(shmem_long_fcollect(s->team, d, src, n) == 0, "fcollect in a series");
        else
            CHECK(shmem_long_alltoall(s->team, d, src, n) == 0, "alltoall in a series");
        SCRIBBLE(src, block);
        snprintf(what, sizeof what, "%s: %s %d of a series, n=%zu", s->name,
                 r % 2 == 0 ? "fcollect" : "alltoall", r, n);
        for (int k = 0; k < nt; k++)
            for (size_t i = 0; i < n; i++)
                CHECK_VAL(
                    what, k * n + i, d[k * n + i],
                    VAL(long, s->world[k], (r % 2 == 0 ? 0 : (size_t)s->me * n) + i, 70 + r % 50));
    }
    shmem_team_sync(s->team);
}

/* Zero elements: every call returns 0 and leaves dest alone. */
static void zero_elements(const sht_shape_t *s)
{
    long *src = (long *)src_buf, *dst = (long *)dst_buf;
    memset(dst, SENTINEL, 64 * sizeof(long));
    shmem_team_sync(s->team);
    CHECK(shmem_long_broadcast(s->team, dst, src, 0, 0) == 0, "broadcast of 0 elements");
    CHECK(shmem_long_collect(s->team, dst, src, 0) == 0, "collect of 0 elements");
    CHECK(shmem_long_fcollect(s->team, dst, src, 0) == 0, "fcollect of 0 elements");
    CHECK(shmem_long_alltoall(s->team, dst, src, 0) == 0, "alltoall of 0 elements");
    CHECK(shmem_long_alltoalls(s->team, dst, src, 2, 3, 0) == 0, "alltoalls of 0 elements");
    CHECK(shmem_broadcastmem(s->team, dst, src, 0, s->n - 1) == 0, "broadcastmem of 0 bytes");
    CHECK(shmem_fcollectmem(s->team, dst, src, 0) == 0, "fcollectmem of 0 bytes");
    snprintf(what, sizeof what, "%s: collectives of 0 elements", s->name);
    check_sentinel(what, dst_buf, 0, 64 * sizeof(long));
    shmem_team_sync(s->team);
}

int main(void)
{
    shmem_init();
    src_buf = shmem_malloc(BUF_BYTES);
    dst_buf = shmem_malloc(BUF_BYTES);
    CHECK(src_buf && dst_buf, "shmem_malloc of %zu bytes failed", BUF_BYTES);
    sht_shapes_make(shapes);
    static const size_t sizes[] = {1, 7, 1000};

    for (int sh = 0; sh < SHT_NSHAPES; sh++) {
        const sht_shape_t *s = &shapes[sh];
        if (s->me >= 0) {
            for (size_t t = 0; t < NTYPED; t++)
                for (size_t z = 0; typed_runs(t) && z < sizeof sizes / sizeof sizes[0]; z++)
                    typed[t](s, src_buf, dst_buf, sizes[z], (int)(t + z));
            /* Large mem transfers: 70000 bytes per PE (per pair for alltoall). */
            data_mem(s, src_buf, dst_buf, 70000, 3);
            data_long(s, (unsigned char *)g_src, (unsigned char *)g_dst, 1000, 5);
            data_int(s, (unsigned char *)g_src, (unsigned char *)g_dst, 7, 6);
            back_to_back(s, 1);
            back_to_back(s, 700);
            rotating_roots(s, 5);
            rotating_roots(s, 3000); /* past the size a root pushes */
            exchange_series(s, 3);
            exchange_series(s, 1000); /* past the size PEs push */
            zero_elements(s);
            shmem_team_sync(s->team);
        }
        shmem_barrier_all();
    }

    sht_shapes_destroy(shapes);
    shmem_free(src_buf);
    shmem_free(dst_buf);
    sht_pass("coll_data");
    shmem_finalize();
    return 0;
}

#endif /* SHT_HAVE_TEAMS */
