/*
 * The device symmetric heap (see device_heap.h): setup, growth with the exchange
 * of every new piece between the PEs of a host, copies through the driver,
 * and teardown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/cuda.h"
#include "device/device_heap.h"
#include "device/stream.h"
#include "mem/heap.h"
#include "mem/route_build.h"
#include "transport/shm/fdpass.h"
#include "transport/shm/shm.h"
#include "util/env.h"
#include "util/log.h"

/* Least GPU memory added at a time: fewer exchanges for many small blocks. */
#define DEV_GROW_MIN ((size_t)32 << 20)
/* Default alignment of a device block (what cudaMalloc guarantees). */
#define DEV_ALIGN_DEFAULT 256
#define DEV_MSG 640
#define DEV_FDPASS_TIMEOUT_MS 60000

shoal_device_range_t shoal_device_range;

/* One step of backing: [off, off + len) of every slot. */
typedef struct {
    size_t off, len;
    shoal_CUmemGenericAllocationHandle *handle; /* [nlocal]: the piece in slot i */
    uint8_t *held, *mapped;                     /* [nlocal] */
} dev_piece_t;

static struct {
    int up;     /* the heap exists (every PE agreed) */
    int device; /* its device ordinal; -1 when there is none */
    shoal_CUdevice dev;
    shoal_CUcontext ctx;
    shoal_CUstream stream;
    shoal_CUmemAllocationProp prop;
    size_t gran;
    size_t size; /* of each slot: this PE's heap and each local peer's view */
    uintptr_t va;
    int nlocal, my_slot;
    int *local;  /* [nlocal]: world PE of each slot, in PE order */
    pid_t *pids; /* [nlocal] */
    shoal_heap_t alloc;
    size_t backed;
    dev_piece_t *piece;
    unsigned npieces;
    shoal_fdpass_t fp;
    unsigned votes;     /* agreements so far: they name the bootstrap keys */
    uint64_t exchanges; /* fd exchanges so far */
} dev = {.device = -1, .fp = {.sock = -1}};

static inline uintptr_t slot_base(int slot)
{
    return dev.va + (size_t)slot * dev.size;
}

/* The calling thread's current context is the program's (it may use the
 * runtime on another device): every entry makes the heap's primary context
 * current and gives the thread its own back on the way out. */
shoal_CUcontext shoal_device_ctx_enter(void)
{
    shoal_CUcontext prev = NULL;
    if (shoal_cu.cuCtxGetCurrent == NULL || shoal_cu.cuCtxGetCurrent(&prev) != SHOAL_CUDA_SUCCESS)
        prev = NULL;
    if (dev.ctx != NULL)
        shoal_cu.cuCtxSetCurrent(dev.ctx);
    return prev;
}

void shoal_device_ctx_leave(shoal_CUcontext prev)
{
    if (shoal_cu.cuCtxSetCurrent != NULL)
        shoal_cu.cuCtxSetCurrent(prev);
}

size_t shoal_device_slot_size(void)
{
    return dev.up ? dev.size : 0;
}

/* ---- agreeing: every PE's outcome of a step, so all fail together ---- */

typedef struct {
    int32_t status;
    int32_t device;
    char msg[DEV_MSG];
} dev_vote_t;

/* Collective: returns SHOAL_OK when every PE's `mine` is, else the first
 * failing PE's status on every PE. The first failing PE logs its message,
 * with how many PEs failed; another failing PE logs its own only when it
 * says something else. */
