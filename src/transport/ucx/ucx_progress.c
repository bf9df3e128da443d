/*
 * The UCX progress thread and its hand-over with the application's threads:
 * while an application thread progresses the worker (a wait, its own
 * requests), the thread stands back; when the application computes, or
 * blocks outside the transport, the thread sleeps on the worker's events
 * and serves peers' operations on this PE's memory.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "transport/ucx/ucx_internal.h"
#include "util/thread.h"

/* The progress thread stands back while application threads progress the
 * worker themselves (in a wait, or waiting for their own request), and
 * for this long after: two threads taking turns on the worker's lock cost
 * each operation tens of microseconds on a busy host (measured: 8-byte get
 * across two namespaces 9 us alone, 10-50 us with the thread competing). */
#define UCX_APP_ACTIVE_NS 500000u

/* Each look that finds the application still progressing doubles the next
 * stand-back, up to this: the thread shares the PE's CPU, so every look
 * preempts the application (measured: ~30 us per wake-up of a PE pinned to
 * one CPU; looking every 0.5 ms made 8-byte fetch-add across two namespaces
 * 9.8 us against 8.3 us looking every 20 ms). The price: a PE that stops
 * calling the library after a long busy spell serves its peers again only
 * after up to this long (then at once, until it is busy again). */
#define UCX_STAND_BACK_MAX_NS 10000000u

/* Progresses the worker until it finds nothing more to do, or another
 * thread waits for the lock (it progresses the worker too); under the lock. */
unsigned ucx_drain(ucx_t *u)
{
    unsigned total = 0, n;
    while ((n = ucp_worker_progress(u->worker)) != 0) {
        total += n;
        ucx_ps_ack(u);
        if (shoal_lock_waited_for(&u->lock))
            break;
    }
    return total;
}

unsigned ucx_progress(shoal_transport_t *tr)
{
    ucx_t *u = tr->priv;
    ucx_app_active(u);
    ucx_lock(u);
    unsigned total = ucx_drain(u);
    ucx_unlock(u);
    return total;
}

int ucx_doze(ucx_t *u, uint64_t ns)
{
    if (ucp_worker_arm(u->worker) != UCS_OK)
        return 0; /* events arrived or are waiting */
    ucx_unlock(u);
    struct pollfd pfd = {.fd = u->efd, .events = POLLIN};
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    ppoll(&pfd, 1, &ts, NULL);
    ucx_lock(u);
    return 1;
}

/* Sleeps up to `ns` or until something arrives for the worker; for wait
 * loops, which then poll again. */
unsigned ucx_sleep(shoal_transport_t *tr, uint64_t ns)
{
    ucx_t *u = tr->priv;
    ucx_app_active_for(u, ns);
    ucx_lock(u);
    unsigned total = ucx_drain(u);
    int slept = total == 0 && ucx_doze(u, ns);
    ucx_unlock(u);
    return slept ? ucx_progress(tr) : total;
}

/* Takes the wake-ups posted so far (the eventfd is non-blocking: none, none
 * taken). */
static void ucx_drain_wake(ucx_t *u)
{
    uint64_t count;
    if (read(u->wake_fd, &count, sizeof(count)) < 0)
        return; /* EAGAIN: nothing was posted */
}

/* Sleeps `ns`, or less when woken through wake_fd. */
static void ucx_stand_back(ucx_t *u, uint64_t ns)
{
    struct pollfd pfd = {.fd = u->wake_fd, .events = POLLIN};
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    if (ppoll(&pfd, 1, &ts, NULL) > 0)
        ucx_drain_wake(u);
}

/* Wakes the progress thread from its stand-back or its poll. */
void ucx_wake(ucx_t *u)
{
    const uint64_t one = 1;
    if (write(u->wake_fd, &one, sizeof(one)) < 0)
        return; /* the counter is full: the thread is awake anyway */
}

/* The application thread is about to block outside the worker (a bootstrap
 * barrier) while peers may still need it: the progress thread serves them
 * from now on, without waiting for its stand-back to run out. */
void ucx_hand_over(ucx_t *u)
{
    __atomic_store_n(&u->app_ns, 0, __ATOMIC_RELAXED);
    if (u->progress_running)
        ucx_wake(u);
}

void ucx_idle(shoal_transport_t *tr)
{
    ucx_hand_over(tr->priv);
}

void *ucx_progress_main(void *arg)
{
    ucx_t *u = arg;
    shoal_thread_name("shoal-ucx");
    struct pollfd pfd[2] = {{.fd = u->efd, .events = POLLIN}, {.fd = u->wake_fd, .events = POLLIN}};
    uint64_t back_ns = UCX_APP_ACTIVE_NS;
    while (!u->stop) {
        /* Stand back while application threads progress the worker. */
        int64_t since = (int64_t)(shoal_clock_ns() - __atomic_load_n(&u->app_ns, __ATOMIC_RELAXED));
        if (since < (int64_t)UCX_APP_ACTIVE_NS) {
            ucx_stand_back(u, back_ns);
            back_ns = back_ns * 2 < UCX_STAND_BACK_MAX_NS ? back_ns * 2 : UCX_STAND_BACK_MAX_NS;
            continue;
        }
        /* An application thread holds the worker: it is active after all. */
        if (!shoal_lock_try(&u->lock)) {
            ucx_stand_back(u, UCX_APP_ACTIVE_NS);
            continue;
        }
        back_ns = UCX_APP_ACTIVE_NS;
        ucx_drain(u);
        ucs_status_t st = ucp_worker_arm(u->worker);
        ucx_unlock(u);
        if (st == UCS_ERR_BUSY)
            continue; /* events arrived meanwhile: drain them first */
        if (st != UCS_OK) {
            SHOAL_ERROR("ucp_worker_arm failed: %s; remote operations on this PE will stall",
                        ucs_status_string(st));
            break;
        }
        if (u->stop)
            break;
        __atomic_store_n(&u->polling, 1, __ATOMIC_RELEASE);
        int n = poll(pfd, 2, -1);
        __atomic_store_n(&u->polling, 0, __ATOMIC_RELEASE);
        if (n < 0 && errno != EINTR) {
            SHOAL_ERROR("poll on the UCX worker's event fd failed: %m");
            break;
        }
        if (pfd[1].revents & POLLIN)
            ucx_drain_wake(u);
    }
    return NULL;
}

void ucx_progress_stop(ucx_t *u)
{
    if (!u->progress_running)
        return;
    u->stop = 1;
    ucx_wake(u);
    pthread_join(u->progress_thread, NULL);
    u->progress_running = 0;
}
