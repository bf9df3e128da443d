/*
 * Every routine of shmemx.h, declared once, with each name spelled
 * SHMEM_FN(name) as in shmem/routines.h: <shmemx.h> includes this list with
 * the plain names, <pshmem.h> again with the name-shifted ones
 * (pshmemx_heap_info, ...). Hence no include guard; not meant to be
 * included on its own.
 */
#ifndef SHMEM_FN
#error "include <shmemx.h> or <pshmem.h>, not <shmem/routines_x.h>"
#endif

/* The symmetric heap of the calling PE: its usable size, the bytes in live
 * allocations (rounded to the allocator's granularity) and the largest block
 * a shmem_malloc could get now. All zero before shmem_init. */
SHMEM_API void SHMEM_FN(shmemx_heap_info)(size_t *total, size_t *used, size_t *largest_free);

/* Collective: `size` bytes of device symmetric heap on CUDA device `device`
 * (an ordinal as the driver numbers them, or SHMEMX_DEVICE_DEFAULT); the
 * first call makes the PE's device heap on that device, and later calls
 * must name the same one (or the default). NULL on every PE, after one
 * message naming the cause, when a PE cannot (see shmemx.h). Free it with
 * shmem_free. */
SHMEM_API void *SHMEM_FN(shmemx_malloc_device)(size_t size, int device);

/* The device heap of the calling PE: its size, the bytes in live
 * allocations, the bytes backed by GPU memory, and its device ordinal
 * (-1 and zeros while it has none). */
SHMEM_API void SHMEM_FN(shmemx_device_heap_info)(size_t *total, size_t *used, size_t *backed,
                                                 int *device);

/* Collective over the world: makes the program's own buffer [ptr, ptr +
 * size) symmetric, so RMA, AMO, signals and collectives accept it, until
 * shmemx_buffer_unregister. Every PE passes a buffer of the same size; the
 * addresses may differ (PE p's copy is reached at the same offset from
 * p's ptr). Returns 0 on every PE, or non-zero on every PE after a message
 * from the PE whose input was wrong (NULL, size 0 or differing, overlap
 * with symmetric memory or another registration, memory of a kind Shoal
 * cannot share). See "Registering memory" in shmemx.h for which memory
 * PEs of one host reach without a copy and the rule on other threads. */
SHMEM_API int SHMEM_FN(shmemx_buffer_register)(void *ptr, size_t size);

/* Collective over the world: ends the registration of `ptr` (the pointer
 * this PE registered). The buffer keeps its address and contents; later
 * RMA, AMO and signals on it end the job as on any non-symmetric address.
 * Non-zero on every PE when some PE did not register `ptr`. */
SHMEM_API int SHMEM_FN(shmemx_buffer_unregister)(void *ptr);

/* For bindings that must report bad input instead of ending the job (the
 * Python package): checks that the `len` bytes at `addr` are symmetric and
 * reachable on world PE `pe`, as every RMA, AMO and signal routine does
 * before it transfers. Returns 0 if so; otherwise -1, with the message the
 * routine `fn` would have ended the job with (naming `what`, the value and
 * the fix) written into msg (up to msglen bytes, NUL-terminated). Never ends
 * the job and needs no collective call. */
SHMEM_API int SHMEM_FN(shmemx_addr_check)(const char *fn, const char *what, const void *addr,
                                          size_t len, int pe, char *msg, size_t msglen);

/* Initializes like shmem_init_thread(attr->thread_level), with the job and
 * heap size taken from `attr` (flags 0: only heap_size and thread_level).
 * Returns 0, or a negative value after logging why. The store settings
 * apply to the first initialization of the process only. */
SHMEM_API int SHMEM_FN(shmemx_init_attr)(unsigned int flags, shmemx_init_attr_t *attr);

/* Starts the config store in this process (once; later calls return the
 * same ID) and writes the ID that leads PEs to it. The process must live
 * until the job's PEs have finalized; at exit it waits for them. Where it
 * listens: SHOAL_STORE (port 0: any free port), SHOAL_STORE_LISTEN_IFACE and
 * SHOAL_STORE_ADVERTISE_IFACE. Returns 0 or a negative value. */
