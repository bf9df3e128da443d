/*
 * What the tracer (trace.c), its merge (trace_merge.c) and the profile
 * (profile.c) share: the record layout, the per-thread buffers and the
 * tracer's state. Not for use outside those three files.
 */
#ifndef SHOAL_CORE_TRACE_INTERNAL_H
#define SHOAL_CORE_TRACE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/trace.h"

/* A record's team: none, the predefined ones, an active set (the
 * deprecated collectives: a PE set without a team), or a team made by a
 * split, numbered by its synchronization slot from TRACE_TEAM_SPLIT on. */
enum {
    TRACE_TEAM_NONE = -1,
    TRACE_TEAM_WORLD = 0,
    TRACE_TEAM_SHARED = 1,
    TRACE_TEAM_ACTIVE_SET = 2,
    TRACE_TEAM_SPLIT = 3,
};

typedef struct {
    uint64_t t0, t1;
    /* The name the program called: the routine's spec name (a string
     * constant), a binding's name for it (shmemx_trace_caller) or a user
     * range's name (interned, kept until the process ends). */
    const char *fn;
    uint64_t addr;
    uint64_t bytes;
    int32_t peer;
    uint16_t family;
    uint16_t tid;
    int32_t team;      /* TRACE_TEAM_*, or TRACE_TEAM_SPLIT + the team's slot */
    int32_t team_npes; /* its size; 0 with TRACE_TEAM_NONE */
} trace_event_t;

/* The name of record team code `team` ("SHMEM_TEAM_WORLD", "team 4", ...). */
void shoal_trace_team_name(char *name, size_t len, int team);

/* One thread's records and counters: plain adds, summed at finalize. The
 * records [flushed, n) are not in the file yet. Only the owning thread
 * appends (publishing n with a release store, so that another thread's
 * flush reads whole records) and only under shoal_tr.lock are records
 * written out: another thread's flush (a hang report, a fault) advances
 * `flushed`; the owner's own flush (buffer full, once a second) empties
 * the buffer. */
typedef struct {
    trace_event_t *ev; /* NULL when only profiling */
    size_t n, cap;
    size_t flushed;      /* under shoal_tr.lock */
    uint64_t next_flush; /* the owner flushes at its first record after this time */
    uint64_t dropped;
    int tid;
    uint64_t calls[SHOAL_TRACE_NFAMILIES], bytes[SHOAL_TRACE_NFAMILIES], ns[SHOAL_TRACE_NFAMILIES];
    /* Time inside barriers and collectives of every PE of the world team
     * (barrier_all, sync_all, collectives on SHMEM_TEAM_WORLD, shmem_malloc
     * and shmem_free): the PE that arrived last spent the least there. */
    uint64_t world_coll_ns, world_coll_calls;
    uint64_t *out_bytes; /* [npes]: bytes this thread wrote (put, signal, AMO) to each PE */
    uint64_t *in_bytes;  /* [npes]: bytes this thread read (get) from each PE */
} trace_buf_t;

#define TRACE_THREADS_MAX 256

typedef struct {
    const char *dir; /* NULL: not tracing */
    int profile;
    int npes, me;
    uint64_t t_init;
    int64_t clock_offset_ns; /* add to this PE's times to read PE 0's clock */
    uint64_t clock_rtt_ns;   /* the round trip the offset was measured with (0: same host) */
    pthread_mutex_t lock;    /* the buffer list and file writes */
    trace_buf_t *bufs[TRACE_THREADS_MAX];
    int nbufs;
    uint64_t threads_refused;
    unsigned gen;     /* counts the inits that turned tracing on */
    int pe_file_lost; /* a write to this PE's trace file failed (reported once) */
    int merge_lost;   /* the same for trace.json */
    int pe_file_done; /* finalize wrote the file's last line: no more flushes */
} shoal_tracer_t;

extern shoal_tracer_t shoal_tr;
extern const char *const shoal_trace_family_name[SHOAL_TRACE_NFAMILIES];

/* PE pe's file under SHOAL_TRACE: trace.<pe>.jsonl. */
void shoal_trace_pe_file(char *path, size_t len, int pe);

/* shmem_init, collective, with SHOAL_TRACE set: this PE's clock offset to
 * PE 0's (shoal_tr.clock_offset_ns; 0 on PE 0's host) (trace_clock.c). */
void shoal_trace_clock_sync(void);

/* Every PE, at finalize: gathers the profile counters on PE 0, which
 * prints the table (and SHOAL_PROFILE_CSV). */
void shoal_profile_gather(void);

#endif
