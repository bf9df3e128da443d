/*
 * Segment exchange between the PEs of one host, and mapping a peer on first
 * use.
 *
 * At start-up every PE publishes, in one bootstrap allgather, its host
 * identity, its pid and, per segment, the fd number, size and inode of the
 * memfd behind it. That numbers the hosts and tells each PE which peers
 * share its host; the heap sizes are checked there. Nothing is mapped yet:
 * mapping every local peer at start-up is npes^2 mmaps (and, as it was done
 * before, npes^2 connections and fd passes) per host, the cost that made a
 * 1,024-PE job take minutes, while most programs touch few peers.
 *
 * A peer's row is mapped when the data path first finds it unmapped (the
 * route table's cold path calls shm_map_peer): its memfd is reopened
 * through /proc/PID/fd/N, which the kernel allows between processes of one
 * user (the ptrace "read" check), and the inode is compared with the one
 * the peer published, so a reused pid or another PID namespace is caught
 * instead of mapping the wrong file. Each PE probes one local peer during
 * shmem_init, so a host where this cannot work fails at start-up with the
 * reason rather than at the first put.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "transport/shm/shm.h"
#include "util/host_identity.h"
#include "util/log.h"

/* What a PE publishes per present segment. */
typedef struct {
    uint32_t row;
    int32_t fd;
    uint64_t size;
    uint64_t ino;
} shm_seg_info_t;

/* What a PE publishes: a header, nsegs segment infos, then its host id. */
typedef struct {
    int32_t pid;
    uint32_t nsegs;
    shm_seg_info_t seg[SHOAL_ROUTE_ROWS];
    char host_id[160]; /* hostname + boot id + network namespace */
} shm_addr_t;

#define SHM_ADDR_HEAD (offsetof(shm_addr_t, seg))

/* A local peer, as far as mapping it on first use needs. */
typedef struct {
    int32_t pid; /* 0: not on this host */
    int32_t fd[SHOAL_ROUTE_ROWS];
    uint64_t ino[SHOAL_ROUTE_ROWS];
    /* Where the row starts in its first page: 0 for segments, the buffer's
     * offset in its page for a registered buffer (mem/share_pages.c). */
    uint32_t off[SHOAL_ROUTE_ROWS];
    /* The row's page in the peer: a registered buffer's memfd holds it at
     * that file offset (the file is longer than the address); a segment's
     * memfd starts with the row. */
    uint64_t page[SHOAL_ROUTE_ROWS];
    uint8_t failed[SHOAL_ROUTE_ROWS];
} shm_peer_t;

static struct {
    pthread_mutex_t lock; /* one mapper at a time; the data path never takes it */
    shm_peer_t *peer;     /* [npes] */
    int npes;
    int nmapped;
} shm = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Opens PE pe's memfd of `row` and checks it is the one it published.
 * Returns the fd, or -1 after logging why. */
static int open_peer_fd(int pe, unsigned row, const shm_peer_t *p)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)p->pid, (int)p->fd[row]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        SHOAL_ERROR("cannot open %s, local PE %d's symmetric segment (row %u): %m; the PEs of "
                    "one host must run as the same user in the same PID namespace (and not be "
                    "made non-dumpable) to map each other's memory",
                    path, pe, row);
        return -1;
    }
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_ino != p->ino[row]) {
        SHOAL_ERROR("%s is not local PE %d's symmetric segment (inode %llu, it published %llu): "
                    "is PE %d in another PID namespace of this host?",
                    path, pe, (unsigned long long)st.st_ino, (unsigned long long)p->ino[row], pe);
        close(fd);
        return -1;
    }
    return fd;
}

/* The bytes to map for pe's row of `size` bytes: whole pages from the start
 * of the memfd to the row's end. */
static size_t map_len(const shm_peer_t *p, unsigned row, uint64_t size)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return ((size_t)p->off[row] + (size_t)size + page - 1) & ~(page - 1);
}

/* Maps pe's row from its memfd: from file offset 0 for a segment, from the
 * row's page for a registered buffer's memfd, which is longer than that
 * page's address (mem/share_pages.c). */
