/*
 * The bootstrap service. shoalrun hosts the config store's logic
 * (bootstrap/store/logic.c) in launcher mode: each PE's socketpair is one
 * connection of the store, bound to the rank shoalrun gave that PE, carrying
 * the store's frames (bootstrap/store/proto.h) without greeting or TLS. This
 * file moves bytes between the sockets and the logic's buffers and acts on
 * what the logic records: the PEs' life-cycle events (for main.c to judge
 * their exits), the end of the job (a PE's ABORT, or the store's own), and a
 * PE that broke the protocol. Sockets are non-blocking: replies that do not
 * fit are kept in the logic's output buffer and sent when the socket is
 * writable, so one PE that stops reading never stalls the launcher.
 *
 * Once a PE has exited, PEs waiting for a barrier or allgather it will never
 * join, or for a key it never published, would wait forever: the logic says who waits for whom, and
 * the job is ended with a message that says so.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shoalrun.h"
#include "util/log.h"

static uint64_t now_ms(void)
{
    return (uint64_t)(sr_now() * 1000.0);
}

int sr_server_create(sr_job_t *job)
{
    shoal_store_server_conf_t conf = {
        .npes = job->npes,
        .join_timeout_ms = 0, /* a PE that never joins is seen exiting, or --timeout ends it */
        .where = "shoalrun",
        .launcher = 1,
    };
    snprintf(conf.job_id, sizeof(conf.job_id), "%.47s", job->job_id); /* "<pid>-<8 hex>" */
    if (shoal_store_server_create(&conf, &job->store) != SHOAL_OK) {
        sr_msg("cannot create the bootstrap service: out of memory");
        return -1;
    }
    return 0;
}

void sr_server_attach(sr_job_t *job, sr_pe_t *pe, int sock)
{
    char addr[32];
    snprintf(addr, sizeof(addr), "PE %d's socketpair", pe->rank);
    pe->peer = shoal_store_server_peer_new(job->store, addr);
    if (pe->peer == NULL || shoal_store_pump_open(&pe->pump, &shoal_store_policy_launcher, sock,
                                                  &pe->peer->in, &pe->peer->out, 0) != SHOAL_OK) {
        sr_msg("out of memory");
        sr_proc_emergency_exit();
    }
    shoal_store_server_peer_bind(pe->peer, pe->rank);
    pe->sock = sock;
}

bool sr_server_wants_write(const sr_pe_t *pe)
{
    return pe->peer != NULL && (shoal_store_buf_unread(&pe->peer->out) > 0 || pe->peer->closing);
}

void sr_server_write(sr_job_t *job, sr_pe_t *pe)
{
    if (pe->sock >= 0 && shoal_store_pump_flush(&pe->pump) != 0)
        sr_server_close(job, pe); /* EPIPE, ECONNRESET: the PE is gone */
    if (pe->sock >= 0 && shoal_store_buf_unread(&pe->peer->out) == 0 && pe->peer->closing)
        sr_server_close(job, pe); /* refused (its HELLO): the refusal is out */
}

/* Exit statuses are 8 bits; keep a failure a failure when it wraps to 0. */
static int exit_code(int status)
{
    int code = status & 0xff;
    return code == 0 && status != 0 ? 1 : code;
}

/* The job was ended through the store: by a PE (shmem_global_exit) or by
 * the store itself (PEs in different allgathers, out of memory). */
static void on_store_end(sr_job_t *job)
{
    int status;
    uint32_t origin;
    const char *msg;

    if (job->store_end_seen || !shoal_store_server_ended(job->store, &status, &origin, &msg))
        return;
    job->store_end_seen = true;
    int code = exit_code(status);
    size_t len = strlen(msg);
    if (origin == SHOAL_STORE_NO_ORIGIN) {
        sr_job_end(job, code, SIGTERM, SR_FAILURE_GRACE_S, "%s", msg);
    } else if (len > 0) {
        (void)sr_write_all(STDERR_FILENO, msg, len);
        if (msg[len - 1] != '\n')
            (void)sr_write_all(STDERR_FILENO, "\n", 1);
        if (sr_job_end(job, code, SIGTERM, SR_FAILURE_GRACE_S, NULL) && code != 0)
            job->cause_may_follow = true;
    } else if (code != 0) {
        const sr_pe_t *pe = origin < (uint32_t)job->npes ? &job->pes[origin] : NULL;
        if (sr_job_end(job, code, SIGTERM, SR_FAILURE_GRACE_S,
                       "PE %u (pid %ld) ended the job with status %d", origin,
                       pe ? (long)pe->pid : -1L, status))
            job->cause_may_follow = true;
    } else {
        sr_job_end(job, 0, SIGTERM, SR_FAILURE_GRACE_S, NULL);
    }
}

