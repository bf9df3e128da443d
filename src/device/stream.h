/*
 * Stream-ordered transfers and signals (shmemx_*_on_stream): enqueued on
 * the caller's CUDA stream, so they happen after the work queued before
 * them and before the work queued after. The caller routes: every address
 * here is where this process sees the memory (a local PE's mapping).
 */
#ifndef SHOAL_DEVICE_STREAM_H
#define SHOAL_DEVICE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "device/cuda_abi.h"
#include "util/status.h"

/* cuMemcpyAsync of len bytes on `stream`. */
shoal_status_t shoal_device_stream_copy(const char *fn, void *dst, const void *src, size_t len,
                                        shoal_CUstream stream, char *msg, size_t msglen);
/* The signal word at `sig` set to (SHMEM_SIGNAL_SET) or increased by
 * (SHMEM_SIGNAL_ADD) `value` once the stream gets there: in device memory a
 * stream write (SET only: streams have no add), in host memory a host
 * function with a release store or add. */
shoal_status_t shoal_device_stream_signal(const char *fn, uint64_t *sig, uint64_t value, int op,
                                          shoal_CUstream stream, char *msg, size_t msglen);
/* The stream waits until the word at `sig` compares `cmp` to value: in
 * device memory a stream wait (SHMEM_CMP_GE, a cyclic signed compare as
 * cuStreamWaitValue64's, and SHMEM_CMP_EQ; needs 64-bit stream memory
 * operations, else refused naming the attribute), in host memory a stream
 * wait on a gate that this process's waiter thread opens when the word
 * compares (every comparison; no host function ever blocks). */
shoal_status_t shoal_device_stream_wait(const char *fn, uint64_t *sig, int cmp, uint64_t value,
                                        shoal_CUstream stream, char *msg, size_t msglen);

/* The peers' barrier counters as this process sees them (their mappings
 * of host symmetric memory); kept by the caller while barriers run. */
typedef struct {
    uint64_t *const *counter;
    int n;
} shoal_device_stream_peers_t;

/* A barrier on `stream` through host memory: once the stream gets there, a
 * host function adds 1 to every peer's counter, then the stream waits
 * (a gate the waiter thread opens: no host function or kernel spins) until
 * `mine` reaches `target` (round * peers). */
shoal_status_t shoal_device_stream_barrier(const char *fn, const shoal_device_stream_peers_t *peers,
                                           uint64_t *mine, uint64_t target, shoal_CUstream stream,
                                           char *msg, size_t msglen);

/* Which stream barrier the job's device view chose (shmemx_dev_create,
 * the same on every PE): on_host when PEs of this host share a GPU without
 * MPS (a kernel that waits would be time-sliced); `why` for the info line
 * PE 0 prints. */
void shoal_device_stream_set_sync(const char *fn, int my_pe, int on_host, const char *why);
/* 1: through host memory, 0: a kernel, -1: no device view yet. */
int shoal_device_stream_sync_on_host(void);

/* Stops the waiter thread and gives back its gates (shmem_finalize). */
void shoal_device_stream_finalize(void);

#endif