shoal_status_t shoal_device_agree(const shoal_device_job_t *job, const char *fn,
                                  shoal_status_t mine, const char *my_msg, const char *outcome)
{
    dev_vote_t v;
    memset(&v, 0, sizeof(v));
    v.status = mine;
    v.device = dev.device;
    if (mine != SHOAL_OK)
        snprintf(v.msg, sizeof(v.msg), "%s", my_msg);
    char key[64];
    snprintf(key, sizeof(key), "dev.%u.%u", job->generation, dev.votes++);
    shoal_bootstrap_gather_t all = {0};
    shoal_status_t status = shoal_bootstrap_allgather(job->bs, key, &v, sizeof(v), &all);
    if (status != SHOAL_OK) {
        SHOAL_ERROR("%s: the PEs could not agree on the device heap through the bootstrap: %s", fn,
                    shoal_status_str(status));
        return status;
    }
    int first = -1, nfailed = 0;
    const dev_vote_t *f = NULL;
    for (int pe = 0; pe < job->bs->npes; pe++) {
        size_t len;
        const dev_vote_t *pv = shoal_bootstrap_gather_at(&all, pe, &len);
        if (len != sizeof(*pv) || pv->status != SHOAL_OK) {
            nfailed++;
            if (first < 0) {
                first = pe;
                f = len == sizeof(*pv) ? pv : NULL;
            }
        }
    }
    status = first < 0 ? SHOAL_OK : f != NULL ? (shoal_status_t)f->status : SHOAL_ERR_IO;
    if (first == job->bs->rank)
        SHOAL_ERROR("%s (on %d of %d PEs; %s)", v.msg, nfailed, job->bs->npes, outcome);
    else if (mine != SHOAL_OK && f != NULL && strcmp(f->msg, v.msg) != 0)
        SHOAL_ERROR("%s", v.msg);
    else if (first >= 0 && f == NULL && job->bs->rank == 0)
        SHOAL_ERROR("%s: PE %d sent a malformed device heap vote; do all PEs run the same Shoal "
                    "build?",
                    fn, first);
    shoal_bootstrap_gather_free(&all);
    return status;
}

static shoal_status_t agree(const shoal_device_job_t *job, const char *fn, shoal_status_t mine,
                            const char *my_msg)
{
    return shoal_device_agree(job, fn, mine, my_msg, "the allocation returns NULL on every PE");
}

/* ---- pieces ---- */

static void piece_release(dev_piece_t *p)
{
    for (int i = 0; i < dev.nlocal; i++) {
        if (p->mapped != NULL && p->mapped[i])
            shoal_cu.cuMemUnmap(slot_base(i) + p->off, p->len);
        if (p->held != NULL && p->held[i])
            shoal_cu.cuMemRelease(p->handle[i]);
    }
    free(p->handle);
    free(p->held);
    free(p->mapped);
    memset(p, 0, sizeof(*p));
}

/* Maps handle h at slot's [off, off + len) and lets this PE's device use it. */
static shoal_status_t piece_map(dev_piece_t *p, int slot, char *msg, size_t msglen, const char *fn)
{
    char err[200];
    const shoal_CUdeviceptr at = slot_base(slot) + p->off;
    shoal_CUresult r = shoal_cu.cuMemMap(at, p->len, 0, p->handle[slot], 0);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen, "%s: mapping %zu bytes of %s device heap: %s", fn, p->len,
                 slot == dev.my_slot ? "this PE's" : "a local peer's",
                 shoal_cuda_strerror("cuMemMap", r, err, sizeof(err)));
        return SHOAL_ERR_SYSTEM;
    }
    p->mapped[slot] = 1;
    shoal_CUmemAccessDesc access = {
        .location = {.type = SHOAL_CU_MEM_LOCATION_TYPE_DEVICE, .id = dev.device},
        .flags = SHOAL_CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    r = shoal_cu.cuMemSetAccess(at, p->len, &access, 1);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen,
                 "%s: device %d cannot access %s device heap (%s); PEs whose GPUs have no peer "
                 "access to each other cannot share device heaps",
                 fn, dev.device, slot == dev.my_slot ? "this PE's" : "local PE's",
                 shoal_cuda_strerror("cuMemSetAccess", r, err, sizeof(err)));
        return SHOAL_ERR_UNSUPPORTED;
    }
    return SHOAL_OK;
}

