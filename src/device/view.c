/*
 * The device view of the job (see view.h): the route table on the GPU, host
 * symmetric memory registered for kernels, the mailbox and its monitor.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "device/cuda.h"
#include "device/proxy.h"
#include "device/stream.h"
#include "device/view.h"
#include "transport/transport.h"
#include "util/cmp_names.h"
#include "util/env.h"
#include "util/log.h"
#include "util/thread.h"

#define VIEW_MSG 640
#define MONITOR_POLL_MS 10
#define REPORT_GRACE_MS 100

/* The host heap is registered for kernels in steps of this much: each
 * local PE's heap from its base to its high-water mark of allocations,
 * rounded up to a step (the whole heap when smaller). Big enough that a
 * program's allocations cost few registrations (each pins its pages and
 * maps them for the GPU, ~ms per 64 MiB), small enough that a job which
 * uses little of a 1 GiB heap pins little. */
#define HEAP_REG_STEP ((uint64_t)64 << 20)

/* One host range registered with CUDA. */
typedef struct {
    void *base;
    size_t size;
} host_reg_t;

static struct {
    int up;
    shmemx_dev_t d;
    void *block; /* the view's block of the device heap */
    shmemx_dev_mailbox_t *mailbox;
    size_t mailbox_bytes;
    int mailbox_registered;
    host_reg_t *regs;
    unsigned nregs, regs_cap;
    shoal_bootstrap_t *bs;
    const shoal_route_t *rt;
    const int *node;
    void *inbox; /* the device proxy's, in the host symmetric heap */
    /* The host heap (route row 0): how far from its base allocations have
     * reached (kept from shmem_init on, before the view exists too), how
     * much of each local PE's heap is registered, and where this GPU sees
     * each PE's heap ([npes]; 0: kernels cannot reach it). */
    uint64_t heap_top, heap_reg;
    uint64_t *heap_dev;
    pthread_t monitor;
    int monitor_up, stop;
} view;

shmemx_dev_mailbox_t *shoal_device_mailbox(void)
{
    return view.up ? view.mailbox : NULL;
}

/* ---- the monitor: a kernel's report ends the job ------------------------ */

static void report_text(const shmemx_dev_report_t *r, char *msg, size_t len)
{
    char where[96];
    snprintf(where, sizeof(where), "block (%u,%u,%u), thread (%u,%u,%u)", r->block[0], r->block[1],
             r->block[2], r->thread[0], r->thread[1], r->thread[2]);
    switch (r->code) {
    case SHMEMX_DEV_REPORT_TIMEOUT:
        snprintf(msg, len,
                 "PE %d: a device wait timed out in %s (%s): waited %.1f s for the word at 0x%llx "
                 "to be %s %llu; it last saw %llu. Raise SHOAL_DEVICE_WAIT_TIMEOUT (%u s) if the "
                 "wait is legitimately long; else the PE that should update that word never "
                 "did",
                 r->pe, r->call, where, (double)r->waited_ns / 1e9, (unsigned long long)r->addr,
                 shoal_cmp_op(r->cmp), (unsigned long long)r->expected, (unsigned long long)r->last,
                 shoal_env.device_wait_timeout);
        break;
    case SHMEMX_DEV_REPORT_UNREACHABLE:
        snprintf(msg, len,
                 "PE %d: %s (%s) aimed at address 0x%llx (%llu bytes) on PE %d, which this GPU "
                 "cannot reach: a kernel reaches the symmetric memory (device heap, host heap "
                 "and globals) of the PEs of its own host only, and the whole range must lie in "
                 "one of them",
                 r->pe, r->call, where, (unsigned long long)r->addr,
                 (unsigned long long)r->expected, r->target);
        break;
    default:
        snprintf(msg, len, "PE %d: %s (%s) got a bad argument: %lld (the limit is %llu)", r->pe,
                 r->call, where, (long long)r->expected, (unsigned long long)r->last);
        break;
    }
    const size_t used = strlen(msg);
    if (r->others != 0 && used < len)
        snprintf(msg + used, len - used,
                 " (%u other thread%s of this PE failed at the same time; this is the first)",
                 r->others, r->others == 1 ? "" : "s");
}

