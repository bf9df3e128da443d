/*
 * Shoal's device API: symmetric memory read, written, signalled and
 * synchronized from inside CUDA kernels.
 *
 * Header-only. A kernel compiled by plain `nvcc -c` (or clang CUDA) calls
 * these functions directly: no -rdc, no device linking, nothing device-side
 * to link. The kernel receives the job as a small value, shmemx_dev_t,
 * made once on the host by shmemx_dev_create() and passed as a kernel
 * argument:
 *
 *   __global__ void ring(shmemx_dev_t d, long *x) {
 *       int me = shmemx_dev_my_pe(d), right = (me + 1) % shmemx_dev_n_pes(d);
 *       shmemx_dev_long_p(d, x, me, right);
 *       shmemx_dev_barrier_all(d);             // one thread per PE
 *   }
 *   shmemx_dev_t d;  shmemx_dev_create(&d);  ring<<<1, 1>>>(d, x);
 *
 * Why a value and not one global device symbol: a `__constant__` state
 * symbol (NVSHMEM's choice) needs relocatable device code and a device
 * link, and breaks when two modules or two library versions each carry a
 * copy. A value is what NCCL's ncclDevComm does: every kernel, in any
 * module, gets exactly the job it was launched with.
 *
 * Reach: a kernel reaches the PEs of its host directly, in their device
 * heaps (shmemx_malloc_device) and in their host symmetric memory (heap
 * and globals, registered with CUDA by shmemx_dev_create), and every other
 * PE through its PE's device proxy (<shmemx_device_proxy.h>, docs/device.md).
 * Memory that is not symmetric is reported to the host as an error naming
 * the call, the PE and the address, and the kernel traps; the host prints
 * the report and ends the job. Team collectives: <shmemx_device_coll.h>.
 *
 * Scopes: a plain name is called by one thread and acts for it; `_warp` is
 * called by all 32 threads of a warp together, `_block` by every thread of
 * the block together (they share the copy, then synchronize). The barriers
 * and syncs are per PE: exactly one thread of the PE calls the plain form,
 * or every thread of exactly one block the `_block` form.
 *
 * Ordering (the PTX memory model, system scope, since peers are other
 * processes and possibly other GPUs):
 * - put/p are weak stores, get/g loads; nbi forms are the blocking ones
 *   (a store to a peer's mapped memory needs no handle).
 * - put_signal: the data, then a release store (SET) or release add (ADD)
 *   of the signal; in `_warp`/`_block` forms the group synchronizes first
 *   and one thread signals after a system fence. A PE that sees the signal
 *   with signal_wait_until (an acquire load) sees every byte of the data.
 * - AMOs are relaxed, system-scope atomics; fetches are relaxed loads.
 * - fence orders this thread's earlier puts and AMOs before its later ones
 *   (fence.acq_rel.sys); quiet completes them (fence.sc.sys).
 * - wait_until/test and signal_wait_until load with acquire order.
 * - barrier_all = quiet + sync; sync_all and team_sync: release stores of
 *   arrival flags and acquire loads of the others'.
 * - AMOs on another PE's *host* memory are atomic against other GPU
 *   threads only where the device has native host atomics (not over plain
 *   PCIe); keep AMO targets in the device heap.
 *
 * Waits are bounded by SHOAL_DEVICE_WAIT_TIMEOUT (seconds; 0: never): a
 * wait that exceeds it reports the PE, block, thread, address, expected
 * and last-seen values to the host, which prints them and ends the job.
 *
 * Compiled by a host compiler (no __CUDACC__), the same functions run on
 * the CPU over host memory, with CPU atomics: a "kernel" is then a host
 * function run by one thread of the PE (blocks and warps of one thread).
 * Shoal's tests use this with a stand-in driver to check the logic without
 * a GPU; a program can use it the same way.
 *
 * Files, split by target (as NVSHMEM's device headers are): this one holds
 * the public declarations; <shmem/device/ptx.h> the GPU's primitives
 * (inline PTX), <shmem/device/cpu.h> the same primitives for a host
 * compiler; <shmem/device/api.h> the public functions, written once over
 * those primitives; <shmem/device/launch_cuda.h> the host-side launch
 * helpers of a CUDA translation unit.
 */
#ifndef SHMEMX_DEVICE_H
#define SHMEMX_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>
#include <shmemx.h>

/* The target's primitives (and SHMEMX_DEV_FN, how every function here is
 * declared): the one place the target is chosen. */
#if defined(__CUDACC__)
#include <shmem/device/ptx.h>
#else
#include <shmem/device/cpu.h>
#endif