/* This PE's part of growing: a new piece of len bytes at off, mapped here,
 * and its fd (or -1 when no peer needs it). */
static shoal_status_t piece_create(dev_piece_t *p, int *fd_p, char *msg, size_t msglen,
                                   const char *fn)
{
    char err[200];
    *fd_p = -1;
    shoal_CUresult r = shoal_cu.cuMemCreate(&p->handle[dev.my_slot], p->len, &dev.prop, 0);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen,
                 "%s: adding %zu bytes of GPU memory to the device heap on device %d: %s; free "
                 "GPU memory or allocate less",
                 fn, p->len, dev.device, shoal_cuda_strerror("cuMemCreate", r, err, sizeof(err)));
        return SHOAL_ERR_NOMEM;
    }
    p->held[dev.my_slot] = 1;
    shoal_status_t status = piece_map(p, dev.my_slot, msg, msglen, fn);
    if (status != SHOAL_OK || dev.nlocal == 1)
        return status;
    int fd = -1;
    r = shoal_cu.cuMemExportToShareableHandle(&fd, p->handle[dev.my_slot],
                                              SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen, "%s: exporting the device heap to this host's other PEs: %s", fn,
                 shoal_cuda_strerror("cuMemExportToShareableHandle", r, err, sizeof(err)));
        return SHOAL_ERR_UNSUPPORTED;
    }
    *fd_p = fd;
    return SHOAL_OK;
}