static shoal_status_t map_row(int fd, const shm_peer_t *p, unsigned row, uint64_t size, char **b_p)
{
    struct stat st;
    const size_t len = map_len(p, row, size);
    if (p->page[row] == 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size < p->page[row] + len)
        return shoal_segment_map_peer(fd, len, b_p);
    void *b = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd,
                   (off_t)p->page[row]);
    if (b == MAP_FAILED) {
        SHOAL_ERROR("mmap of a peer's registered buffer (%zu bytes) failed: %m", len);
        return SHOAL_ERR_SYSTEM;
    }
    *b_p = b;
    return SHOAL_OK;
}

/* Unmaps pe's row mapped at `base` (the row's start, not the mapping's). */
static void unmap_row(const shm_peer_t *p, unsigned row, uintptr_t base, uint64_t size)
{
    if (p == NULL)
        shoal_segment_unmap_peer((char *)base, (size_t)size);
    else
        shoal_segment_unmap_peer((char *)(base - p->off[row]), map_len(p, row, size));
}

/* The route table's cold path: maps PE pe's row on first use. Returns the
 * base, or 0 when pe's row cannot be mapped here (another host, a row it
 * does not have, or a failure that was logged). Thread-safe. */
static uintptr_t shm_map_peer(const shoal_route_t *rt, int pe, unsigned row)
{
    uintptr_t base = 0;
    if ((unsigned)pe >= (unsigned)shm.npes || row >= SHOAL_ROUTE_ROWS)
        return 0;
    pthread_mutex_lock(&shm.lock);
    shm_peer_t *p = shm.peer != NULL ? &shm.peer[pe] : NULL;
    base = shoal_route_peer_base(rt, pe, row);
    if (base != 0 || p == NULL || p->pid == 0 || p->fd[row] < 0 || p->failed[row])
        goto out;
    int fd = open_peer_fd(pe, row, p);
    char *b = NULL;
    if (fd >= 0 && map_row(fd, p, row, rt->row[row].size, &b) == SHOAL_OK) {
        shoal_route_set_peer((shoal_route_t *)rt, pe, row, b + p->off[row]);
        base = (uintptr_t)b + p->off[row];
        shm.nmapped++;
    } else {
        p->failed[row] = 1; /* said once; later accesses fail without a new message */
    }
    if (fd >= 0)
        close(fd);
out:
    pthread_mutex_unlock(&shm.lock);
    return base;
}

/* Packs this PE's address; returns its length. */
static size_t pack_addr(shm_addr_t *a, const shoal_segment_t segs[SHOAL_ROUTE_ROWS],
                        const char *host_id)
{
    memset(a, 0, sizeof(*a));
    a->pid = (int32_t)getpid();
    for (unsigned s = 0; s < SHOAL_ROUTE_ROWS; s++) {
        struct stat st;
        if (segs[s].base == NULL || fstat(segs[s].fd, &st) != 0)
            continue;
        a->seg[a->nsegs++] = (shm_seg_info_t){
            .row = s, .fd = segs[s].fd, .size = segs[s].size, .ino = (uint64_t)st.st_ino};
    }
    size_t n = SHM_ADDR_HEAD + a->nsegs * sizeof(shm_seg_info_t);
    size_t hl = strlen(host_id) + 1;
    memcpy((char *)a + n, host_id, hl);
    return n + hl;
}

/* Unpacks PE pe's address; the host id points into `v`. */
static shoal_status_t unpack_addr(int pe, const void *v, size_t len, shm_addr_t *a,
                                  const char **host_p)
{
    memset(a, 0, SHM_ADDR_HEAD);
    if (len >= SHM_ADDR_HEAD)
        memcpy(a, v, SHM_ADDR_HEAD);
    size_t n = SHM_ADDR_HEAD + (size_t)a->nsegs * sizeof(shm_seg_info_t);
    if (len < SHM_ADDR_HEAD || a->nsegs > SHOAL_ROUTE_ROWS || len <= n ||
        ((const char *)v)[len - 1] != '\0') {
        SHOAL_ERROR("PE %d published a malformed segment address (%zu bytes); do all PEs run "
                    "the same Shoal build?",
                    pe, len);
        return SHOAL_ERR_IO;
    }
    memcpy(a->seg, (const char *)v + SHM_ADDR_HEAD, a->nsegs * sizeof(shm_seg_info_t));
    *host_p = (const char *)v + n;
    return SHOAL_OK;
}

