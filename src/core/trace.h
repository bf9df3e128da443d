/*
 * Shoal's own tracer and profiler (SHOAL_TRACE=<dir>, SHOAL_PROFILE=1).
 *
 * Both are off by default, and then cost the fast path nothing: the inline
 * RMA, AMO and signal routines look their peer up in shoal.route_fast, which
 * is a copy of shoal.route while instrumentation is off. With it on, the
 * copy's npes is 0, so every inline lookup misses and the call takes the
 * out-of-line routed path (core/rma_route.c, amo_route.c,
 * signal_route.c), which records it and then does the transfer through the
 * real table. Slower routines (waits, barriers,
 * collectives, allocation) record through SHOAL_TRACE_SCOPE at the API
 * level, at the cost of one predictable branch on entry and one on exit.
 *
 * A record is one call: begin and end time (CLOCK_REALTIME, ns), the
 * routine, the peer PE, the bytes moved, and the symmetric address of a
 * signal or wait (to draw flow arrows from a put-with-signal to the wait it
 * released). Records go into a bounded buffer per thread (SHOAL_TRACE_EVENTS
 * records), which its thread writes to this PE's file when it is full and
 * at its first record after a second; a hang report, a fault the library
 * catches and finalize write every thread's records (records that cannot be
 * written are dropped and counted). Calls made inside a
 * traced routine (the puts of a collective) are not recorded on their own.
 * shmem_pcontrol(0) stops recording, 1 records, 2 records and writes the
 * records so far to this PE's file.
 */
#ifndef SHOAL_CORE_TRACE_H
#define SHOAL_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core/wait.h"

/* Operation families of the profile table, in its row order. */
#define SHOAL_TRACE_FAMILIES(X)                                                                    \
    X(PUT, "put")                                                                                  \
    X(GET, "get")                                                                                  \
    X(AMO, "amo")                                                                                  \
    X(SIGNAL, "signal")                                                                            \
    X(WAIT, "wait")                                                                                \
    X(COLL, "barrier/collective")                                                                  \
    X(ALLOC, "alloc")                                                                              \
    X(ORDER, "quiet/fence")                                                                        \
    X(NET, "network")                                                                              \
    X(RANGE, "user range")

/* The families past the last of these are not counted by the profile: a
 * network operation lies inside the call that issued it, and a user range
 * around calls, so their time would be counted twice. */
#define SHOAL_TRACE_PROFILED SHOAL_TRACE_NET

typedef enum {
#define SHOAL_TRACE_FAMILY_ENUM(id, name) SHOAL_TRACE_##id,
    SHOAL_TRACE_FAMILIES(SHOAL_TRACE_FAMILY_ENUM)
#undef SHOAL_TRACE_FAMILY_ENUM
        SHOAL_TRACE_NFAMILIES
} shoal_trace_family_t;

/* Nonzero while tracing or profiling is on (set at init, cleared at
 * finalize). Read only off the fast path. */
extern int shoal_trace_on;

/* Nanoseconds of CLOCK_REALTIME: every PE's clock on one host is the same
 * clock, and hosts are assumed to keep theirs in step (NTP). */
uint64_t shoal_trace_now(void);

/* Records one call that began at t0 and ends now. */
void shoal_trace_record(const char *fn, shoal_trace_family_t family, uint64_t t0, int peer,
                        uint64_t bytes, const void *addr);

/* The same for a collective over `team` (a shmem_team_t; NULL: an active
 * set of `set_size` PEs, the deprecated collectives). */
void shoal_trace_record_team(const char *fn, shoal_trace_family_t family, uint64_t t0,
                             const void *team, int set_size);

/* A network operation (a transfer, an AMO, a completion) issued inside the
 * traced call that is running: recorded nested in it, whatever the depth. */
uint64_t shoal_trace_net_begin(void);
void shoal_trace_net_end(const char *what, uint64_t t0, int peer, uint64_t bytes);

/* Quiet and fence on the network branch (core/net_path.c): the program's
 * own shmem_quiet or shmem_fence (*top_p set) is recorded as a
 * "quiet/fence" slice under its name, any other as a network slice `what`. */
uint64_t shoal_trace_order_begin(int *top_p);
void shoal_trace_order_end(const char *fn, const char *what, uint64_t t0, int top);

/* shmemx_trace_begin / _end: a user range on this thread's track. */
void shoal_trace_range_begin(const char *fn, const char *name);
void shoal_trace_range_end(const char *fn, const char *name);

/* shmemx_trace_caller: the name this thread's calls are recorded under
 * (a language binding's name for the call), or NULL for their own. */
