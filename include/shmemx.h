/*
 * Shoal's extensions to OpenSHMEM. Everything here is named shmemx_* or
 * SHMEMX_*; programs that use it are not portable to other implementations.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Starting without shoalrun: the TCP config store ----------------------
 *
 * PEs started by other tools find each other through a small key-value store
 * reached over TCP, protected by TLS 1.3 with mutual authentication unless
 * TLS is turned off. Either describe the job in the environment
 * (SHOAL_RANK, SHOAL_NPES, SHOAL_STORE and the job secret; plain shmem_init
 * then joins), or call shmemx_init_attr:
 *
 *   shmemx_init_attr_t attr = SHMEMX_INIT_ATTR_INITIALIZER;
 *   shmemx_uniqueid_t id;
 *   if (rank == 0) shmemx_get_uniqueid(&id);     // starts the store here
 *   ...pass id to every PE (MPI_Bcast, a file, ...): it holds the job secret...
 *   shmemx_set_attr_uniqueid_args(rank, npes, &id, &attr);
 *   shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, &attr);
 *
 * docs/env.md lists the SHOAL_STORE* settings. */

#define SHMEMX_UNIQUEID_BYTES 128
#define SHMEMX_INIT_ATTR_VERSION 1

/* Where a job's config store is and its secret: pass it unchanged and
 * privately. Made by shmemx_get_uniqueid. */
typedef struct {
    unsigned char internal[SHMEMX_UNIQUEID_BYTES];
} shmemx_uniqueid_t;

/* Flags of shmemx_init_attr. */
#define SHMEMX_INIT_WITH_UNIQUEID (1u << 0) /* rank, npes and uniqueid (see below) */
#define SHMEMX_INIT_WITH_STORE (1u << 1)    /* rank, npes, store and job_key */

typedef struct {
    uint32_t version;    /* SHMEMX_INIT_ATTR_VERSION */
    int rank;            /* this PE, 0 to npes - 1 */
    int npes;            /* PEs in the job */
    const char *store;   /* "host:port" of the store (PE 0 hosts it); NULL: SHOAL_STORE */
    const char *job_key; /* 64 hex digits; NULL: SHOAL_JOB_KEY_FILE or SHOAL_JOB_KEY */
    size_t heap_size;    /* symmetric heap bytes; 0: SHMEM_SYMMETRIC_SIZE */
    /* How long to keep trying to reach the store, and to wait for every PE to
     * join; 0: SHOAL_STORE_CONNECT_TIMEOUT and SHOAL_STORE_JOIN_TIMEOUT. */
    unsigned connect_timeout_ms;
    unsigned join_timeout_ms;
    int thread_level;           /* requested, as for shmem_init_thread */
    shmemx_uniqueid_t uniqueid; /* set by shmemx_set_attr_uniqueid_args */
} shmemx_init_attr_t;

/* clang-format off */
#define SHMEMX_INIT_ATTR_INITIALIZER \
    { SHMEMX_INIT_ATTR_VERSION, -1, 0, NULL, NULL, 0, 0, 0, SHMEM_THREAD_SINGLE, { { 0 } } }
/* clang-format on */

/* ---- Device memory: the device symmetric heap ------------------------------
 *
 * Symmetric memory on each PE's GPU, made at the first device allocation
 * (the CUDA driver is loaded then, never before; docs/env.md lists
 * SHOAL_DEVICE_HEAP_SIZE, SHOAL_DEVICE and SHOAL_CUDA_LIBRARY):
 *
 *   double *x = shmemx_malloc_device(n * sizeof(double), SHMEMX_DEVICE_DEFAULT);
 *   // or shmem_malloc_with_hints(n * sizeof(double), SHMEMX_MALLOC_DEVICE)
 *   shmem_putmem(x, src, n * sizeof(double), pe);  // host code: copy engine
 *   double *px = shmem_ptr(x, pe);                // pe's GPU memory, for kernels
 *   shmem_free(x);
 *
 * Allocation is collective; when any PE has no CUDA driver or GPU, or no GPU
 * memory left, it returns NULL on every PE after one message saying why, and
 * the job goes on. Several PEs may share one GPU. The PEs of one host reach
 * each other's device heaps (shmem_ptr gives a device pointer for a local
 * peer); PEs on other hosts do not yet. Host code may put, get and
 * shmem_ptr device memory; host atomics, signals and waits on it are not
 * supported (atomics, signals and set waits end the job saying so; a wait
 * or test on one variable there faults). */

/* A hint of shmem_malloc_with_hints: the block is in the device heap, on
 * the PE's default device. It counts only among defined hints: alone or
 * with SHMEM_MALLOC_ATOMICS_REMOTE and SHMEM_MALLOC_SIGNAL_REMOTE. A hints
 * word with any other bit set (~0L, all bits but one, a hint of a later
 * OpenSHMEM) allocates on the host as shmem_malloc does, since a program
 * that sets every bit has not asked for GPU memory and the spec says a hint
 * the implementation cannot use gives shmem_malloc's memory. */
#define SHMEMX_MALLOC_DEVICE (1L << 16)
/* The `device` of shmemx_malloc_device that means "the PE's default":
 * SHOAL_DEVICE, else the PE's rank on its host modulo the number of GPUs. */
#define SHMEMX_DEVICE_DEFAULT (-1)

