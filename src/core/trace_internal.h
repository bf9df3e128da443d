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

typedef struct {
    uint64_t t0, t1;
    const char *fn; /* a string constant: the routine's spec name */
    uint64_t addr;
    uint64_t bytes;
    int32_t peer;
    uint16_t family;
    uint16_t tid;
} trace_event_t;

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
    size_t flushed;       /* under shoal_tr.lock */
    uint64_t next_flush;  /* the owner flushes at its first record after this time */
    uint64_t dropped;
    int tid;
    uint64_t calls[SHOAL_TRACE_NFAMILIES], bytes[SHOAL_TRACE_NFAMILIES], ns[SHOAL_TRACE_NFAMILIES];
    uint64_t *out_bytes; /* [npes]: bytes this thread wrote (put, signal, AMO) to each PE */
    uint64_t *in_bytes;  /* [npes]: bytes this thread read (get) from each PE */
} trace_buf_t;

#define TRACE_THREADS_MAX 256

typedef struct {
    const char *dir; /* NULL: not tracing */
    int profile;
    int npes, me;
    uint64_t t_init;
    pthread_mutex_t lock; /* the buffer list and file writes */
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

/* Every PE, at finalize: gathers the profile counters on PE 0, which
 * prints the table (and SHOAL_PROFILE_CSV). */
void shoal_profile_gather(void);

#endif
