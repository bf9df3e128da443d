/*
 * The bootstrap service. Each PE sends requests over its socket in the format
 * of bootstrap/launcher_proto.h; this file reads them, answers GETs from the
 * key-value store as soon as the key exists, releases a barrier once every
 * PE has arrived, answers an allgather (one request per PE) with every PE's
 * value once all sent theirs, records the PEs' life-cycle events for main.c to judge
 * their exits, and turns ABORT into the end of the job. Sockets are
 * non-blocking: replies that do not fit are queued and sent when the socket
 * is writable, so one PE that stops reading never stalls the launcher.
 *
 * A PE that breaks the protocol ends the job: its stream cannot be trusted
 * after that. Likewise, once a PE has exited, PEs waiting for a barrier it
 * will never join or for a key it never published would wait forever, so the
 * job is ended with a message that says who waits for whom.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "shoalrun.h"

#define SR_READ_CHUNK (64 * 1024)

static void protocol_error(sr_job_t *job, sr_pe_t *pe, const char *what)
{
    sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
               "PE %d (pid %ld) broke the launcher protocol (%s); ending the job", pe->rank,
               (long)pe->pid, what);
    sr_server_close(job, pe);
}

static void queue_reply(sr_job_t *job, sr_pe_t *pe, uint32_t type, const void *value, uint32_t len)
{
    shoal_launcher_msg_t h = {.type = type, .arg = 0, .key_len = 0, .value_len = len};

    if (pe->sock < 0)
        return; /* it went away; its exit is judged elsewhere */
    sr_buf_append(&pe->out, &h, sizeof(h));
    sr_buf_append(&pe->out, value, len);
    sr_server_write(job, pe);
}

void sr_server_write(sr_job_t *job, sr_pe_t *pe)
{
    while (pe->sock >= 0 && pe->out.len > pe->out.off) {
        ssize_t n =
            send(pe->sock, pe->out.data + pe->out.off, pe->out.len - pe->out.off, MSG_NOSIGNAL);
        if (n >= 0)
            pe->out.off += (size_t)n;
        else if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        else if (errno != EINTR)
            sr_server_close(job, pe); /* EPIPE, ECONNRESET: the PE is gone */
    }
}

static void handle_put(sr_job_t *job, sr_pe_t *pe, const char *key, uint32_t key_len,
                       const char *value, uint32_t value_len)
{
    sr_kvs_entry_t *e = sr_kvs_find(&job->kvs, pe->rank, key, key_len, true);

    sr_kvs_set(e, value, value_len);
    pe->waited_on -= (int)e->nwaiters;
    for (size_t i = 0; i < e->nwaiters; i++)
        queue_reply(job, &job->pes[e->waiters[i]], SHOAL_LAUNCHER_MSG_VALUE, e->value,
                    e->value_len);
    e->nwaiters = 0;
}

static void handle_get(sr_job_t *job, sr_pe_t *pe, int target, const char *key, uint32_t key_len)
{
    sr_kvs_entry_t *e = sr_kvs_find(&job->kvs, target, key, key_len, true);

    if (e->has_value) {
        queue_reply(job, pe, SHOAL_LAUNCHER_MSG_VALUE, e->value, e->value_len);
        return;
    }
    sr_kvs_add_waiter(e, pe->rank);
    job->pes[target].waited_on++;
    if (!job->pes[target].running)
        sr_server_check_stuck(job);
}

static void handle_barrier(sr_job_t *job, sr_pe_t *pe)
{
    if (pe->in_barrier) {
        protocol_error(job, pe, "BARRIER while already in the barrier");
        return;
    }
    pe->in_barrier = true;
    if (++job->barrier_count < job->npes) {
        sr_server_check_stuck(job);
        return;
    }
    job->barrier_count = 0;
    job->barrier_generation++;
    for (int r = 0; r < job->npes; r++) {
        job->pes[r].in_barrier = false;
        queue_reply(job, &job->pes[r], SHOAL_LAUNCHER_MSG_BARRIER_DONE, NULL, 0);
    }
}