/* The RMA types a kernel can hold (long double is not a device type). */
#define SHMEMX_DEV_RMA_TYPES(X, ...)                                                               \
    X(float, float, __VA_ARGS__)                                                                   \
    X(double, double, __VA_ARGS__)                                                                 \
    X(char, char, __VA_ARGS__)                                                                     \
    X(signed char, schar, __VA_ARGS__)                                                             \
    X(unsigned char, uchar, __VA_ARGS__)                                                           \
    SHMEM_SYNC_BASE(X, __VA_ARGS__)                                                                \
    SHMEM_RMA_ALIAS(X, __VA_ARGS__)

/* ---- the job, its PEs and teams ------------------------------------------- */

/* Where this GPU sees PE pe's copy of symmetric address addr, or NULL. */
SHMEMX_DEV_FN void *shmemx_dev_ptr(shmemx_dev_t d, const void *addr, int pe);
SHMEMX_DEV_FN int shmemx_dev_my_pe(shmemx_dev_t d);
SHMEMX_DEV_FN int shmemx_dev_n_pes(shmemx_dev_t d);
SHMEMX_DEV_FN shmemx_dev_team_t shmemx_dev_team_world(shmemx_dev_t d);
/* This PE's index in team t, or -1 when it is not a member. */
SHMEMX_DEV_FN int shmemx_dev_team_my_pe(shmemx_dev_t d, shmemx_dev_team_t t);
SHMEMX_DEV_FN int shmemx_dev_team_n_pes(shmemx_dev_team_t t);
/* The world PE of team member i. */
SHMEMX_DEV_FN int shmemx_dev_team_pe(shmemx_dev_team_t t, int i);

/* ---- RMA: each family in three scopes (plain, _warp, _block) --------------- */

#define SHMEMX_DEV__DECL_MEM(suffix)                                                               \
    SHMEMX_DEV_FN void shmemx_dev_putmem##suffix(shmemx_dev_t d, void *dest, const void *src,      \
                                                 size_t nbytes, int pe);                           \
    SHMEMX_DEV_FN void shmemx_dev_getmem##suffix(shmemx_dev_t d, void *dest, const void *src,      \
                                                 size_t nbytes, int pe);                           \
    SHMEMX_DEV_FN void shmemx_dev_putmem_nbi##suffix(shmemx_dev_t d, void *dest, const void *src,  \
                                                     size_t nbytes, int pe);                       \
    SHMEMX_DEV_FN void shmemx_dev_getmem_nbi##suffix(shmemx_dev_t d, void *dest, const void *src,  \
                                                     size_t nbytes, int pe);                       \
    SHMEMX_DEV_FN void shmemx_dev_putmem_signal##suffix(                                           \
        shmemx_dev_t d, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,            \
        uint64_t signal, int sig_op, int pe);                                                      \
    SHMEMX_DEV_FN void shmemx_dev_putmem_signal_nbi##suffix(                                       \
        shmemx_dev_t d, void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,            \
        uint64_t signal, int sig_op, int pe);
SHMEMX_DEV__DECL_MEM()
SHMEMX_DEV__DECL_MEM(_warp)
SHMEMX_DEV__DECL_MEM(_block)

#define SHMEMX_DEV__DECL_TYPED_SCOPE(T, N, suffix)                                                 \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put##suffix(shmemx_dev_t d, T *dest, const T *src,         \
                                                    size_t nelems, int pe);                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get##suffix(shmemx_dev_t d, T *dest, const T *src,         \
                                                    size_t nelems, int pe);                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_nbi##suffix(shmemx_dev_t d, T *dest, const T *src,     \
                                                        size_t nelems, int pe);                    \
    SHMEMX_DEV_FN void shmemx_dev_##N##_get_nbi##suffix(shmemx_dev_t d, T *dest, const T *src,     \
                                                        size_t nelems, int pe);                    \
    SHMEMX_DEV_FN void shmemx_dev_##N##_put_signal##suffix(shmemx_dev_t d, T *dest, const T *src,  \
                                                           size_t nelems, uint64_t *sig_addr,      \
                                                           uint64_t signal, int sig_op, int pe);
#define SHMEMX_DEV__DECL_TYPED(T, N, unused)                                                       \
    SHMEMX_DEV__DECL_TYPED_SCOPE(T, N, )                                                           \
    SHMEMX_DEV__DECL_TYPED_SCOPE(T, N, _warp)                                                      \
    SHMEMX_DEV__DECL_TYPED_SCOPE(T, N, _block)                                                     \
    SHMEMX_DEV_FN void shmemx_dev_##N##_p(shmemx_dev_t d, T *dest, T value, int pe);               \
    SHMEMX_DEV_FN T shmemx_dev_##N##_g(shmemx_dev_t d, const T *src, int pe);
SHMEMX_DEV_RMA_TYPES(SHMEMX_DEV__DECL_TYPED, )