static void *monitor_main(void *arg)
{
    (void)arg;
    shoal_thread_name("shoal-devview");
    const struct timespec poll = {0, MONITOR_POLL_MS * 1000000L};
    while (!__atomic_load_n(&view.stop, __ATOMIC_ACQUIRE)) {
        if (__atomic_load_n(&view.mailbox->report.state, __ATOMIC_ACQUIRE) == 2) {
            /* A moment for threads that failed with the first to count themselves. */
            const struct timespec grace = {0, REPORT_GRACE_MS * 1000000L};
            nanosleep(&grace, NULL);
            char msg[VIEW_MSG];
            report_text(&view.mailbox->report, msg, sizeof(msg));
            SHOAL_ERROR("a kernel stopped: %s; ending the job", msg);
            view.bs->ops->abort(view.bs, 1, msg);
            _exit(1);
        }
        nanosleep(&poll, NULL);
    }
    return NULL;
}

/* ---- making the view ------------------------------------------------------ */

/* Registers [base, base + size) of host memory for the GPU; its device
 * address, or 0 after a warning naming `fn` when the driver refuses
 * (kernels then cannot reach it). */
static uint64_t host_register(const char *fn, void *base, size_t size, int pe, const char *what)
{
    char err[200];
    if (view.nregs == view.regs_cap) {
        const unsigned cap = view.regs_cap == 0 ? 16 : 2 * view.regs_cap;
        host_reg_t *regs = realloc(view.regs, cap * sizeof(*regs));
        if (regs == NULL) {
            SHOAL_WARN("%s: kernels cannot reach PE %d's %s: out of memory", fn, pe, what);
            return 0;
        }
        view.regs = regs;
        view.regs_cap = cap;
    }
    shoal_CUresult r = shoal_cu.cuMemHostRegister(
        base, size, SHOAL_CU_MEMHOSTREGISTER_PORTABLE | SHOAL_CU_MEMHOSTREGISTER_DEVICEMAP);
    if (r != SHOAL_CUDA_SUCCESS) {
        SHOAL_WARN("%s: kernels cannot reach PE %d's %s (%zu bytes at %p): %s", fn, pe, what, size,
                   base, shoal_cuda_strerror("cuMemHostRegister", r, err, sizeof(err)));
        return 0;
    }
    shoal_CUdeviceptr dptr = 0;
    r = shoal_cu.cuMemHostGetDevicePointer(&dptr, base, 0);
    if (r != SHOAL_CUDA_SUCCESS) {
        SHOAL_WARN("%s: kernels cannot reach PE %d's %s: %s", fn, pe, what,
                   shoal_cuda_strerror("cuMemHostGetDevicePointer", r, err, sizeof(err)));
        shoal_cu.cuMemHostUnregister(base);
        return 0;
    }
    view.regs[view.nregs++] = (host_reg_t){base, size};
    return dptr;
}

/* How much of each heap kernels must reach for allocations up to `top`:
 * whole steps from the heap's base, at least one, at most the heap. */
static uint64_t heap_reg_bytes(uint64_t top, uint64_t heap_size)
{
    uint64_t want =
        top == 0 ? HEAP_REG_STEP : (top + HEAP_REG_STEP - 1) / HEAP_REG_STEP * HEAP_REG_STEP;
    return want < heap_size ? want : heap_size;
}

/* Extends the registration of every reachable local PE's heap from
 * view.heap_reg to `want` bytes: one more range each, right after the last
 * (registered ranges may not overlap). With unified addressing the device
 * address of registered host memory is its host address, so the table's
 * base stays right for the new range; should the driver give another, or
 * refuse, kernels lose that PE's heap (its table entry becomes 0, so they
 * report instead of faulting) and the warning says so. */
