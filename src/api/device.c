/*
 * The host side of the device API (<shmemx_device.h>): the device view of
 * the job, teams as kernels see them, and events between a PE's kernels and
 * its host code.
 */
#include <stdio.h>

#include <shmem.h>
#include <shmemx.h>

#include "api/api.h"
#include "core/alloc.h"
#include "core/backoff.h"
#include "core/peer.h"
#include "core/state.h"
#include "core/team.h"
#include "device/stream.h"
#include "device/view.h"
#include "util/env.h"
#include "util/log.h"

/* The size of the handle of each device ABI version this library has
 * known, for the message that names both sides of a mismatch. Raising
 * SHMEMX_DEV_ABI_VERSION (a layout changed) adds a row here. */
#define DEV_ABI1_BYTES 192
_Static_assert(SHMEMX_DEV_ABI_VERSION != 1 || sizeof(shmemx_dev_t) == DEV_ABI1_BYTES,
               "shmemx_dev_t changed its layout: raise SHMEMX_DEV_ABI_VERSION in <shmemx.h> and "
               "record the new size here");

static int dev_create(const char *fn, shmemx_dev_t *d, int abi_version, size_t handle_bytes)
{
    if (d == NULL) {
        SHOAL_ERROR("%s: d is NULL; pass the address of a shmemx_dev_t to fill", fn);
        return -1;
    }
    /* The verdict on the program's ABI travels through the view's first
     * agreement, so a PE whose program differs fails with the others
     * instead of leaving them in the collective. Nothing is written into
     * *d unless it has this library's layout. */
    char abi_msg[320] = "";
    if (abi_version != SHMEMX_DEV_ABI_VERSION || handle_bytes != sizeof(shmemx_dev_t))
        snprintf(abi_msg, sizeof(abi_msg),
                 "shmemx_dev_create: this program's <shmemx.h> is device ABI %d (handle %zu "
                 "bytes), libshoal is ABI %d (%zu bytes): rebuild the program against the "
                 "headers installed with this libshoal (a kernel of another ABI would read the "
                 "handle wrongly)",
                 abi_version, handle_bytes, SHMEMX_DEV_ABI_VERSION, sizeof(shmemx_dev_t));
    return shoal_device_view_collective(fn, abi_msg[0] != '\0' ? abi_msg : NULL, d) == SHOAL_OK
               ? 0
               : -1;
}

SHOAL_API_DEF(int, shmemx_dev_create_abi)(shmemx_dev_t *d, int abi_version, size_t handle_bytes)
{
    return dev_create("shmemx_dev_create", d, abi_version, handle_bytes);
}

/* A caller that names no version was built before the check: ABI 1. */
SHOAL_API_DEF(int, shmemx_dev_create)(shmemx_dev_t *d)
{
    return dev_create(SHOAL_FN, d, 1, DEV_ABI1_BYTES);
}

SHOAL_API_DEF(int, shmemx_dev_team)(shmem_team_t team, shmemx_dev_team_t *t)
{
    if (t == NULL || team == SHMEM_TEAM_INVALID || team->set.my_index < 0) {
        SHOAL_ERROR("shmemx_dev_team: %s; pass a team this PE belongs to and a shmemx_dev_team_t "
                    "to fill",
                    t == NULL ? "t is NULL" : "team is not a team of this PE");
        return -1;
    }
    *t = (shmemx_dev_team_t){.start = team->set.start,
                             .stride = team->set.stride,
                             .size = team->set.size,
                             .slot = team->slot};
    return 0;
}

/* The mailbox for event `id`, or NULL after saying what is wrong. */
static shmemx_dev_mailbox_t *event_mailbox(const char *fn, int id)
{
    shmemx_dev_mailbox_t *mb = shoal_device_mailbox();
    if (mb == NULL)
        SHOAL_ERROR("%s: there is no device view yet; call shmemx_dev_create first", fn);
    else if ((unsigned)id >= SHMEMX_DEV_EVENTS)
        SHOAL_ERROR("%s: event id %d is out of range; ids are 0 .. %d", fn, id,
                    SHMEMX_DEV_EVENTS - 1);
    else
        return mb;
    return NULL;
}

SHOAL_API_DEF(int, shmemx_dev_event_wait_host)(int id, uint64_t count)
{
    SHOAL_API_TRACE(WAIT, -1, 0, NULL);
    shmemx_dev_mailbox_t *mb = event_mailbox(SHOAL_FN, id);
    if (mb == NULL)
        return -1;
    /* The library's own wait (spin, yield, sleep; serves other hosts meanwhile):
     * the kernel's raise is a store into this page over the bus. */
    shoal_backoff_t b = SHOAL_BACKOFF_INIT;
    while (__atomic_load_n(&mb->to_host[id], __ATOMIC_ACQUIRE) < count)
        shoal_backoff(&b);
    return 0;
}

SHOAL_API_DEF(int64_t, shmemx_dev_event_count_host)(int id)
{
    shmemx_dev_mailbox_t *mb = event_mailbox(SHOAL_FN, id);
    return mb == NULL ? -1 : (int64_t)__atomic_load_n(&mb->to_host[id], __ATOMIC_ACQUIRE);
}

