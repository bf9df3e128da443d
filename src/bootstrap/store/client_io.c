/*
 * A PE's side of the config store, the I/O thread (see store/client.c): it
 * joins the job (store/join.c), then sends what the bootstrap calls queue
 * and delivers what the store sends. An ABORT from the store ends the
 * process with the job's status, even while it computes; a store gone
 * before this PE finalized ends it too, with the cause.
 */
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "bootstrap/store/client_impl.h"
#include "bootstrap/store/server_thread.h"
#include "util/log.h"
#include "util/thread.h"

/* ---- running (in the I/O thread) ----------------------------------------- */

static void __attribute__((noreturn))
job_ended(client_t *c, int status, uint32_t origin, const char *msg)
{
    /* The store logged its own reasons already when it runs in this process. */
    int store_here = shoal_store_host_running();
    if (origin != (uint32_t)c->cfg.rank && !(store_here && origin == SHOAL_STORE_NO_ORIGIN)) {
        if (msg[0] != '\0')
            SHOAL_ERROR("the job was ended: %s", msg);
        else if (status != 0)
            SHOAL_WARN("PE %u ended the job with status %d (see its output for why); exiting",
                       origin, status);
        else
            SHOAL_INFO("PE %u ended the job with status 0 (shmem_global_exit); exiting", origin);
    }
    /* If this process hosts the store, let the ABORT reach the others first. */
    if (store_here)
        shoal_store_host_drain(2000);
    _exit(status);
}

static void store_gone(client_t *c, const char *why)
{
    if (c->finalized) {
        SHOAL_DEBUG("config store at %s closed after shmem_finalize (%s)", c->where, why);
        c->dead = 1;
        pthread_cond_broadcast(&c->cond);
        return;
    }
    if (shoal_store_pump_unreachable(&c->pump))
        SHOAL_ERROR("the config store at %s (%s) is unreachable: its host stopped answering "
                    "(%s; the host is down or the network link between it and this host is "
                    "cut; SHOAL_NET_TIMEOUT says how long an unanswered link is waited for). "
                    "This PE cannot continue without it; exiting",
                    c->where, c->hosted_by, why);
    else
        SHOAL_ERROR("the config store at %s (%s) went away: %s. This PE cannot continue "
                    "without it; exiting",
                    c->where, c->hosted_by, why);
    _exit(1);
}

/* Handles the frames in c->in; lock held. */
static void dispatch(client_t *c)
{
    for (;;) {
        shoal_store_msg_t m;
        size_t len = 0;
        char why[160];
        int got = shoal_store_pump_frame(&c->pump, &m, &len);
        if (got == 0)
            return;
        if (got < 0) {
            store_gone(c, c->pump.why);
            return;
        }
        if (m.type == SHOAL_STORE_MSG_ABORT) {
            char msg[SHOAL_STORE_MAX_TEXT + 1];
            if (c->finalized) {
                SHOAL_DEBUG("ignoring the end of the job after shmem_finalize");
                shoal_store_buf_consume(&c->in, len);
                continue;
            }
            shoal_store_span_str(m.u.abort.message, msg, sizeof(msg));
            job_ended(c, m.u.abort.status, m.u.abort.origin, msg);
        }
        if ((int)m.type == c->expect && !c->reply_ready) {
            /* A GATHERED reply keeps its count (4 bytes) before the values. */
            uint32_t count = m.u.gathered.count;
            shoal_store_span_t v = m.type == SHOAL_STORE_MSG_VALUE      ? m.u.value.value
                                   : m.type == SHOAL_STORE_MSG_GATHERED ? m.u.gathered.values
                                                                        : shoal_store_span(NULL, 0);
            c->reply.off = c->reply.len = 0;
            if ((m.type == SHOAL_STORE_MSG_GATHERED &&
                 shoal_store_buf_append(&c->reply, &count, sizeof(count)) != SHOAL_OK) ||
                (v.len > 0 && shoal_store_buf_append(&c->reply, v.ptr, v.len) != SHOAL_OK)) {
                store_gone(c, "out of memory for a reply");
                return;
            }
            c->reply_ready = 1;
            pthread_cond_broadcast(&c->cond);
        } else {
            snprintf(why, sizeof(why), "it sent an unexpected %s", shoal_store_msg_name(m.type));
            store_gone(c, why);
            return;
        }
        shoal_store_buf_consume(&c->in, len);
    }
}

/* Sends what is queued and reads what is there; lock held. */
static void pump(client_t *c)
{
    int rc;
    while ((rc = shoal_store_pump_step(&c->pump, shoal_store_now_ms())) > 0) {
        dispatch(c);
        if (c->dead)
            return;
    }
    if (rc < 0) {
        store_gone(c, shoal_store_pump_cause(&c->pump, "it closed the connection (its process "
                                                       "has ended)"));
        return;
    }
    pthread_cond_broadcast(&c->cond); /* flush progress */
}

void *shoal_store_client_main(void *arg)
{
    client_t *c = arg;
    shoal_thread_name("shoal-store");
    shoal_status_t status;

    shoal_store_block_sigpipe();

    status = shoal_store_client_join(c);
    pthread_mutex_lock(&c->lock);
    c->joined = status == SHOAL_OK ? 1 : -1;
    c->join_status = status;
    pthread_cond_broadcast(&c->cond);
    if (status != SHOAL_OK) {
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    /* Frames may have come right behind WELCOME. */
    dispatch(c);
    while (!c->stop && !c->dead) {
        struct pollfd fds[2] = {
            {.fd = c->pump.link->fd, .events = shoal_store_pump_events(&c->pump)},
            {.fd = c->wake_fd, .events = POLLIN},
        };
        pthread_mutex_unlock(&c->lock);
        poll(fds, 2, -1);
        pthread_mutex_lock(&c->lock);
        if (c->stop)
            break;
        if (fds[1].revents & POLLIN)
            shoal_store_wake_drain(c->wake_fd);
        pump(c);
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    return NULL;
}