static void handle_allgather(sr_job_t *job, sr_pe_t *pe, const char *key, uint32_t key_len,
                             const char *value, uint32_t value_len)
{
    if (pe->in_gather) {
        protocol_error(job, pe, "ALLGATHER while already in an allgather");
        return;
    }
    if (job->gather_count == 0) {
        memcpy(job->gather_key, key, key_len);
        job->gather_key_len = key_len;
    } else if (key_len != job->gather_key_len || memcmp(key, job->gather_key, key_len) != 0) {
        sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                   "PE %d entered the bootstrap allgather '%.*s' while other PEs are in '%.*s': "
                   "every PE must make the same bootstrap collectives in the same order; ending "
                   "the job",
                   pe->rank, (int)key_len, key, (int)job->gather_key_len, job->gather_key);
        return;
    }
    if (job->gather_bytes + 4 * (size_t)job->npes + value_len > SHOAL_LAUNCHER_MAX_GATHERED) {
        sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                   "the bootstrap allgather '%.*s' of %d PEs holds more than the %u bytes "
                   "launcher_proto.h allows; ending the job",
                   (int)key_len, key, job->npes, SHOAL_LAUNCHER_MAX_GATHERED);
        return;
    }
    pe->gather_value = sr_xmalloc(value_len ? value_len : 1);
    memcpy(pe->gather_value, value, value_len);
    pe->gather_len = value_len;
    pe->in_gather = true;
    job->gather_bytes += value_len;
    if (++job->gather_count < job->npes) {
        sr_server_check_stuck(job);
        return;
    }
    /* Everyone is in: one answer, built once, to every PE. */
    sr_buf_t all = {0};
    for (int r = 0; r < job->npes; r++) {
        uint32_t n = job->pes[r].gather_len;
        sr_buf_append(&all, &n, sizeof(n));
        sr_buf_append(&all, job->pes[r].gather_value, n);
    }
    job->gather_count = 0;
    job->gather_bytes = 0;
    for (int r = 0; r < job->npes; r++) {
        sr_pe_t *q = &job->pes[r];
        free(q->gather_value);
        q->gather_value = NULL;
        q->gather_len = 0;
        q->in_gather = false;
        queue_reply(job, q, SHOAL_LAUNCHER_MSG_GATHERED, all.data + all.off,
                    (uint32_t)(all.len - all.off));
    }
    sr_buf_free(&all);
}

void sr_server_report(const sr_job_t *job)
{
    const char *level = getenv("SHOAL_LOG_LEVEL");
    unsigned long total = 0, most = 0;
    if (level == NULL || atoi(level) < 2)
        return;
    for (int t = 0; t < 8; t++)
        total += job->served[t];
    for (int r = 0; r < job->npes; r++)
        if (job->pes[r].requests > most)
            most = job->pes[r].requests;
    sr_msg("the bootstrap served %lu requests from %d PEs (%.1f per PE, at most %lu from one): "
           "put %lu, get %lu, allgather %lu, barrier %lu, event %lu",
           total, job->npes, job->npes ? (double)total / job->npes : 0.0, most,
           job->served[SHOAL_LAUNCHER_MSG_PUT], job->served[SHOAL_LAUNCHER_MSG_GET],
           job->served[SHOAL_LAUNCHER_MSG_ALLGATHER], job->served[SHOAL_LAUNCHER_MSG_BARRIER],
           job->served[SHOAL_LAUNCHER_MSG_EVENT]);
}

static void handle_abort(sr_job_t *job, sr_pe_t *pe, int status, const char *msg, uint32_t msg_len)
{
    /* Exit statuses are 8 bits; keep a failure a failure when it wraps to 0. */
    int code = status & 0xff;
    if (code == 0 && status != 0)
        code = 1;

    if (job->state != SR_JOB_RUNNING)
        return; /* the job is already ending; say nothing twice */
    if (msg_len > 0) {
        (void)sr_write_all(STDERR_FILENO, msg, msg_len);
        if (msg[msg_len - 1] != '\n')
            (void)sr_write_all(STDERR_FILENO, "\n", 1);
        sr_job_end(job, code, SIGTERM, SR_FAILURE_GRACE_S, NULL);
    } else if (code != 0) {
        sr_job_end(job, code, SIGTERM, SR_FAILURE_GRACE_S,
                   "PE %d (pid %ld) ended the job with status %d", pe->rank, (long)pe->pid, status);
    } else {
        sr_job_end(job, 0, SIGTERM, SR_FAILURE_GRACE_S, NULL);
    }
}

/* Handles one complete message. */
static void handle(sr_job_t *job, sr_pe_t *pe, const shoal_launcher_msg_t *h, const char *key,
                   const char *value)
{
    pe->requests++;
    if (h->type < 8)
        job->served[h->type]++;
    switch (h->type) {
    case SHOAL_LAUNCHER_MSG_PUT:
        if (h->key_len == 0)
            protocol_error(job, pe, "PUT with an empty key");
        else
            handle_put(job, pe, key, h->key_len, value, h->value_len);
        break;
    case SHOAL_LAUNCHER_MSG_GET:
        if (h->key_len == 0 || h->value_len != 0 || h->arg < 0 || h->arg >= job->npes)
            protocol_error(job, pe, "GET needs a key and a PE number within the job");
        else
            handle_get(job, pe, h->arg, key, h->key_len);
        break;
    case SHOAL_LAUNCHER_MSG_BARRIER:
        handle_barrier(job, pe);
        break;
    case SHOAL_LAUNCHER_MSG_EVENT:
        /* A program may initialize again after finalizing (OpenSHMEM 1.6). */
        if (h->arg == SHOAL_BOOTSTRAP_EVENT_INITIALIZED)
            pe->in_shmem = true, pe->finalized = false;
        else if (h->arg == SHOAL_BOOTSTRAP_EVENT_FINALIZED)
            pe->in_shmem = false, pe->finalized = true;
        else
            protocol_error(job, pe, "unknown EVENT");
        break;
    case SHOAL_LAUNCHER_MSG_ABORT:
        handle_abort(job, pe, h->arg, value, h->value_len);
        break;
    case SHOAL_LAUNCHER_MSG_ALLGATHER:
        if (h->key_len == 0)
            protocol_error(job, pe, "ALLGATHER with an empty key");
        else
            handle_allgather(job, pe, key, h->key_len, value, h->value_len);
        break;
    default:
        protocol_error(job, pe, "unknown message type");
        break;
    }
}