void shoal_trace_set_caller(const char *name);

/* Nesting: a routine's own inner calls are not recorded. */
int shoal_trace_enter(void);
void shoal_trace_leave(void);

/* When a scope begins: the time if this call is recorded (tracing is on
 * and the call is not nested in another recorded one), else 0. */
static inline uint64_t shoal_trace_scope_t0(void)
{
    return __builtin_expect(shoal_trace_on, 0) && shoal_trace_enter() ? shoal_trace_now() : 0;
}

/* A call of an API routine from here to the end of the enclosing block:
 *     SHOAL_TRACE_SCOPE(SHOAL_FN, SHOAL_TRACE_WAIT, -1, 0, ivar);  */
typedef struct {
    const char *fn;
    uint64_t t0; /* 0: not recording */
    uint64_t bytes;
    const void *addr;
    int peer;
    shoal_trace_family_t family;
} shoal_trace_scope_t;

static inline shoal_trace_scope_t shoal_trace_scope_begin(const char *fn,
                                                          shoal_trace_family_t family, int peer,
                                                          uint64_t bytes, const void *addr)
{
    shoal_trace_scope_t s = {fn, shoal_trace_scope_t0(), bytes, addr, peer, family};
    return s;
}

static inline void shoal_trace_scope_end(shoal_trace_scope_t *s)
{
    if (__builtin_expect(s->t0 != 0, 0)) {
        shoal_trace_leave();
        shoal_trace_record(s->fn, s->family, s->t0, s->peer, s->bytes, s->addr);
    }
}

/* The same for a collective: its own small scope, so that the untraced
 * call keeps its fields in registers as the plain scope does. */
typedef struct {
    const char *fn;
    uint64_t t0;      /* 0: not recording */
    const void *team; /* NULL: an active set of set_size PEs */
    int set_size;
    shoal_trace_family_t family;
} shoal_trace_team_scope_t;

static inline shoal_trace_team_scope_t shoal_trace_team_scope_begin(const char *fn,
                                                                    shoal_trace_family_t family,
                                                                    const void *team, int set_size)
{
    shoal_trace_team_scope_t s = {fn, shoal_trace_scope_t0(), team, set_size, family};
    return s;
}

static inline void shoal_trace_team_scope_end(shoal_trace_team_scope_t *s)
{
    if (__builtin_expect(s->t0 != 0, 0)) {
        shoal_trace_leave();
        shoal_trace_record_team(s->fn, s->family, s->t0, s->team, s->set_size);
    }
}

#define SHOAL_TRACE_SCOPE(fn, family, peer, bytes, addr)                                           \
    shoal_trace_scope_t shoal_trace_scope_                                                         \
        __attribute__((cleanup(shoal_trace_scope_end), unused)) =                                  \
            shoal_trace_scope_begin(fn, family, peer, bytes, addr)

/* A collective over `team` (a shmem_team_t, read only when recorded, after
 * the routine checked it), or over an active set of set_size PEs (team
 * NULL). */
#define SHOAL_TRACE_SCOPE_TEAM(fn, family, team, set_size)                                         \
    shoal_trace_team_scope_t shoal_trace_scope_                                                    \
        __attribute__((cleanup(shoal_trace_team_scope_end), unused)) =                             \
            shoal_trace_team_scope_begin(fn, family, team, set_size)

/* shoal_wait_one, recorded: the single waits branch here while tracing is
 * on, so that off their only cost is the test of shoal_trace_on. */
void shoal_trace_wait_one(const char *fn, const void *ivar, shoal_dtype_t dt, int cmp,
                          uint64_t value) __attribute__((cold));

/* shoal_init, once the data path is open: reads the settings, opens the
 * fast path's table (blinded while instrumentation is on). */
void shoal_trace_init(void);

/* shmem_pcontrol(2): writes this PE's records so far to its file. */
void shoal_trace_flush(void);

/* A hang report (SIGUSR1, SHOAL_HANG_TIMEOUT, shoalrun --timeout) and a
 * fault: writes every thread's records so far to this PE's file, so that
 * the trace survives the job's end (shoal-trace merge joins the files).
 * Safe from any thread and from a signal handler that may interrupt a
 * flush (it gives up after 2 s rather than wait on the lock). */
void shoal_trace_flush_all(void);

/* shoal_finalize, while the data path is still open: writes each PE's
 * records, and on PE 0 merges them into trace.json and prints the profile.
 * Collective over all PEs. */
void shoal_trace_finalize(void);

#endif
