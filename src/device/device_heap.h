/*
 * The device symmetric heap: every PE's symmetric memory on its GPU, a row
 * of the route table (SHOAL_ROUTE_DEVICE, kind SHOAL_MEM_DEVICE).
 *
 * Made at the first device allocation, collectively: each PE loads the
 * CUDA driver (device/cuda.h), takes its device's primary context (so
 * pointers interoperate with PyTorch and the runtime API) and reserves GPU
 * virtual address space for SHOAL_DEVICE_HEAP_SIZE bytes once per PE of its
 * host -- one slot for its own heap and one for the view of each local
 * peer's. Nothing is backed yet. Reserve-and-back-as-used rather than a
 * fixed heap: GPU memory is what the program itself needs most and several
 * PEs may share one GPU, while address space costs nothing; so the heap is
 * backed (cuMemCreate with POSIX-fd handles, cuMemMap, cuMemSetAccess) in
 * steps of at least 32 MiB when an allocation reaches past what is backed.
 * Every PE runs the same allocator over the same calls, so all grow in the
 * same call; each exports its new piece as an fd, passes it to the PEs of
 * its host (transport/shm/fdpass.h: SCM_RIGHTS, because a CUDA fd cannot be
 * reopened through /proc the way host segments are), and maps theirs into
 * its views. Backing is kept until shmem_finalize (freed blocks are reused).
 *
 * Every step that can fail on one PE ends in a bootstrap allgather of each
 * PE's outcome, so an allocation fails on every PE together (NULL, one
 * message naming the PE and the cause) and nothing is left half-mapped.
 * PEs on other hosts do not see each other's device heaps yet: their entries
 * stay 0, and the data path says so.
 */
#ifndef SHOAL_DEVICE_DEVICE_HEAP_H
#define SHOAL_DEVICE_DEVICE_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap/bootstrap.h"
#include "mem/route.h"

/* Pass as `device` for the PE's default device (SHOAL_DEVICE, else its rank
 * on its host modulo the number of devices). Equal to SHMEMX_DEVICE_DEFAULT. */
#define SHOAL_DEVICE_DEFAULT (-1)

/* What the device heap needs of the job. */
typedef struct {
    shoal_bootstrap_t *bs;
    shoal_route_t *rt;
    const int *node; /* [npes]: lowest PE of each PE's host */
    unsigned generation;
} shoal_device_job_t;

/* The GPU address range of every device heap this process maps (its own
 * and its local peers' views): [va, va + va_size). 0 when there is none. */
typedef struct {
    uintptr_t va;
    size_t va_size;
} shoal_device_range_t;
extern shoal_device_range_t shoal_device_range;

/* 1 when p lies in a device heap this process maps (then the host must not
 * load or store through it). */
static inline int shoal_device_owns(const void *p)
{
    return (uintptr_t)p - shoal_device_range.va < shoal_device_range.va_size;
}

/* Collective over every PE: allocates `size` bytes (alignment `align`, 0:
 * 256) of device heap on `device` (SHOAL_DEVICE_DEFAULT or an ordinal),
 * making the heap first if needed. On success *ptr_p is the block (NULL for
 * size 0); on failure every PE returns the same error, *ptr_p is NULL and
 * the cause has been logged once, naming `fn`. */
shoal_status_t shoal_device_alloc(const shoal_device_job_t *job, const char *fn, size_t size,
                                  size_t align, int device, void **ptr_p);
/* Local: gives back a block of this PE's device heap (the caller made it
 * collective). SHOAL_ERR_NOT_FOUND when ptr is not one. */
shoal_status_t shoal_device_free(void *ptr);
/* This PE's device heap: its size, the bytes allocated, the bytes backed
 * by GPU memory, and its device ordinal (-1 when there is none). */
void shoal_device_heap_info(size_t *total_p, size_t *used_p, size_t *backed_p, int *device_p);

/* Copies len bytes between any two addresses the driver knows (device
 * heaps, host memory) through the copy engine, complete on return. On
 * failure returns an error and writes the cause, naming fn, into msg. */
shoal_status_t shoal_device_copy(const char *fn, void *dst, const void *src, size_t len, char *msg,
                                 size_t msglen);

/* Collective: every PE's outcome of a step of the device side, so that all
 * fail together. SHOAL_OK when every PE's `mine` is, else the first failing
 * PE's status on every PE; that PE logs its `msg` with how many PEs failed
 * and the `outcome` ("the allocation returns NULL on every PE"). */
shoal_status_t shoal_device_agree(const shoal_device_job_t *job, const char *fn,
                                  shoal_status_t mine, const char *msg, const char *outcome);

/* Makes the heap's context current for a driver call; gives the thread's
 * own back. */
#include "device/cuda_abi.h"
shoal_CUcontext shoal_device_ctx_enter(void);
void shoal_device_ctx_leave(shoal_CUcontext prev);

/* Address space of each PE's device heap: the symmetric range of the
 * device row (0 without a heap). */
size_t shoal_device_slot_size(void);

/* Unmaps and releases every device heap mapping; after the job's last use
 * of them (shmem_finalize, after its barrier), before the host segments'
 * peers are unmapped. Clears the route row. */
void shoal_device_finalize(const shoal_device_job_t *job);

#endif