SHMEM_API int SHMEM_FN(shmemx_get_uniqueid)(shmemx_uniqueid_t *id);

/* Fills attr for shmemx_init_attr(SHMEMX_INIT_WITH_UNIQUEID, attr). */
SHMEM_API int SHMEM_FN(shmemx_set_attr_uniqueid_args)(int rank, int npes,
                                                      const shmemx_uniqueid_t *id,
                                                      shmemx_init_attr_t *attr);

/* Chooses how the config store's traffic is protected; call it before
 * initialization (and before shmemx_get_uniqueid). enable with tls_info of
 * length 0: TLS 1.3 authenticated by the job secret (the default). enable
 * with tls_info "cert=PATH;key=PATH;ca=PATH[;crl=PATH][;verify_name=0]":
 * certificates. !enable: no TLS (a warning says so once). It must agree on
 * every PE. Returns 0; a negative value (and changes nothing) when the text
 * or files are wrong or a store connection already exists. */
SHMEM_API int SHMEM_FN(shmemx_set_conf_store_tls)(bool enable, const char *tls_info, uint32_t len);

/* Collective over every PE: makes the device view of the job for kernels
 * (<shmemx_device.h>): the device heap if there is none yet, the route
 * table on the GPU, the used part of the host symmetric memory of the
 * host's PEs registered with CUDA, the mailbox for reports and events. 0,
 * or -1 on every PE after one message naming the cause (no driver, no GPU,
 * a program built against another device ABI, ...). Later calls return the
 * same view; valid until shmem_finalize.
 *
 * Programs call it as shmemx_dev_create(&d), a macro of <shmemx.h> that
 * passes the device ABI version and handle size the program was compiled
 * with (SHMEMX_DEV_ABI_VERSION, sizeof(shmemx_dev_t)); libshoal refuses,
 * writing nothing into *d, when they are not its own. The function of the
 * plain name (a program that calls it through a pointer or dlsym) stands
 * for device ABI 1, the version before the check. */
SHMEM_API int SHMEM_FN(shmemx_dev_create_abi)(shmemx_dev_t *d, int abi_version,
                                              size_t handle_bytes);
SHMEM_API int SHMEM_FN(shmemx_dev_create)(shmemx_dev_t *d);

/* The device form of a team this PE belongs to (local): 0, or -1 when
 * `team` is not one. */
SHMEM_API int SHMEM_FN(shmemx_dev_team)(shmem_team_t team, shmemx_dev_team_t *t);

/* Events between this PE's kernels and its host code (ids 0 ..
 * SHMEMX_DEV_EVENTS - 1): wait_host waits until kernels raised event `id`
 * (shmemx_dev_event_raise) at least `count` times since the view was made;
 * count_host reads that count; set_host sets the value kernels wait for
 * (shmemx_dev_event_wait). 0 (or the count), or -1 for a bad id or before
 * shmemx_dev_create. */
SHMEM_API int SHMEM_FN(shmemx_dev_event_wait_host)(int id, uint64_t count);
SHMEM_API int SHMEM_FN(shmemx_dev_event_set_host)(int id, uint64_t value);
SHMEM_API int64_t SHMEM_FN(shmemx_dev_event_count_host)(int id);

/* Stream-ordered calls: enqueued on `stream`, after the work queued there
 * before and before the work queued after; the PE must be on this host.
 * 0, or -1 after a message (they never end the job). putmem/getmem: the
 * copy engine (cuMemcpyAsync; host buffers registered by shmemx_dev_create
 * or page-locked copy asynchronously, others synchronously). signal_op and
 * the signal of putmem_signal: in device memory a stream write (SET only),
 * in host memory a host function (SET and ADD). signal_wait_until: in
 * device memory cuStreamWaitValue64 (SHMEM_CMP_EQ, and SHMEM_CMP_GE as its
 * cyclic compare: (int64_t)(*sig - value) >= 0), in host memory a stream
 * wait on a gate that the library's waiter thread opens (every comparison;
 * no host function blocks). quiet: transfers on a stream complete in stream
 * order, so it only checks its arguments. */