static void heap_extend(const char *fn, uint64_t want)
{
    const int me = view.bs->rank, npes = view.bs->npes;
    const uint64_t have = view.heap_reg;
    for (int pe = 0; pe < npes; pe++) {
        if (view.node[pe] != view.node[me] || view.heap_dev[pe] == 0)
            continue;
        char *base = (char *)shoal_route_peer_map(view.rt, pe, SHOAL_ROUTE_HEAP);
        const uint64_t dptr =
            base == NULL ? 0
                         : host_register(fn, base + have, want - have, pe,
                                         "host symmetric heap, now any of it (they report it as "
                                         "unreachable; keep their data in the device heap)");
        if (dptr == view.heap_dev[pe] + have)
            continue;
        if (dptr != 0)
            SHOAL_WARN("%s: kernels cannot reach PE %d's host symmetric heap any more (they "
                       "report it as unreachable): the GPU sees its next part at 0x%llx, not "
                       "right after the rest (0x%llx), so this driver does not give host memory "
                       "its own address (unified addressing)",
                       fn, pe, (unsigned long long)dptr,
                       (unsigned long long)(view.heap_dev[pe] + have));
        view.heap_dev[pe] = 0;
        const uint64_t zero = 0;
        char msg[VIEW_MSG];
        uint64_t *entry = (uint64_t *)view.block + (size_t)pe * SHMEMX_DEV_ROWS + SHOAL_ROUTE_HEAP;
        if (shoal_device_copy(fn, entry, &zero, sizeof(zero), msg, sizeof(msg)) != SHOAL_OK)
            SHOAL_WARN("%s", msg);
    }
    view.heap_reg = want;
    SHOAL_DEBUG("%s: kernels reach the first %llu bytes of each local PE's host symmetric heap "
                "(allocations reach %llu)",
                fn, (unsigned long long)want, (unsigned long long)view.heap_top);
}

void shoal_device_view_heap_top(const char *fn, uint64_t top)
{
    if (top <= view.heap_top)
        return;
    view.heap_top = top;
    if (!view.up || view.heap_dev == NULL)
        return;
    const uint64_t want = heap_reg_bytes(top, view.rt->row[SHOAL_ROUTE_HEAP].size);
    if (want <= view.heap_reg)
        return;
    shoal_CUcontext prev = shoal_device_ctx_enter();
    heap_extend(fn, want);
    shoal_device_ctx_leave(prev);
}

static void unregister_all(void)
{
    for (unsigned i = 0; i < view.nregs; i++)
        shoal_cu.cuMemHostUnregister(view.regs[i].base);
    free(view.regs);
    view.regs = NULL;
    view.nregs = view.regs_cap = 0;
    if (view.mailbox_registered)
        shoal_cu.cuMemHostUnregister(view.mailbox);
    view.mailbox_registered = 0;
    free(view.heap_dev);
    view.heap_dev = NULL;
    view.heap_reg = 0;
}