/* ---- Registering memory: a program's own buffer made symmetric ------------
 *
 *   double *x = malloc(n * sizeof(double));      // the same n on every PE
 *   shmemx_buffer_register(x, n * sizeof(double)); // collective
 *   shmem_double_put(x, src, n, pe);            // PE pe's x, at its own address
 *   shmemx_buffer_unregister(x);                 // collective; x stays valid
 *
 * PEs of one host reach a registered buffer without a copy when it is
 * private anonymous memory (malloc, posix_memalign, mmap MAP_PRIVATE |
 * MAP_ANONYMOUS, NumPy and torch CPU arrays): its pages are moved onto a
 * memfd in place, keeping address and contents, and moved back at
 * unregister; the bytes that share its first and last pages come along and
 * survive. Other memory (file-backed or shared mappings, the stack) is
 * refused when the PE has a peer on its host; with none, the network
 * transport registers the memory as it is. While register and unregister
 * run, no other thread may write the buffer's pages (the first and last
 * may hold other data too); a registered buffer's pages are shared with a
 * fork()ed child. Buffers that share a page may both be registered. */

/* ---- The device view of the job, for kernels (<shmemx_device.h>) ----------
 * What shmemx_dev_create makes and a kernel receives by value; the device
 * functions that use it are in <shmemx_device.h>.
 *
 * The device ABI: the layout of shmemx_dev_t, its rows, the mailbox and the
 * report, which kernels compiled into the program read directly. A program
 * built against one version and run with a libshoal of another would read
 * a handle of the wrong shape without a word, so shmemx_dev_create (a macro,
 * below the routines) passes this header's version and sizeof(shmemx_dev_t)
 * to libshoal, which refuses any other with both named. Whoever changes
 * one of these layouts raises the version (libshoal's build checks the
 * size it records for each version). */
#ifdef SHMEMX_DEV_ABI_VERSION_TEST_OVERRIDE /* Shoal's own tests: a program of another version */
#define SHMEMX_DEV_ABI_VERSION SHMEMX_DEV_ABI_VERSION_TEST_OVERRIDE
#else
#define SHMEMX_DEV_ABI_VERSION 1
#endif
#define SHMEMX_DEV_VERSION SHMEMX_DEV_ABI_VERSION /* the earlier name */
#define SHMEMX_DEV_ROWS 8    /* route table rows (host heap, globals, device heap, ...) */
#define SHMEMX_DEV_EVENTS 64 /* event ids 0 .. SHMEMX_DEV_EVENTS - 1 */

/* What a kernel reports to the host before it traps. */
enum {
    SHMEMX_DEV_REPORT_TIMEOUT = 1,     /* a wait passed SHOAL_DEVICE_WAIT_TIMEOUT */
    SHMEMX_DEV_REPORT_UNREACHABLE = 2, /* a PE or address this GPU cannot reach */
    SHMEMX_DEV_REPORT_ARGUMENT = 3,    /* a bad argument (event id, team) */
};

typedef struct {
    uint32_t state; /* 0: free, 1: being written, 2: complete */
    uint32_t code;  /* SHMEMX_DEV_REPORT_* */
    int32_t pe;     /* the reporting PE */
    int32_t target; /* the PE the call aimed at, or -1 */
    uint32_t block[3], thread[3];
    uint64_t addr, expected, last, waited_ns;
    int32_t cmp;
    uint32_t others; /* how many other threads failed while this report was filed */
    char call[48];
} shmemx_dev_report_t;

/* Host memory every kernel of the PE can reach: the report and the events. */
typedef struct {
    shmemx_dev_report_t report;
    uint64_t to_host[SHMEMX_DEV_EVENTS];   /* raised by kernels, waited on by the host */
    uint64_t to_device[SHMEMX_DEV_EVENTS]; /* set by the host, waited on by kernels */
} shmemx_dev_mailbox_t;

typedef struct {
    uint64_t base; /* this PE's copy: the symmetric address */
    uint64_t size; /* 0: unused */
} shmemx_dev_row_t;

typedef struct {
    uint32_t version; /* SHMEMX_DEV_ABI_VERSION */
    uint32_t bytes;   /* sizeof(shmemx_dev_t) */
    int32_t my_pe, npes;
    uint32_t nrows;  /* rows in use are below this */
    uint32_t nslots; /* team synchronization slots */
    uint64_t timeout_ns;
    shmemx_dev_row_t row[SHMEMX_DEV_ROWS];
    /* [npes * SHMEMX_DEV_ROWS]: where this PE's GPU sees PE p's copy of row
     * r, or 0 when it cannot reach it. Device memory. */
    const uint64_t *peer;
    /* This PE's synchronization words (device heap, symmetric):
     * seq[nslots], then flag[nslots][npes]. */
    uint64_t *sync;
    shmemx_dev_mailbox_t *mailbox; /* as the GPU addresses it */
    /* The proxy's ring (<shmemx_device_proxy.h>) as the GPU addresses it,
     * for PEs of other hosts; NULL when every PE is on this host. */
    struct shmemx_dev_proxy_ring *proxy;
} shmemx_dev_t;

/* A team as a kernel sees it: PEs start + i * stride, i < size. */
typedef struct {
    int32_t start, stride, size;
    int32_t slot; /* its synchronization slot */
} shmemx_dev_team_t;

/* A CUDA stream for the shmemx_*_on_stream calls: the same type as the
 * runtime's cudaStream_t and the driver's CUstream (NULL: the default
 * stream). */
typedef struct CUstream_st *shmemx_stream_t;

/* ---- routines: in shmem/routines_x.h, spelled SHMEM_FN(name) as in shmem.h ---- */
#define SHMEM_FN(name) name
#include <shmem/routines_x.h>
#undef SHMEM_FN

/* Collective: the device view, checked against this header's device ABI
 * (shmemx_dev_create_abi in shmem/routines_x.h). */
#define shmemx_dev_create(d)                                                                       \
    shmemx_dev_create_abi((d), SHMEMX_DEV_ABI_VERSION, sizeof(shmemx_dev_t))

#ifdef __cplusplus
}
#endif

#endif