/* Passes fd to every local peer and maps theirs into their views. */
static shoal_status_t piece_import(dev_piece_t *p, int fd, char *msg, size_t msglen, const char *fn)
{
    char err[200];
    const int npeers = dev.nlocal - 1;
    int peers[npeers > 0 ? npeers : 1], fds[npeers > 0 ? npeers : 1],
        slots[npeers > 0 ? npeers : 1];
    pid_t pids[npeers > 0 ? npeers : 1];
    for (int i = 0, k = 0; i < dev.nlocal; i++)
        if (i != dev.my_slot) {
            peers[k] = dev.local[i];
            pids[k] = dev.pids[i];
            slots[k++] = i;
        }
    char why[DEV_MSG - 64];
    shoal_status_t status = shoal_fdpass_exchange(&dev.fp, dev.exchanges++, fd, peers, pids, npeers,
                                                  fds, DEV_FDPASS_TIMEOUT_MS, why, sizeof(why));
    if (status != SHOAL_OK) {
        snprintf(msg, msglen, "%s: %s", fn, why);
        return status;
    }
    for (int k = 0; k < npeers; k++) {
        const int slot = slots[k];
        if (status == SHOAL_OK) {
            shoal_CUresult r = shoal_cu.cuMemImportFromShareableHandle(
                &p->handle[slot], (void *)(uintptr_t)fds[k],
                SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
            if (r != SHOAL_CUDA_SUCCESS) {
                snprintf(
                    msg, msglen, "%s: importing local PE %d's device heap: %s", fn, peers[k],
                    shoal_cuda_strerror("cuMemImportFromShareableHandle", r, err, sizeof(err)));
                status = SHOAL_ERR_SYSTEM;
            } else {
                p->held[slot] = 1;
                status = piece_map(p, slot, msg, msglen, fn);
            }
        }
        close(fds[k]); /* the import holds the memory */
    }
    return status;
}

/* Collective: backs [backed, at least need_end) of every slot. */
static shoal_status_t grow(const shoal_device_job_t *job, const char *fn, size_t need_end)
{
    char msg[DEV_MSG] = "";
    size_t want = need_end > dev.backed + DEV_GROW_MIN ? need_end : dev.backed + DEV_GROW_MIN;
    want = (want + dev.gran - 1) / dev.gran * dev.gran;
    if (want > dev.size)
        want = dev.size;
    dev_piece_t p = {.off = dev.backed, .len = want - dev.backed};
    p.handle = calloc((size_t)dev.nlocal, sizeof(*p.handle));
    p.held = calloc((size_t)dev.nlocal, 1);
    p.mapped = calloc((size_t)dev.nlocal, 1);
    dev_piece_t *grown = realloc(dev.piece, (dev.npieces + 1) * sizeof(*dev.piece));
    if (grown != NULL)
        dev.piece = grown;
    int fd = -1;
    shoal_status_t mine = SHOAL_ERR_NOMEM;
    if (p.handle == NULL || p.held == NULL || p.mapped == NULL || grown == NULL)
        snprintf(msg, sizeof(msg), "%s: out of host memory growing the device heap", fn);
    else
        mine = piece_create(&p, &fd, msg, sizeof(msg), fn);
    shoal_status_t status = agree(job, fn, mine, msg);
    if (status == SHOAL_OK && dev.nlocal > 1) {
        mine = piece_import(&p, fd, msg, sizeof(msg), fn);
        status = agree(job, fn, mine, msg);
    }
    if (fd >= 0)
        close(fd);
    if (status != SHOAL_OK) {
        piece_release(&p);
        return status;
    }
    dev.piece[dev.npieces++] = p;
    dev.backed = want;
    shoal_route_set_row(job->rt, SHOAL_ROUTE_DEVICE, (void *)slot_base(dev.my_slot), dev.backed,
                        SHOAL_MEM_DEVICE);
    SHOAL_DEBUG("device heap on device %d backed to %zu bytes (+%zu, %d PEs of this host)",
                dev.device, dev.backed, p.len, dev.nlocal);
    return SHOAL_OK;
}

/* ---- setup and teardown ---- */

static void teardown(shoal_route_t *rt)
{
    shoal_CUcontext prev = shoal_device_ctx_enter();
    for (unsigned i = 0; i < dev.npieces; i++)
        piece_release(&dev.piece[i]);
    free(dev.piece);
    if (dev.va != 0)
        shoal_cu.cuMemAddressFree(dev.va, dev.size * (size_t)dev.nlocal);
    if (dev.alloc.base != NULL)
        shoal_heap_finalize(&dev.alloc);
    if (dev.stream != NULL)
        shoal_cu.cuStreamDestroy(dev.stream);
    if (dev.ctx != NULL)
        shoal_cu.cuDevicePrimaryCtxRelease(dev.dev);
    shoal_fdpass_close(&dev.fp);
    if (rt != NULL && dev.up) {
        for (int i = 0; i < dev.nlocal; i++)
            if (i != dev.my_slot)
                shoal_route_set_peer(rt, dev.local[i], SHOAL_ROUTE_DEVICE, NULL);
        shoal_route_set_row(rt, SHOAL_ROUTE_DEVICE, NULL, 0, SHOAL_MEM_HOST);
    }
    free(dev.local);
    free(dev.pids);
    shoal_device_ctx_leave(prev);
    const unsigned votes = dev.votes;
    const uint64_t exchanges = dev.exchanges;
    memset(&dev, 0, sizeof(dev));
    dev.device = -1;
    dev.fp.sock = -1;
    dev.votes = votes;
    dev.exchanges = exchanges;
    memset(&shoal_device_range, 0, sizeof(shoal_device_range));
}

/* The device a PE uses when the call names none. */
static shoal_status_t default_device(const char *fn, int *device_p, char *msg, size_t msglen)
{
    const char *s = shoal_env.device;
    if (s == NULL || s[0] == '\0') {
        *device_p = dev.my_slot % shoal_cu.ndevices;
        return SHOAL_OK;
    }
    char *end;
    long d = strtol(s, &end, 10);
    if (*end != '\0' || end == s || d < 0 || d > 1 << 20) {
        snprintf(msg, msglen, "%s: SHOAL_DEVICE=%s is not a device ordinal (0 to %d here)", fn, s,
                 shoal_cu.ndevices - 1);
        return SHOAL_ERR_INVALID;
    }
    *device_p = (int)d;
    return SHOAL_OK;
}

#define DEV_CHECK(call, args, what)                                                                \
    do {                                                                                           \
        shoal_CUresult r_ = shoal_cu.call args;                                                    \
        if (r_ != SHOAL_CUDA_SUCCESS) {                                                            \
            snprintf(msg, msglen, "%s: %s: %s", fn, what,                                          \
                     shoal_cuda_strerror(#call, r_, err, sizeof(err)));                            \
            return SHOAL_ERR_SYSTEM;                                                               \
        }                                                                                          \
    } while (0)

/* This PE's part of making the heap; teardown() undoes a partial one. */
static shoal_status_t setup_local(const shoal_device_job_t *job, const char *fn, int device,
                                  char *msg, size_t msglen)
{
    char err[200];
    shoal_status_t status = shoal_cuda_load(fn, msg, msglen);
    if (status != SHOAL_OK)
        return status;
    const int npes = job->bs->npes, me = job->bs->rank;
    dev.local = malloc(sizeof(int) * (size_t)npes);
    dev.pids = calloc((size_t)npes, sizeof(pid_t));
    if (dev.local == NULL || dev.pids == NULL) {
        snprintf(msg, msglen, "%s: out of host memory making the device heap", fn);
        return SHOAL_ERR_NOMEM;
    }
    for (int pe = 0; pe < npes; pe++)
        if (job->node[pe] == job->node[me]) {
            if (pe == me)
                dev.my_slot = dev.nlocal;
            else
                dev.pids[dev.nlocal] = shoal_shm_local_pid(pe);
            dev.local[dev.nlocal++] = pe;
        }
    if (device == SHOAL_DEVICE_DEFAULT &&
        (status = default_device(fn, &device, msg, msglen)) != SHOAL_OK)
        return status;
    if (device < 0 || device >= shoal_cu.ndevices) {
        snprintf(msg, msglen, "%s: there is no CUDA device %d: the driver sees %d (0 to %d)", fn,
                 device, shoal_cu.ndevices, shoal_cu.ndevices - 1);
        return SHOAL_ERR_INVALID;
    }
    dev.device = device;
    DEV_CHECK(cuDeviceGet, (&dev.dev, device), "finding the device");
    int vmm = 0, posix_fd = 0;
    DEV_CHECK(cuDeviceGetAttribute,
              (&vmm, SHOAL_CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev.dev),
              "asking whether the device supports virtual memory management");
    DEV_CHECK(
        cuDeviceGetAttribute,
        (&posix_fd, SHOAL_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev.dev),
        "asking whether the device exports memory as file descriptors");
    if (!vmm || !posix_fd) {
        snprintf(msg, msglen,
                 "%s: CUDA device %d does not support %s, which the device heap needs "
                 "(cuMemCreate, cuMemMap and POSIX file-descriptor export)",
                 fn, device, !vmm ? "virtual memory management" : "POSIX file-descriptor export");
        return SHOAL_ERR_UNSUPPORTED;
    }
    DEV_CHECK(cuDevicePrimaryCtxRetain, (&dev.ctx, dev.dev),
              "taking the device's primary context (a GPU in exclusive-process compute mode "
              "admits one process: PEs sharing it need the default mode, nvidia-smi -c DEFAULT, "
              "or MPS)");
    DEV_CHECK(cuCtxSetCurrent, (dev.ctx), "making the primary context current");
    DEV_CHECK(cuStreamCreate, (&dev.stream, SHOAL_CU_STREAM_NON_BLOCKING),
              "creating the copy stream");
    dev.prop = (shoal_CUmemAllocationProp){
        .type = SHOAL_CU_MEM_ALLOCATION_TYPE_PINNED,
        .requestedHandleTypes = SHOAL_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
        .location = {.type = SHOAL_CU_MEM_LOCATION_TYPE_DEVICE, .id = device}};
    DEV_CHECK(cuMemGetAllocationGranularity,
              (&dev.gran, &dev.prop, SHOAL_CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
              "asking for the allocation granularity");
    if (dev.gran == 0)
        dev.gran = (size_t)2 << 20;
    size_t size = shoal_env.device_heap_size;
    dev.size = (size + dev.gran - 1) / dev.gran * dev.gran;
    if (dev.size == 0)
        dev.size = dev.gran;
    shoal_CUdeviceptr va = 0;
    shoal_CUresult r =
        shoal_cu.cuMemAddressReserve(&va, dev.size * (size_t)dev.nlocal, dev.gran, 0, 0);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen,
                 "%s: reserving %zu bytes of GPU address space (SHOAL_DEVICE_HEAP_SIZE=%zu for "
                 "each of this host's %d PEs): %s; lower SHOAL_DEVICE_HEAP_SIZE",
                 fn, dev.size * (size_t)dev.nlocal, dev.size, dev.nlocal,
                 shoal_cuda_strerror("cuMemAddressReserve", r, err, sizeof(err)));
        return SHOAL_ERR_NOMEM;
    }
    dev.va = (uintptr_t)va;
    status = shoal_heap_init(&dev.alloc, (char *)slot_base(dev.my_slot), dev.size);
    if (status != SHOAL_OK) {
        snprintf(msg, msglen, "%s: out of host memory making the device heap", fn);
        return status;
    }
    if (dev.nlocal > 1) {
        char why[DEV_MSG - 64];
        /* Named by the job id and the pid of the host's lowest PE: unique on
         * this host while the job lives, even where a bootstrap has no id. */
        char what[48];
        snprintf(what, sizeof(what), "dev%d", dev.my_slot == 0 ? (int)getpid() : (int)dev.pids[0]);
        status = shoal_fdpass_open(&dev.fp, job->bs->job_id, job->generation, what, me, why,
                                   sizeof(why));
        if (status != SHOAL_OK) {
            snprintf(msg, msglen, "%s: %s", fn, why);
            return status;
        }
    }
    return SHOAL_OK;
}

/* Makes the heap on every PE, or on none. */
static shoal_status_t setup(const shoal_device_job_t *job, const char *fn, int device)
{
    char msg[DEV_MSG] = "";
    shoal_status_t status = agree(job, fn, setup_local(job, fn, device, msg, sizeof(msg)), msg);
    if (status != SHOAL_OK) {
        teardown(NULL);
        return status;
    }
    shoal_route_set_row(job->rt, SHOAL_ROUTE_DEVICE, (void *)slot_base(dev.my_slot), 0,
                        SHOAL_MEM_DEVICE);
    for (int i = 0; i < dev.nlocal; i++)
        if (i != dev.my_slot)
            shoal_route_set_peer(job->rt, dev.local[i], SHOAL_ROUTE_DEVICE, (void *)slot_base(i));
    shoal_device_range.va = dev.va;
    shoal_device_range.va_size = dev.size * (size_t)dev.nlocal;
    dev.up = 1;
    SHOAL_DEBUG("device heap on device %d: %zu bytes of address space per PE, %d PEs of this "
                "host, granularity %zu",
                dev.device, dev.size, dev.nlocal, dev.gran);
    return SHOAL_OK;
}

static shoal_status_t device_alloc(const shoal_device_job_t *job, const char *fn, size_t size,
                                   size_t align, int device, void **ptr_p)
{
    shoal_status_t status;
    *ptr_p = NULL;
    if (!dev.up) {
        status = setup(job, fn, device);
    } else {
        char msg[DEV_MSG] = "";
        shoal_status_t mine = SHOAL_OK;
        if (device != SHOAL_DEVICE_DEFAULT && device != dev.device) {
            snprintf(msg, sizeof(msg),
                     "%s: this PE's device heap is on device %d, but the call asks for device "
                     "%d; a PE has one device heap, on one device",
                     fn, dev.device, device);
            mine = SHOAL_ERR_INVALID;
        }
        status = agree(job, fn, mine, msg);
    }
    if (status != SHOAL_OK || size == 0)
        return status;
    void *ptr = NULL;
    if (shoal_heap_alloc(&dev.alloc, size, align < DEV_ALIGN_DEFAULT ? DEV_ALIGN_DEFAULT : align,
                         &ptr) != SHOAL_OK) {
        if (job->bs->rank == 0)
            SHOAL_ERROR("%s: out of device symmetric heap: requested %zu bytes, %zu bytes free, "
                        "largest free block %zu bytes, heap %zu bytes; raise "
                        "SHOAL_DEVICE_HEAP_SIZE",
                        fn, size, dev.alloc.size - dev.alloc.used,
                        shoal_heap_largest_free(&dev.alloc), dev.alloc.size);
        return SHOAL_ERR_NOMEM;
    }
    const size_t end = (size_t)((char *)ptr - (char *)slot_base(dev.my_slot)) + size;
    if (end > dev.backed && (status = grow(job, fn, end)) != SHOAL_OK) {
        shoal_heap_free(&dev.alloc, ptr);
        return status;
    }
    *ptr_p = ptr;
    return SHOAL_OK;
}

shoal_status_t shoal_device_alloc(const shoal_device_job_t *job, const char *fn, size_t size,
                                  size_t align, int device, void **ptr_p)
{
    char msg[DEV_MSG];
    /* The driver first, to learn the thread's context before setup takes
     * the heap's (a failure here is repeated, and agreed on, by setup). */
    const int loaded = shoal_cuda_load(fn, msg, sizeof(msg)) == SHOAL_OK;
    shoal_CUcontext prev = loaded ? shoal_device_ctx_enter() : NULL;
    shoal_status_t status = device_alloc(job, fn, size, align, device, ptr_p);
    if (loaded)
        shoal_device_ctx_leave(prev);
    return status;
}

shoal_status_t shoal_device_free(void *ptr)
{
    if (!dev.up)
        return SHOAL_ERR_NOT_FOUND;
    return shoal_heap_free(&dev.alloc, ptr);
}

void shoal_device_heap_info(size_t *total_p, size_t *used_p, size_t *backed_p, int *device_p)
{
    *total_p = dev.up ? dev.alloc.size : 0;
    *used_p = dev.up ? dev.alloc.used : 0;
    *backed_p = dev.up ? dev.backed : 0;
    *device_p = dev.up ? dev.device : -1;
}

shoal_status_t shoal_device_copy(const char *fn, void *dst, const void *src, size_t len, char *msg,
                                 size_t msglen)
{
    char err[200];
    if (!dev.up) {
        snprintf(msg, msglen, "%s: copying to or from device memory needs this PE's device heap",
                 fn);
        return SHOAL_ERR_INVALID;
    }
    shoal_CUcontext prev = shoal_device_ctx_enter();
    const char *call = "cuMemcpyAsync";
    shoal_CUresult r = shoal_cu.cuMemcpyAsync((shoal_CUdeviceptr)(uintptr_t)dst,
                                              (shoal_CUdeviceptr)(uintptr_t)src, len, dev.stream);
    if (r == SHOAL_CUDA_SUCCESS) {
        call = "cuStreamSynchronize";
        r = shoal_cu.cuStreamSynchronize(dev.stream);
    }
    shoal_device_ctx_leave(prev);
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen, "%s: copying %zu bytes from %p to %p through the CUDA driver: %s", fn,
                 len, src, dst, shoal_cuda_strerror(call, r, err, sizeof(err)));
        return SHOAL_ERR_SYSTEM;
    }
    return SHOAL_OK;
}

void shoal_device_finalize(const shoal_device_job_t *job)
{
    shoal_device_stream_finalize(); /* its gates are registered with the heap's context */
    if (dev.up)
        SHOAL_DEBUG("releasing the device heap on device %d (%zu bytes backed)", dev.device,
                    dev.backed);
    teardown(job->rt);
}