/* The local part: the mailbox, the registrations, the table. */
static shoal_status_t make_local(const shoal_device_view_job_t *vj, const char *fn, uint64_t *table,
                                 char *msg, size_t msglen)
{
    const shoal_device_job_t *job = &vj->job;
    const shoal_route_t *rt = job->rt;
    const int me = job->bs->rank, npes = job->bs->npes;
    char err[200];

    view.mailbox_bytes = ((sizeof(shmemx_dev_mailbox_t) + 4095) / 4096) * 4096;
    void *mb =
        mmap(NULL, view.mailbox_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mb == MAP_FAILED) {
        snprintf(msg, msglen, "%s: cannot map the mailbox page: %m", fn);
        return SHOAL_ERR_NOMEM;
    }
    view.mailbox = mb;
    shoal_CUresult r = shoal_cu.cuMemHostRegister(mb, view.mailbox_bytes,
                                                  SHOAL_CU_MEMHOSTREGISTER_PORTABLE |
                                                      SHOAL_CU_MEMHOSTREGISTER_DEVICEMAP);
    shoal_CUdeviceptr mb_dev = 0;
    if (r == SHOAL_CUDA_SUCCESS) {
        view.mailbox_registered = 1;
        r = shoal_cu.cuMemHostGetDevicePointer(&mb_dev, mb, 0);
    }
    if (r != SHOAL_CUDA_SUCCESS) {
        snprintf(msg, msglen, "%s: cannot make the mailbox page reachable from the GPU: %s", fn,
                 shoal_cuda_strerror("cuMemHostRegister", r, err, sizeof(err)));
        return SHOAL_ERR_SYSTEM;
    }
    view.d.mailbox = (shmemx_dev_mailbox_t *)(uintptr_t)mb_dev;

    /* Row 2, the device heap: the views of local peers' heaps, fixed for
     * the job, over the heap's whole address space. */
    for (int pe = 0; pe < npes; pe++)
        table[(size_t)pe * SHMEMX_DEV_ROWS + SHOAL_ROUTE_DEVICE] =
            job->node[pe] == job->node[me] ? shoal_route_peer_base(rt, pe, SHOAL_ROUTE_DEVICE) : 0;
    /* Rows 0 and 1, host memory: each local PE's mapping here, registered:
     * the globals whole, the heap up to where allocations reach (extended
     * by shoal_device_view_heap_top as they reach further). */
    if (shoal_env.device_host_access) {
        view.heap_dev = calloc((size_t)npes, sizeof(*view.heap_dev));
        if (view.heap_dev == NULL) {
            snprintf(msg, msglen, "%s: out of memory", fn);
            return SHOAL_ERR_NOMEM;
        }
        view.heap_reg = heap_reg_bytes(view.heap_top, rt->row[SHOAL_ROUTE_HEAP].size);
        static const char *const what[] = {"host symmetric heap", "symmetric globals"};
        for (unsigned row = 0; row < 2; row++) {
            if (rt->row[row].size == 0)
                continue;
            const uint64_t bytes = row == SHOAL_ROUTE_HEAP ? view.heap_reg : rt->row[row].size;
            for (int pe = 0; pe < npes; pe++) {
                if (job->node[pe] != job->node[me])
                    continue;
                uintptr_t base = shoal_route_peer_map(rt, pe, row);
                if (base != 0)
                    table[(size_t)pe * SHMEMX_DEV_ROWS + row] =
                        host_register(fn, (void *)base, bytes, pe, what[row]);
            }
        }
        for (int pe = 0; pe < npes; pe++)
            view.heap_dev[pe] = table[(size_t)pe * SHMEMX_DEV_ROWS + SHOAL_ROUTE_HEAP];
    }
    /* The proxy, for PEs of other hosts (there is a network transport). */
    view.d.proxy = NULL;
    if (shoal_net != NULL && vj->alloc_host != NULL && view.inbox == NULL) {
        snprintf(msg, msglen,
                 "%s: no room in the symmetric heap for the device proxy's inbox (%zu bytes); "
                 "raise SHMEM_SYMMETRIC_SIZE",
                 fn, shoal_proxy_inbox_bytes());
        return SHOAL_ERR_NOMEM;
    }
    if (view.inbox != NULL) {
        const shoal_proxy_job_t pj = {
            .bs = job->bs, .rt = job->rt, .node = job->node, .inbox = view.inbox};
        shoal_status_t s = shoal_proxy_start(&pj, fn, &view.d.proxy, msg, msglen);
        if (s != SHOAL_OK)
            return s;
    }
    return SHOAL_OK;
}

static void undo(void)
{
    shoal_proxy_stop();
    unregister_all();
    if (view.mailbox != NULL)
        munmap(view.mailbox, view.mailbox_bytes);
    view.mailbox = NULL;
    if (view.block != NULL)
        shoal_device_free(view.block);
    view.block = NULL;
}

/* ---- which setup the job got: PEs sharing a GPU, MPS ---------------------- */

/* The stream barrier for the job (device/stream.h), the same on every PE:
 * through host memory when every PE is on this host and some PEs share a
 * GPU without MPS (gathered: PCI address, host, MPS pipe, as below). */
typedef struct {
    char pci[24];
    int node;
    int mps; /* an MPS control pipe is there for this PE */
} gpu_id_t;

static void set_stream_sync(const shoal_device_job_t *job, const char *fn,
                            const shoal_bootstrap_gather_t *all)
{
    const size_t id_bytes = sizeof(gpu_id_t);
    const int npes = job->bs->npes;
    int one_host = 1, shared = 0;
    for (int p = 0; p < npes && one_host; p++)
        one_host = job->node[p] == job->node[0];
    for (int p = 0; one_host && !shared && p < npes; p++) {
        size_t lp, lq;
        const gpu_id_t *a = shoal_bootstrap_gather_at(all, p, &lp);
        for (int q = p + 1; !shared && q < npes && lp == id_bytes; q++) {
            const gpu_id_t *b = shoal_bootstrap_gather_at(all, q, &lq);
            shared = lq == id_bytes && strcmp(a->pci, b->pci) == 0 && !(a->mps && b->mps);
        }
    }
    shoal_device_stream_set_sync(fn, job->bs->rank, shared,
                                 shared     ? "PEs share a GPU without MPS: a waiting kernel "
                                              "would be time-sliced"
                                 : one_host ? "no PEs share a GPU without MPS"
                                            : "the job spans hosts");
}