/* Handles the complete messages at the front of pe->in. */
static void handle_buffered(sr_job_t *job, sr_pe_t *pe)
{
    while (pe->sock >= 0) {
        size_t avail = pe->in.len - pe->in.off;
        shoal_launcher_msg_t h;

        if (avail < sizeof(h))
            return;
        memcpy(&h, pe->in.data + pe->in.off, sizeof(h));
        if (h.key_len > SHOAL_LAUNCHER_MAX_KEY || h.value_len > SHOAL_LAUNCHER_MAX_VALUE) {
            protocol_error(job, pe, "key or value longer than launcher_proto.h allows");
            return;
        }
        size_t total = sizeof(h) + h.key_len + h.value_len;
        if (avail < total)
            return;
        const char *key = pe->in.data + pe->in.off + sizeof(h);
        pe->in.off += total; /* before handle(), which may close and free pe->in */
        handle(job, pe, &h, key, key + h.key_len);
    }
}

void sr_server_read(sr_job_t *job, sr_pe_t *pe)
{
    while (pe->sock >= 0) {
        sr_buf_reserve(&pe->in, SR_READ_CHUNK);
        ssize_t n = recv(pe->sock, pe->in.data + pe->in.len, pe->in.cap - pe->in.len, 0);
        if (n > 0) {
            pe->in.len += (size_t)n;
            handle_buffered(job, pe);
        } else if (n == 0) {
            if (pe->in.len > pe->in.off && job->state == SR_JOB_RUNNING && pe->running)
                sr_msg("PE %d closed its launcher connection in the middle of a message", pe->rank);
            sr_server_close(job, pe);
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        } else if (errno != EINTR) {
            sr_server_close(job, pe); /* ECONNRESET: the PE died */
        }
    }
}

void sr_server_close(sr_job_t *job, sr_pe_t *pe)
{
    (void)job;
    if (pe->sock >= 0)
        close(pe->sock);
    pe->sock = -1;
    sr_buf_free(&pe->in);
    sr_buf_free(&pe->out);
}

/* Finds a PE blocked in GET on a key of the exited PE `gone`. */
static bool find_get_waiter(sr_job_t *job, int gone, int *waiter_p, const sr_kvs_entry_t **e_p)
{
    for (size_t b = 0; b < job->kvs.nbuckets; b++)
        for (const sr_kvs_entry_t *e = job->kvs.buckets[b]; e != NULL; e = e->next)
            if (e->rank == gone && e->nwaiters > 0) {
                *waiter_p = e->waiters[0];
                *e_p = e;
                return true;
            }
    return false;
}

/* Whether a PE waits for one that has exited; with `end`, ends the job saying so. */
static bool stuck(sr_job_t *job, bool end)
{
    if (job->state != SR_JOB_RUNNING)
        return false;
    for (int g = 0; g < job->npes; g++) {
        sr_pe_t *gone = &job->pes[g];
        const sr_kvs_entry_t *e;
        int waiter;

        if (gone->running)
            continue;
        bool waited_for = (job->barrier_count > 0 && !gone->in_barrier) ||
                          (job->gather_count > 0 && !gone->in_gather) ||
                          (gone->waited_on > 0 && find_get_waiter(job, g, &waiter, &e));
        if (waited_for && end && gone->failed_after_finalize) {
            /* It failed after finalize and now a PE waits for it: its failure ends the job. */
            gone->failed_after_finalize = false;
            sr_job_end_by_pe(job, gone);
            return true;
        }
        if (job->barrier_count > 0 && !gone->in_barrier) {
            for (waiter = 0; !job->pes[waiter].in_barrier; waiter++)
                ;
            if (end)
                sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                           "PE %d waits in a barrier that cannot complete: PE %d (pid %ld) has "
                           "exited; ending the job",
                           waiter, g, (long)gone->pid);
            return true;
        }
        if (job->gather_count > 0 && !gone->in_gather) {
            for (waiter = 0; !job->pes[waiter].in_gather; waiter++)
                ;
            if (end)
                sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                           "PE %d waits in a bootstrap allgather that cannot complete: PE %d "
                           "(pid %ld) has exited; ending the job",
                           waiter, g, (long)gone->pid);
            return true;
        }
        if (gone->waited_on > 0 && find_get_waiter(job, g, &waiter, &e)) {
            if (end)
                sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                           "PE %d waits for key '%.*s' of PE %d (pid %ld), which exited without "
                           "publishing it; ending the job",
                           waiter, (int)e->key_len, e->key, g, (long)gone->pid);
            return true;
        }
    }
    return false;
}

void sr_server_check_stuck(sr_job_t *job)
{
    (void)stuck(job, true);
}

bool sr_server_is_stuck(sr_job_t *job)
{
    return stuck(job, false);
}
