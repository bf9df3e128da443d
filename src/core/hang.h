/*
 * Hang diagnosis: what each thread of this PE is blocked in.
 *
 * Every wait of the library (point-to-point waits, signal waits, barriers,
 * the hand-over counters of collectives, locks, quiet/fence on the network,
 * shmem_finalize's barrier) describes itself in the calling thread's
 * "blocked-in" record when it first yields the CPU (after its first check
 * failed and its spin ran out), and clears it when it returns. A wait that
 * succeeds at once, or while spinning, never touches the record, so the
 * fast path is unchanged. The records live in this PE's internal heap area
 * (shoal_internal_t.hang), so that the other PEs of the host read them
 * through the mappings they already have: the report of one PE can say
 * where each of its peers is, and which of them has not entered a barrier.
 *
 * A watchdog thread per PE (hang.c), asleep in poll(), prints the report
 * (hang_report.c) when the PE gets SIGUSR1, and, with SHOAL_HANG_TIMEOUT=S,
 * when a PE of its host has been blocked for more than S seconds (the
 * lowest PE of each host watches the whole host).
 */
#ifndef SHOAL_CORE_HANG_H
#define SHOAL_CORE_HANG_H

#include <stddef.h>
#include <stdint.h>

#include "core/wait.h"

typedef enum {
    SHOAL_HANG_NONE = 0,
    SHOAL_HANG_WAIT,     /* one variable: *_wait_until, shmem_signal_wait_until */
    SHOAL_HANG_WAIT_SET, /* *_wait_until_all/any/some and their _vector forms */
    SHOAL_HANG_BARRIER,  /* a dissemination barrier (team, active set, inside a collective) */
    SHOAL_HANG_COUNT,    /* a collective's hand-over counter (broadcast, fcollect, ...) */
    SHOAL_HANG_LOCK,     /* shmem_set_lock waiting for its ticket */
    SHOAL_HANG_NET,      /* quiet, fence or a collective waiting for the network */
    SHOAL_HANG_FINALIZE, /* shmem_finalize's barrier */
} shoal_hang_kind_t;

#define SHOAL_HANG_THREADS 8 /* threads of a PE whose waits are recorded */
#define SHOAL_HANG_FN_MAX 64

/* One thread's record. Addresses are as the owning PE sees them; a reader
 * in another process translates them through the owner's row bases
 * (shoal_hang_pe_t). Written by the owner only: seq is odd while it writes. */
typedef struct {
    uint32_t seq;
    uint32_t owner;    /* thread id holding this record, 0 when free */
    uint32_t kind;     /* shoal_hang_kind_t */
    int32_t cmp;       /* WAIT, WAIT_SET: SHMEM_CMP_* */
    uint64_t since_ns; /* CLOCK_MONOTONIC when the wait began to back off; 0 before */
    uint64_t addr;     /* the ivar, ivars, the counter word, or the lock */
    uint64_t value;    /* the comparison value, the count awaited, or the lock ticket */
    uint64_t psync;    /* BARRIER, COUNT: the synchronization area */
    uint64_t nelems;   /* WAIT_SET */
    uint64_t values;   /* WAIT_SET, vector forms: cmp_values (owner's private memory) */
    uint64_t status;   /* WAIT_SET: the status array, or 0 */
    int32_t set_start, set_stride, set_size, set_index;
    int32_t round; /* BARRIER: the round; COUNT: the psync word */
    int32_t root;  /* COUNT: the collective's root index, or -1 */
    uint8_t dt_size, dt_signed, mode, pad[5];
    char fn[SHOAL_HANG_FN_MAX];
} shoal_hang_rec_t;
/* shoal_hang_read copies a record in 8-byte words. */
_Static_assert(sizeof(shoal_hang_rec_t) % 8 == 0, "shoal_hang_rec_t: whole 8-byte words");

/* A PE's part of its internal area: who it is, where its rows are, and one
 * record per thread. */
typedef struct {
    uint64_t pid;
    uint64_t row_base[2]; /* heap and globals rows (SHOAL_ROUTE_INLINE_ROWS) */
    uint64_t row_size[2];
    uint32_t finalizing;  /* 1 once this PE passed its shmem_finalize barrier */
    uint32_t untracked;   /* threads that found no free record */
    uint64_t reported_ns; /* CLOCK_MONOTONIC when this PE last printed a report it was asked for */
    uint64_t lock_held;   /* the lock this PE took last and holds, or 0 */
    uint64_t lock_ticket;
    uint64_t ended_ns; /* CLOCK_MONOTONIC when this PE (a host's lowest) ended the job for a hang */
    /* Where its flight recorder's ring is in its internal area; 0: none (core/flight.h). */
    uint64_t flight_off;
    shoal_hang_rec_t thread[SHOAL_HANG_THREADS];
} shoal_hang_pe_t;

/* What a wait is, filled by the wait on its stack once its first check
 * failed and handed to shoal_backoff (SHOAL_BACKOFF_FOR); the backoff
 * publishes it into the thread's record when it first yields. Fields as in
 * shoal_hang_rec_t; the set is a team or active set (start, stride, size,
 * this PE's index). */
typedef struct shoal_hang_what {
    shoal_hang_kind_t kind;
    const char *fn;
    const void *addr;
    uint64_t value;
    int cmp;
    shoal_dtype_t dt;
    shoal_wait_mode_t mode;
    size_t nelems;
    const int *status;
    const void *values;
    int set_start, set_stride, set_size, set_index;
    const uint64_t *psync;
    int word;
    int root;
} shoal_hang_what_t;

/* Publishes `w` as this thread's wait in progress, begun at now_ns;
 * shoal_hang_leave when the wait ends. */
void shoal_hang_enter(const shoal_hang_what_t *w, uint64_t now_ns);
/* The same for waits that do not go through shoal_backoff: quiet, fence
 * and pe_quiet on the network (timed by the watchdog alone, so no quiet
 * reads the clock), and shmem_finalize's barrier. */
void shoal_hang_simple(shoal_hang_kind_t kind, const char *fn);
void shoal_hang_leave(void);
/* Which lock this PE holds, so that a report names the holder (core/dist_lock.c). */
void shoal_hang_lock_taken(const long *lock, uint64_t ticket);
void shoal_hang_lock_released(const long *lock);

/* Life cycle (init.c): publish this PE's header and start the watchdog once
 * the data path is open; stop it before finalize unmaps the records. */
void shoal_hang_start(void);
void shoal_hang_stop(void);

/* ---- hang_report.c ---- */

typedef enum {
    SHOAL_HANG_ASKED,   /* SIGUSR1 */
    SHOAL_HANG_TIMEOUT, /* SHOAL_HANG_TIMEOUT passed */
} shoal_hang_reason_t;

/* Writes this PE's report to stderr; with `verdict`, also the state of every
 * PE of this host and the likely culprit. */
void shoal_hang_report(shoal_hang_reason_t reason, int verdict);

/* This PE's records, or another PE's as mapped here (NULL: not mapped). */
shoal_hang_pe_t *shoal_hang_pe(int pe);
/* A consistent copy of a record (0), or -1 when it kept changing. */
int shoal_hang_read(const shoal_hang_rec_t *src, shoal_hang_rec_t *copy);

#endif