/* Records local PE pe for mapping on first use, checking its sizes. */
static shoal_status_t add_local_peer(shoal_bootstrap_t *bs, int pe, const shm_addr_t *a,
                                     const shoal_segment_t segs[SHOAL_ROUTE_ROWS])
{
    shm_peer_t *p = &shm.peer[pe];
    p->pid = a->pid;
    for (unsigned s = 0; s < SHOAL_ROUTE_ROWS; s++)
        p->fd[s] = -1;
    for (unsigned i = 0; i < a->nsegs; i++) {
        const shm_seg_info_t *si = &a->seg[i];
        if (si->row >= SHOAL_ROUTE_ROWS || segs[si->row].base == NULL)
            continue;
        if (si->size != segs[si->row].size) {
            if (si->row == SHOAL_ROUTE_HEAP) {
                SHOAL_ERROR("symmetric heap sizes differ: PE %d has %zu bytes, PE %d has %llu; "
                            "give every PE the same SHMEM_SYMMETRIC_SIZE",
                            bs->rank, segs[si->row].size, pe, (unsigned long long)si->size);
                return SHOAL_ERR_INVALID;
            }
            SHOAL_WARN("PE %d runs a different executable (data segment of %llu bytes, here "
                       "%zu); its global variables are not symmetric with this PE's",
                       pe, (unsigned long long)si->size, segs[si->row].size);
            continue;
        }
        p->fd[si->row] = si->fd;
        p->ino[si->row] = si->ino;
    }
    return SHOAL_OK;
}

shoal_status_t shoal_shm_connect(shoal_bootstrap_t *bs, unsigned generation,
                                 const shoal_segment_t segs[SHOAL_ROUTE_ROWS], shoal_route_t *rt,
                                 int *node)
{
    shoal_status_t status;
    shm_addr_t mine, theirs;
    char key[64];
    int *reps = NULL, probe = -1;
    const char **ids = NULL;
    shoal_bootstrap_gather_t all = {0};
    const int me = bs->rank, npes = bs->npes;

    node[me] = me;
    if (npes == 1)
        return SHOAL_OK;

    char my_host[sizeof(mine.host_id)];
    shoal_host_identity(my_host, sizeof(my_host));
    size_t mine_len = pack_addr(&mine, segs, my_host);
    snprintf(key, sizeof(key), "shm.addr.%u", generation);
    status = shoal_bootstrap_allgather(bs, key, &mine, mine_len, &all);
    if (status != SHOAL_OK)
        return status;

    pthread_mutex_lock(&shm.lock);
    free(shm.peer);
    shm.peer = calloc((size_t)npes, sizeof(*shm.peer));
    shm.npes = npes;
    shm.nmapped = 0;
    pthread_mutex_unlock(&shm.lock);
    ids = calloc((size_t)npes, sizeof(*ids));
    reps = malloc(sizeof(int) * (size_t)npes);
    if (shm.peer == NULL || ids == NULL || reps == NULL) {
        status = SHOAL_ERR_NOMEM;
        goto out;
    }
    int nlocal = 0;
    for (int pe = 0; pe < npes; pe++) {
        size_t len;
        const void *v = shoal_bootstrap_gather_at(&all, pe, &len);
        status = unpack_addr(pe, v, len, &theirs, &ids[pe]);
        if (status != SHOAL_OK)
            goto out;
        if (pe == me || strcmp(ids[pe], my_host) != 0)
            continue;
        status = add_local_peer(bs, pe, &theirs, segs);
        if (status != SHOAL_OK)
            goto out;
        rt->lazy[pe] = 1;
        nlocal++;
        if (probe < 0 || (probe < me && pe > me))
            probe = pe; /* the next local PE above this one, else the lowest */
    }

    /* node[pe]: the first PE with pe's identity, found among one
     * representative per host seen so far. */
    int nreps = 0;
    for (int pe = 0; pe < npes; pe++) {
        int r = 0;
        while (r < nreps && strcmp(ids[reps[r]], ids[pe]) != 0)
            r++;
        if (r == nreps)
            reps[nreps++] = pe;
        node[pe] = reps[r];
    }

    rt->map_peer = shm_map_peer;
    /* One probe per PE: a host where peers cannot map each other fails here. */
    if (probe >= 0 && shm_map_peer(rt, probe, SHOAL_ROUTE_HEAP) == 0)
        status = SHOAL_ERR_SYSTEM;
    SHOAL_DEBUG("%d local peers, mapped on first use", nlocal);

out:
    free(ids);
    free(reps);
    shoal_bootstrap_gather_free(&all);
    return status;
}