/* What the PE said about itself (EVENT initialized / finalized). */
static void note_state(sr_pe_t *pe)
{
    pe->in_shmem = pe->peer->state == SHOAL_STORE_PEER_RUNNING;
    pe->finalized = pe->peer->state == SHOAL_STORE_PEER_FINALIZED;
}

/* Hands what arrived to the logic, then acts on what it recorded. */
static void handle_input(sr_job_t *job, sr_pe_t *pe)
{
    shoal_status_t status = shoal_store_server_input(job->store, pe->peer, now_ms());

    note_state(pe);
    if (status != SHOAL_OK) {
        sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                   "PE %d (pid %ld) broke the bootstrap protocol (%s); ending the job", pe->rank,
                   (long)pe->pid, pe->peer->error);
        sr_server_close(job, pe);
    }
    on_store_end(job);
    /* It may now wait for a PE that has exited; not while an exited PE's own
     * last input is read: its exit is judged first (on_pe_exit). */
    if (job->nexited > 0 && !job->judging_exit)
        sr_server_check_stuck(job);
    /* Replies (to this PE, or to all when a barrier or allgather completed)
     * go out now rather than after another round of poll(). */
    for (int r = 0; r < job->npes; r++)
        if (job->pes[r].peer != NULL && shoal_store_buf_unread(&job->pes[r].peer->out) > 0)
            sr_server_write(job, &job->pes[r]);
}

void sr_server_read(sr_job_t *job, sr_pe_t *pe)
{
    int n;
    while (pe->sock >= 0 && (n = shoal_store_pump_step(&pe->pump, 0)) != 0) {
        if (n > 0) {
            handle_input(job, pe);
            continue;
        }
        if (pe->pump.link->sys_errno == ENOMEM) {
            sr_msg("out of memory reading PE %d's bootstrap requests", pe->rank);
            sr_proc_emergency_exit();
        }
        if (pe->pump.end == SHOAL_STORE_IO_EOF && pe->pump.link->sys_errno == 0 &&
            shoal_store_buf_unread(&pe->peer->in) > 0 && job->state == SR_JOB_RUNNING &&
            pe->running)
            sr_msg("PE %d closed its launcher connection in the middle of a message", pe->rank);
        sr_server_close(job, pe); /* closed, or ECONNRESET: the PE died */
    }
}

void sr_server_close(sr_job_t *job, sr_pe_t *pe)
{
    if (pe->sock >= 0)
        shoal_store_pump_close(&pe->pump); /* closes sock */
    pe->sock = -1;
    if (pe->peer != NULL) {
        note_state(pe);
        shoal_store_server_peer_gone(job->store, pe->peer, now_ms());
        pe->peer = NULL;
    }
}

void sr_server_report(const sr_job_t *job)
{
    if (job->store != NULL)
        shoal_store_server_report(job->store);
}

void sr_server_destroy(sr_job_t *job)
{
    shoal_store_server_destroy(job->store);
    job->store = NULL;
}

/* Whether a PE waits for one that has exited; with `end`, ends the job saying so. */
static bool stuck(sr_job_t *job, bool end)
{
    if (job->state != SR_JOB_RUNNING || job->store == NULL)
        return false;
    for (int g = 0; g < job->npes; g++) {
        sr_pe_t *gone = &job->pes[g];
        shoal_store_wait_t w;

        if (gone->running || !shoal_store_server_waits_for(job->store, g, &w))
            continue;
        if (!end)
            return true;
        if (gone->failed_after_finalize) {
            /* It failed after finalize and now a PE waits for it: its failure ends the job. */
            gone->failed_after_finalize = false;
            sr_job_end_by_pe(job, gone);
            return true;
        }
        if (w.kind == SHOAL_STORE_MSG_GET)
            sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                       "PE %d waits for key '%s' of PE %d (pid %ld), which exited without "
                       "publishing it; ending the job",
                       w.waiter, w.key, g, (long)gone->pid);
        else
            sr_job_end(job, 1, SIGTERM, SR_FAILURE_GRACE_S,
                       "PE %d waits in %s that cannot complete: PE %d (pid %ld) has exited; "
                       "ending the job",
                       w.waiter,
                       w.kind == SHOAL_STORE_MSG_BARRIER ? "a barrier" : "a bootstrap allgather", g,
                       (long)gone->pid);
        return true;
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
