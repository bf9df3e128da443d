/*
 * What a PE's hang report (src/core/hang_report.c) and shoalrun agree on:
 * the report goes to the PE's stderr and its last line carries
 * SHOAL_HANG_REPORT_END followed by the PE's number, so that a launcher that
 * asked for reports (SIGUSR1) before ending a job knows when each is
 * complete. SHOAL_HANG_SIGNAL is the signal that asks.
 */
#ifndef SHOAL_BOOTSTRAP_LAUNCHER_REPORT_H
#define SHOAL_BOOTSTRAP_LAUNCHER_REPORT_H

#include <signal.h>

#define SHOAL_HANG_SIGNAL SIGUSR1
#define SHOAL_HANG_REPORT_END "end of hang report of PE"

#endif