/* Says (at SHOAL_LOG_LEVEL=2, on the lowest PE of each GPU) which PEs of
 * the host share this PE's GPU (PCI address, gathered through the
 * bootstrap) and whether an MPS control pipe is there: under MPS their
 * kernels run at once; without it the driver time-slices them, and every
 * device wait between two of them costs about a slice. Collective. */
static void log_gpu_setup(const shoal_device_job_t *job, const char *fn)
{
    gpu_id_t mine;
    memset(&mine, 0, sizeof(mine));
    mine.node = job->node[job->bs->rank];
    const char *pipe_dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
    char control[512];
    snprintf(control, sizeof(control), "%s/control",
             pipe_dir != NULL && pipe_dir[0] != '\0' ? pipe_dir : "/tmp/nvidia-mps");
    mine.mps = access(control, F_OK) == 0;
    size_t total, used, backed;
    int ordinal = -1, domain = 0, bus = 0, slot = 0;
    shoal_device_heap_info(&total, &used, &backed, &ordinal);
    shoal_CUdevice cu;
    shoal_CUcontext prev = shoal_device_ctx_enter();
    if (ordinal >= 0 && shoal_cu.cuDeviceGet(&cu, ordinal) == SHOAL_CUDA_SUCCESS &&
        shoal_cu.cuDeviceGetAttribute(&domain, SHOAL_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, cu) ==
            SHOAL_CUDA_SUCCESS &&
        shoal_cu.cuDeviceGetAttribute(&bus, SHOAL_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, cu) ==
            SHOAL_CUDA_SUCCESS &&
        shoal_cu.cuDeviceGetAttribute(&slot, SHOAL_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, cu) ==
            SHOAL_CUDA_SUCCESS)
        snprintf(mine.pci, sizeof(mine.pci), "%04x:%02x:%02x", (unsigned)domain, (unsigned)bus,
                 (unsigned)slot);
    else
        snprintf(mine.pci, sizeof(mine.pci), "unknown-%d", job->bs->rank); /* its own */
    shoal_device_ctx_leave(prev);
    char key[64];
    snprintf(key, sizeof(key), "devview.gpu.%u", job->generation);
    shoal_bootstrap_gather_t all = {0};
    if (shoal_bootstrap_allgather(job->bs, key, &mine, sizeof(mine), &all) != SHOAL_OK)
        return; /* only a log line is lost (stream barriers stay kernels) */
    set_stream_sync(job, fn, &all);
    int sharers = 0, lowest = -1;
    char pes[160] = "";
    for (int pe = 0; pe < job->bs->npes; pe++) {
        size_t len;
        const gpu_id_t *g = shoal_bootstrap_gather_at(&all, pe, &len);
        if (len != sizeof(*g) || g->node != mine.node || strcmp(g->pci, mine.pci) != 0)
            continue;
        if (lowest < 0)
            lowest = pe;
        const size_t n = strlen(pes);
        if (n < sizeof(pes) - 16)
            snprintf(pes + n, sizeof(pes) - n, "%s%d", sharers > 0 ? "," : "", pe);
        sharers++;
    }
    shoal_bootstrap_gather_free(&all);
    if (lowest != job->bs->rank)
        return;
    const int mps = mine.mps;
    if (sharers <= 1)
        SHOAL_INFO("%s: GPU setup: PE %d has GPU %s to itself", fn, job->bs->rank, mine.pci);
    else if (mps)
        SHOAL_INFO("%s: GPU setup: PEs %s share GPU %s under MPS (%s): their kernels run at once, "
                   "each on a share of the SMs",
                   fn, pes, mine.pci, control);
    else
        SHOAL_INFO("%s: GPU setup: PEs %s share GPU %s without MPS: the driver time-slices them "
                   "(~1 ms a slice), so a device wait or barrier between them costs about a "
                   "slice; start an MPS daemon (nvidia-cuda-mps-control -d) for device-side "
                   "speed",
                   fn, pes, mine.pci);
}