void shoal_shm_row_set(int pe, unsigned row, int fd, uint64_t ino, uint64_t base)
{
    const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    pthread_mutex_lock(&shm.lock);
    if (shm.peer != NULL && (unsigned)pe < (unsigned)shm.npes && row < SHOAL_ROUTE_ROWS &&
        shm.peer[pe].pid != 0) {
        shm.peer[pe].fd[row] = fd;
        shm.peer[pe].ino[row] = ino;
        shm.peer[pe].off[row] = (uint32_t)(base & (page - 1));
        shm.peer[pe].page[row] = base & ~(page - 1);
        shm.peer[pe].failed[row] = 0;
    }
    pthread_mutex_unlock(&shm.lock);
}

void shoal_shm_row_unmap(shoal_route_t *rt, unsigned row)
{
    if (row >= SHOAL_ROUTE_ROWS)
        return;
    pthread_mutex_lock(&shm.lock);
    for (int pe = 0; pe < shm.npes; pe++) {
        if (pe == rt->my_pe)
            continue;
        uintptr_t base = shoal_route_peer_base(rt, pe, row);
        if (base != 0) {
            unmap_row(shm.peer != NULL ? &shm.peer[pe] : NULL, row, base, rt->row[row].size);
            shm.nmapped--;
        }
        shoal_route_set_peer(rt, pe, row, NULL);
        if (shm.peer != NULL && shm.peer[pe].pid != 0) {
            shm.peer[pe].fd[row] = -1;
            shm.peer[pe].ino[row] = 0;
            shm.peer[pe].off[row] = 0;
            shm.peer[pe].page[row] = 0;
            shm.peer[pe].failed[row] = 0;
        }
    }
    pthread_mutex_unlock(&shm.lock);
}

int shoal_shm_local_pid(int pe)
{
    pthread_mutex_lock(&shm.lock);
    int pid = shm.peer != NULL && (unsigned)pe < (unsigned)shm.npes ? shm.peer[pe].pid : 0;
    pthread_mutex_unlock(&shm.lock);
    return pid;
}

void shoal_shm_disconnect(shoal_bootstrap_t *bs, shoal_route_t *rt)
{
    pthread_mutex_lock(&shm.lock);
    SHOAL_DEBUG("unmapping the %d peer segments mapped on first use", shm.nmapped);
    for (int pe = 0; pe < bs->npes; pe++) {
        if (pe == bs->rank)
            continue;
        for (unsigned r = 0; r < SHOAL_ROUTE_ROWS; r++) {
            uintptr_t base = shoal_route_peer_base(rt, pe, r);
            if (base != 0)
                unmap_row(shm.peer != NULL ? &shm.peer[pe] : NULL, r, base, rt->row[r].size);
            shoal_route_set_peer(rt, pe, r, NULL);
        }
    }
    rt->map_peer = NULL;
    if (rt->lazy != NULL)
        memset(rt->lazy, 0, (size_t)bs->npes);
    free(shm.peer);
    shm.peer = NULL;
    shm.npes = 0;
    shm.nmapped = 0;
    pthread_mutex_unlock(&shm.lock);
}
