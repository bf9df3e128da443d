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

/* Stops the waiter thread and gives back its gates (shmem_finalize). */
void shoal_device_stream_finalize(void);

#endif