SHMEM_API int SHMEM_FN(shmemx_putmem_on_stream)(void *dest, const void *source, size_t nelems,
                                                int pe, shmemx_stream_t stream);
SHMEM_API int SHMEM_FN(shmemx_getmem_on_stream)(void *dest, const void *source, size_t nelems,
                                                int pe, shmemx_stream_t stream);
SHMEM_API int SHMEM_FN(shmemx_putmem_signal_on_stream)(void *dest, const void *source,
                                                       size_t nelems, uint64_t *sig_addr,
                                                       uint64_t signal, int sig_op, int pe,
                                                       shmemx_stream_t stream);
SHMEM_API int SHMEM_FN(shmemx_signal_op_on_stream)(uint64_t *sig_addr, uint64_t signal, int sig_op,
                                                   int pe, shmemx_stream_t stream);
SHMEM_API int SHMEM_FN(shmemx_signal_wait_until_on_stream)(uint64_t *sig_addr, int cmp,
                                                           uint64_t cmp_value,
                                                           shmemx_stream_t stream);
SHMEM_API int SHMEM_FN(shmemx_quiet_on_stream)(shmemx_stream_t stream);

/* Collective over every PE, all on this host: a barrier (sync_all: without
 * the quiet) enqueued on `stream`: the work queued before it on every PE's
 * stream is done before the work queued after it on any PE's stream
 * starts. No kernel: each PE's stream adds 1 to a host-memory counter of
 * every peer (a host function) and waits for its own through a gate the
 * library's waiter thread opens, so nothing spins on the GPU -- PEs that
 * share a GPU without MPS (time-sliced by the driver, ~1 ms a slice) pay
 * no slice for it; it costs a round trip through the host (tens of
 * microseconds). The first call allocates one word of host symmetric heap
 * per PE. 0, or -1 after a message (a PE on another host, no driver). */
SHMEM_API int SHMEM_FN(shmemx_barrier_all_on_stream)(shmemx_stream_t stream);
SHMEM_API int SHMEM_FN(shmemx_sync_all_on_stream)(shmemx_stream_t stream);

/* Which barrier shmemx_dev_barrier_all_on_stream (<shmemx_device.h>)
 * enqueues, as shmemx_dev_create chose it for the job: 1 when every PE is
 * on this host and some PEs share a GPU without MPS (then the host-memory
 * barrier above, since a waiting kernel would be time-sliced), 0 for a
 * device-side kernel (a GPU per PE, MPS, or several hosts), -1 before
 * shmemx_dev_create. */
SHMEM_API int SHMEM_FN(shmemx_dev_sync_on_host)(void);

/* Floating-point atomic add (as NVSHMEM 3.7 has it in kernels; the device
 * forms are in <shmemx_device_famo.h>): a compare-and-swap loop on the
 * word, to a PE of this host or of another. */
SHMEM_API float SHMEM_FN(shmemx_float_atomic_fetch_add)(float *dest, float value, int pe);
SHMEM_API void SHMEM_FN(shmemx_float_atomic_add)(float *dest, float value, int pe);
SHMEM_API double SHMEM_FN(shmemx_double_atomic_fetch_add)(double *dest, double value, int pe);
SHMEM_API void SHMEM_FN(shmemx_double_atomic_add)(double *dest, double value, int pe);

/* User ranges on the trace (SHOAL_TRACE): the time from a begin to its end
 * shows as one slice named `name` on the calling thread's track, around the
 * calls made in between ("compute", "step 12"). Ranges nest; each end
 * closes the latest begin of the thread (`name` may be NULL there; another
 * name than the begin's is reported once and the range closed anyway).
 * The name is copied. Cheap and silent when tracing is off. */
SHMEM_API void SHMEM_FN(shmemx_trace_begin)(const char *name);
SHMEM_API void SHMEM_FN(shmemx_trace_end)(const char *name);

/* For language bindings: the calls this thread makes from now on are
 * traced and profiled under `name` (the Python package passes "shoal.put"
 * around shmem_ctx_putmem), until the next call; NULL restores the
 * routines' own names. `name` must outlive its use (a string literal). */
SHMEM_API void SHMEM_FN(shmemx_trace_caller)(const char *name);
