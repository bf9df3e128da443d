/*
 * What the hang report (hang_report.c) shares with its flight-recorder part
 * (hang_flight.c): the report's buffer, the state of each PE as read from
 * its records, and the words for both.
 */
#ifndef SHOAL_CORE_HANG_REPORT_H
#define SHOAL_CORE_HANG_REPORT_H

#include <stddef.h>

#include "core/hang.h"

#define SHOAL_HANG_REPORT_MAX (64 * 1024)

/* A report in the making, written with one write(2) at the end. */
typedef struct {
    char buf[SHOAL_HANG_REPORT_MAX];
    size_t len;
} shoal_hang_out_t;

/* A PE as the report sees it. */
typedef struct {
    int mapped; /* its records are readable here */
    int exited;
    int stopped; /* SIGSTOP, a debugger, ^Z: it cannot run until continued */
    int finalized;
    int nblocked;
    shoal_hang_rec_t rec[SHOAL_HANG_THREADS]; /* blocked ones first */
    const shoal_hang_pe_t *h;
} shoal_hang_state_t;

void shoal_hang_put(shoal_hang_out_t *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Starts a line with the PE's prefix, "shoal[PE n] hang: ". */
void shoal_hang_line(shoal_hang_out_t *o);
/* "in shmem_...(...)", "not blocked in Shoal", "has exited", ... */
void shoal_hang_put_state(shoal_hang_out_t *o, int pe, const shoal_hang_state_t *s);
/* "pshmem_x" and "shmem_x" are one call to the reader. */
const char *shoal_hang_call_name(const char *fn);

/* ---- hang_flight.c ---- */

/* Under a waiting thread's lines in its PE's report: the recorded events
 * that touched the address it waits on, and the last ones of the PEs that
 * wrote it. */
void shoal_hang_flight_wait(shoal_hang_out_t *o, int pe, const shoal_hang_state_t *states,
                            const shoal_hang_rec_t *r);
/* The verdicts the flight records give: for each waiting PE of the host,
 * who writes what it waits for and where that PE is now. Returns how many
 * lines it wrote. */
int shoal_hang_flight_verdict(shoal_hang_out_t *o, const shoal_hang_state_t *states);

#endif