/* ---- atomics: the spec's extended, standard and bitwise AMO tables ---------- */

#define SHMEMX_DEV__DECL_EXTENDED_AMO(T, N, unused)                                                \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch(shmemx_dev_t d, const T *source, int pe);        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_set(shmemx_dev_t d, T *dest, T value, int pe);      \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_swap(shmemx_dev_t d, T *dest, T value, int pe);
SHMEM_EXTENDED_AMO_TYPES(SHMEMX_DEV__DECL_EXTENDED_AMO, )

#define SHMEMX_DEV__DECL_STANDARD_AMO(T, N, unused)                                                \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_compare_swap(shmemx_dev_t d, T *dest, T cond, T value, \
                                                         int pe);                                  \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_add(shmemx_dev_t d, T *dest, T value, int pe);   \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_add(shmemx_dev_t d, T *dest, T value, int pe);      \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_inc(shmemx_dev_t d, T *dest, int pe);            \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_inc(shmemx_dev_t d, T *dest, int pe);
SHMEM_STANDARD_AMO_TYPES(SHMEMX_DEV__DECL_STANDARD_AMO, )

#define SHMEMX_DEV__DECL_BITWISE_OP(T, N, name)                                                    \
    SHMEMX_DEV_FN T shmemx_dev_##N##_atomic_fetch_##name(shmemx_dev_t d, T *dest, T value,         \
                                                         int pe);                                  \
    SHMEMX_DEV_FN void shmemx_dev_##N##_atomic_##name(shmemx_dev_t d, T *dest, T value, int pe);
#define SHMEMX_DEV__DECL_BITWISE_AMO(T, N, unused)                                                 \
    SHMEMX_DEV__DECL_BITWISE_OP(T, N, and)                                                         \
    SHMEMX_DEV__DECL_BITWISE_OP(T, N, or)                                                          \
    SHMEMX_DEV__DECL_BITWISE_OP(T, N, xor)
SHMEM_BITWISE_AMO_TYPES(SHMEMX_DEV__DECL_BITWISE_AMO, )

/* ---- ordering, signals, point-to-point waits ---------------------------------- */

SHMEMX_DEV_FN void shmemx_dev_fence(shmemx_dev_t d);
SHMEMX_DEV_FN void shmemx_dev_quiet(shmemx_dev_t d);

#define SHMEMX_DEV__DECL_WAIT(T, N, unused)                                                        \
    SHMEMX_DEV_FN void shmemx_dev_##N##_wait_until(shmemx_dev_t d, T *ivar, int cmp, T value);     \
    SHMEMX_DEV_FN int shmemx_dev_##N##_test(shmemx_dev_t d, T *ivar, int cmp, T value);
SHMEM_SYNC_TYPES(SHMEMX_DEV__DECL_WAIT, )

SHMEMX_DEV_FN uint64_t shmemx_dev_signal_fetch(shmemx_dev_t d, const uint64_t *sig_addr);
SHMEMX_DEV_FN uint64_t shmemx_dev_signal_wait_until(shmemx_dev_t d, uint64_t *sig_addr, int cmp,
                                                    uint64_t value);

/* ---- barriers and syncs: one thread of the PE, or every thread of one block
 * (the _block forms) -------------------------------------------------------------- */

SHMEMX_DEV_FN void shmemx_dev_team_sync(shmemx_dev_t d, shmemx_dev_team_t t);
SHMEMX_DEV_FN void shmemx_dev_sync_all(shmemx_dev_t d);
SHMEMX_DEV_FN void shmemx_dev_barrier_all(shmemx_dev_t d);
SHMEMX_DEV_FN void shmemx_dev_team_sync_block(shmemx_dev_t d, shmemx_dev_team_t t);
SHMEMX_DEV_FN void shmemx_dev_sync_all_block(shmemx_dev_t d);
SHMEMX_DEV_FN void shmemx_dev_barrier_all_block(shmemx_dev_t d);

/* ---- events between a kernel and its own PE's host code ---------------------- */

/* Raises event id once (after this thread's earlier writes are visible). */
SHMEMX_DEV_FN void shmemx_dev_event_raise(shmemx_dev_t d, int id);
/* Waits until the host set event id to at least value; returns it. */
SHMEMX_DEV_FN uint64_t shmemx_dev_event_wait(shmemx_dev_t d, int id, uint64_t value);

/* ---- the definitions ------------------------------------------------------------ */

#include <shmem/device/api.h>

/* Host code of a CUDA translation unit: shmemx_dev_collective_launch (every
 * PE launches the same cooperative grid; grid.x == 0 asks for the most that
 * fit) and shmemx_dev_barrier_all_on_stream. */
#if defined(__CUDACC__)
#include <shmem/device/launch_cuda.h>
#endif

#endif
