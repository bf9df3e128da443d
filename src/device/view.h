/*
 * The device view of the job (include/shmemx_device.h): what a kernel gets
 * by value so that it can reach the symmetric memory of the PEs of its host.
 *
 * Made once, collectively, by shmemx_dev_create: one block of the device
 * heap holds the route table as the GPU sees it ([npes][SHMEMX_DEV_ROWS]
 * device addresses) and the synchronization words of the device barriers;
 * the globals of every local PE, and its heap as far as allocations reach,
 * are registered with CUDA (cuMemHostRegister, so kernels reach host
 * symmetric memory; see shoal_device_view_heap_top); a page of
 * host memory, registered too, is the mailbox where kernels file a report
 * or raise an event. A monitor thread watches the mailbox and ends the job
 * with the report's message. Everything in the view is fixed for the job:
 * the device row's range is the heap's whole address space, and the host
 * heap's row its whole size (registered as used, at the same device base),
 * so the view stays valid as the heaps grow.
 */
#ifndef SHOAL_DEVICE_VIEW_H
#define SHOAL_DEVICE_VIEW_H

#include <shmemx.h>

#include "device/device_heap.h"

typedef struct {
    shoal_device_job_t job;
    unsigned nslots; /* team synchronization slots (core's team slots) */
    /* Collective: `size` zeroed bytes of host symmetric heap for the device
     * proxy's inbox (device/proxy.h), or NULL. Called only when the view is
     * made and a network transport is open (PEs on other hosts). */
    void *(*alloc_host)(size_t size);
    /* NULL, or why this PE refuses the view (a program of another device
     * ABI): every PE then fails together, before anything is made. */
    const char *refuse;
} shoal_device_view_job_t;

/* Collective. On success *out is the view (the same on every later call).
 * On failure every PE returns the same error and the cause was logged. */
shoal_status_t shoal_device_view_create(const shoal_device_view_job_t *vj, const char *fn,
                                        shmemx_dev_t *out);

/* This PE's mailbox as the host sees it, or NULL before the view exists. */
shmemx_dev_mailbox_t *shoal_device_mailbox(void);

/* In every PE's same collective allocation of the host heap (route row 0),
 * under the library lock: allocations now reach `top` bytes from the
 * heap's base. Kernels must reach every local PE's heap that far, so once
 * the view exists its registrations are extended (in steps of 64 MiB);
 * before, the mark is kept for the view to start from. Never lowered:
 * freed memory stays registered until shmem_finalize. */
void shoal_device_view_heap_top(const char *fn, uint64_t top);

/* At shmem_finalize, before its barrier: every request kernels made of the
 * device proxy is complete (the proxy keeps serving other hosts' relays). */
void shoal_device_view_quiesce(void);

/* After the finalize barrier, before the network transport closes: stops
 * the device proxy's thread. */
void shoal_device_view_stop_proxy(void);

/* Stops the monitor and undoes the registrations: at shmem_finalize, before
 * the device heap goes (shoal_device_finalize frees the view's block). */
void shoal_device_view_destroy(void);

#endif