SHOAL_API_DEF(int, shmemx_dev_event_set_host)(int id, uint64_t value)
{
    shmemx_dev_mailbox_t *mb = event_mailbox(SHOAL_FN, id);
    if (mb == NULL)
        return -1;
    /* Release: what this thread wrote before is visible to the kernel that
     * sees the value (its wait loads with acquire order). */
    __atomic_store_n(&mb->to_device[id], value, __ATOMIC_RELEASE);
    return 0;
}

/* ---- stream-ordered calls ----------------------------------------------- */

#define STREAM_MSG 640

/* Where this process sees (addr, len) on pe, or NULL after a message: a PE
 * of another host cannot be reached from a stream. */
static void *stream_route(const char *fn, const char *what, const void *addr, size_t len, int pe)
{
    char msg[STREAM_MSG];
    shoal_where_t w;
    if (!shoal.initialized) {
        SHOAL_ERROR("%s: called before shmem_init", fn);
        return NULL;
    }
    const shoal_route_kind_t k = shoal_route_find_all(&shoal.route, pe, addr, len, &w);
    if (k == SHOAL_ROUTE_ERROR) { /* the data path's own message, without ending the job */
        shoal_route_check(fn, what, addr, len, pe, msg, sizeof(msg));
        SHOAL_ERROR("%s", msg);
        return NULL;
    }
    if (k == SHOAL_ROUTE_NET) {
        SHOAL_ERROR("%s: %s %p is on PE %d, on another host; stream-ordered calls reach the PEs "
                    "of this host only (use shmem_putmem and friends for the others)",
                    fn, what, addr, pe);
        return NULL;
    }
    return w.ptr;
}

static int stream_done(shoal_status_t status, const char *msg)
{
    if (status == SHOAL_OK)
        return 0;
    SHOAL_ERROR("%s", msg);
    return -1;
}

static int put_on_stream(const char *fn, void *dest, const void *source, size_t nelems, int pe,
                         shmemx_stream_t stream)
{
    char msg[STREAM_MSG];
    void *to = nelems == 0 ? dest : stream_route(fn, "dest", dest, nelems, pe);
    if (to == NULL && nelems != 0)
        return -1;
    return stream_done(
        shoal_device_stream_copy(fn, to, source, nelems, (shoal_CUstream)stream, msg, sizeof(msg)),
        msg);
}

SHOAL_API_DEF(int, shmemx_putmem_on_stream)
(void *dest, const void *source, size_t nelems, int pe, shmemx_stream_t stream)
{
    return put_on_stream(SHOAL_FN, dest, source, nelems, pe, stream);
}

SHOAL_API_DEF(int, shmemx_getmem_on_stream)
(void *dest, const void *source, size_t nelems, int pe, shmemx_stream_t stream)
{
    char msg[STREAM_MSG];
    const void *from = nelems == 0 ? source : stream_route(SHOAL_FN, "source", source, nelems, pe);
    if (from == NULL && nelems != 0)
        return -1;
    return stream_done(shoal_device_stream_copy(SHOAL_FN, dest, from, nelems,
                                                (shoal_CUstream)stream, msg, sizeof(msg)),
                       msg);
}

static int signal_on_stream(const char *fn, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                            shmemx_stream_t stream)
{
    char msg[STREAM_MSG];
    uint64_t *sig = stream_route(fn, "sig_addr", sig_addr, sizeof(*sig_addr), pe);
    if (sig == NULL)
        return -1;
    return stream_done(shoal_device_stream_signal(fn, sig, signal, sig_op, (shoal_CUstream)stream,
                                                  msg, sizeof(msg)),
                       msg);
}

SHOAL_API_DEF(int, shmemx_putmem_signal_on_stream)
(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
 int pe, shmemx_stream_t stream)
{
    if (put_on_stream(SHOAL_FN, dest, source, nelems, pe, stream) != 0)
        return -1;
    return signal_on_stream(SHOAL_FN, sig_addr, signal, sig_op, pe, stream);
}

SHOAL_API_DEF(int, shmemx_signal_op_on_stream)
(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, shmemx_stream_t stream)
{
    return signal_on_stream(SHOAL_FN, sig_addr, signal, sig_op, pe, stream);
}

SHOAL_API_DEF(int, shmemx_signal_wait_until_on_stream)
(uint64_t *sig_addr, int cmp, uint64_t cmp_value, shmemx_stream_t stream)
{
    char msg[STREAM_MSG];
    uint64_t *sig =
        stream_route(SHOAL_FN, "sig_addr", sig_addr, sizeof(*sig_addr), shoal.route.my_pe);
    if (sig == NULL)
        return -1;
    return stream_done(shoal_device_stream_wait(SHOAL_FN, sig, cmp, cmp_value,
                                                (shoal_CUstream)stream, msg, sizeof(msg)),
                       msg);
}

SHOAL_API_DEF(int, shmemx_quiet_on_stream)(shmemx_stream_t stream)
{
    (void)stream;
    if (!shoal.initialized) {
        SHOAL_ERROR("shmemx_quiet_on_stream: called before shmem_init");
        return -1;
    }
    return 0;
}