shoal_status_t shoal_device_view_create(const shoal_device_view_job_t *vj, const char *fn,
                                        shmemx_dev_t *out)
{
    const shoal_device_job_t *job = &vj->job;
    const int npes = job->bs->npes;
    const size_t table_bytes = (size_t)npes * SHMEMX_DEV_ROWS * sizeof(uint64_t);
    const size_t sync_bytes = ((size_t)vj->nslots * (size_t)(npes + 1)) * sizeof(uint64_t);
    char msg[VIEW_MSG] = "";
    shoal_status_t status;

    /* First, whether every PE's program has this library's device ABI. */
    status = shoal_device_agree(job, fn, vj->refuse != NULL ? SHOAL_ERR_INVALID : SHOAL_OK,
                                vj->refuse != NULL ? vj->refuse : "",
                                "shmemx_dev_create returns -1 on every PE");
    if (status != SHOAL_OK)
        return status;
    if (view.up) {
        *out = view.d;
        return SHOAL_OK;
    }
    /* The proxy's inbox (collective, the same offset on every PE). */
    if (shoal_net != NULL && vj->alloc_host != NULL)
        view.inbox = vj->alloc_host(shoal_proxy_inbox_bytes());
    /* The block (collective; makes the heap, and agrees, first). */
    status = shoal_device_alloc(job, fn, table_bytes + sync_bytes, 256, SHOAL_DEVICE_DEFAULT,
                                &view.block);
    if (status != SHOAL_OK)
        return status;

    shoal_CUcontext prev = shoal_device_ctx_enter();
    uint64_t *table = calloc(1, table_bytes + sync_bytes); /* and zeros for the sync words */
    shoal_status_t mine =
        table == NULL ? SHOAL_ERR_NOMEM : make_local(vj, fn, table, msg, sizeof(msg));
    if (table == NULL)
        snprintf(msg, sizeof(msg), "%s: out of memory", fn);
    if (mine == SHOAL_OK)
        mine = shoal_device_copy(fn, view.block, table, table_bytes + sync_bytes, msg, sizeof(msg));
    free(table);
    shoal_device_ctx_leave(prev);
    status = shoal_device_agree(job, fn, mine, msg, "shmemx_dev_create fails on every PE");
    if (status != SHOAL_OK) {
        prev = shoal_device_ctx_enter();
        undo();
        shoal_device_ctx_leave(prev);
        return status;
    }

    shmemx_dev_t *d = &view.d;
    d->version = SHMEMX_DEV_ABI_VERSION;
    d->bytes = sizeof(*d);
    d->my_pe = job->bs->rank;
    d->npes = npes;
    d->nrows = SHOAL_ROUTE_DEVICE + 1;
    d->nslots = vj->nslots;
    d->timeout_ns = (uint64_t)shoal_env.device_wait_timeout * 1000000000ull;
    for (unsigned r = 0; r < d->nrows; r++) {
        d->row[r].base = job->rt->row[r].base;
        d->row[r].size = job->rt->row[r].size;
    }
    d->row[SHOAL_ROUTE_DEVICE].size = shoal_device_slot_size();
    d->peer = (const uint64_t *)view.block;
    d->sync = (uint64_t *)((char *)view.block + table_bytes);

    view.bs = job->bs;
    view.rt = job->rt;
    view.node = job->node;
    view.stop = 0;
    view.monitor_up = pthread_create(&view.monitor, NULL, monitor_main, NULL) == 0;
    if (!view.monitor_up)
        SHOAL_WARN("%s: cannot start the thread that watches for kernel reports; a kernel that "
                   "stops on an error will not end the job",
                   fn);
    view.up = 1;
    log_gpu_setup(job, fn);
    SHOAL_DEBUG("device view: %d PEs, %u team slots, %u host ranges registered, wait timeout %u s",
                npes, vj->nslots, view.nregs, shoal_env.device_wait_timeout);
    *out = view.d;
    return SHOAL_OK;
}

void shoal_device_view_quiesce(void)
{
    if (view.up)
        shoal_proxy_quiesce();
}

void shoal_device_view_stop_proxy(void)
{
    shoal_proxy_stop();
}

void shoal_device_view_destroy(void)
{
    view.heap_top = 0; /* the next shmem_init's heap starts empty */
    if (!view.up)
        return;
    if (view.monitor_up) {
        __atomic_store_n(&view.stop, 1, __ATOMIC_RELEASE);
        pthread_join(view.monitor, NULL);
    }
    shoal_CUcontext prev = shoal_device_ctx_enter();
    undo();
    shoal_device_ctx_leave(prev);
    memset(&view, 0, sizeof(view));
}
