/*
 * Passing file descriptors between the PEs of one host, for memory that
 * cannot be reopened by name: a CUDA allocation exported as a POSIX fd is
 * an open file description of the driver whose private state is the
 * allocation, so reopening /proc/PID/fd/N (how host segments are mapped,
 * shm.c) would open the driver afresh and get nothing. The fd itself has to
 * travel: SCM_RIGHTS over a unix datagram socket in the abstract namespace
 * (no file system entry; gone when the process is), one per PE, bound for
 * as long as its user needs it. pidfd_getfd would need no socket, but it
 * asks for ptrace-attach rights (refused under Yama's default
 * ptrace_scope=1 on many distributions) and valgrind does not know it.
 *
 * Every datagram carries the sender's rank and the exchange's sequence
 * number, and the kernel attaches the sender's credentials (SO_PASSCRED):
 * one whose pid is not the pid that rank published at start-up is dropped,
 * so another process of the network namespace cannot inject memory.
 */
#ifndef SHOAL_TRANSPORT_SHM_FDPASS_H
#define SHOAL_TRANSPORT_SHM_FDPASS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/status.h"

typedef struct {
    int sock; /* -1: not open */
    int rank;
    char prefix[96]; /* socket names are prefix + rank */
} shoal_fdpass_t;

/* Binds this PE's socket, named from the job id, `generation` (shmem_init
 * count) and `what` (the user: "dev" for the device heap). */
shoal_status_t shoal_fdpass_open(shoal_fdpass_t *fp, const char *job_id, unsigned generation,
                                 const char *what, int rank, char *msg, size_t msglen);
void shoal_fdpass_close(shoal_fdpass_t *fp);

/* Sends `fd` to each of the npeers PEs in peers[] and receives one fd from
 * each, tagged `seq`: their_fds[i] is peers[i]'s (the caller closes it).
 * pids[i] is the pid peers[i] must have. Every listed PE must have opened
 * its socket before any sends (the caller's barrier) and call this with the
 * same seq. Gives up after timeout_ms, naming the PEs not heard from; on
 * failure no received fd is left open and msg says why. */
shoal_status_t shoal_fdpass_exchange(shoal_fdpass_t *fp, uint64_t seq, int fd, const int *peers,
                                     const pid_t *pids, int npeers, int *their_fds,
                                     unsigned timeout_ms, char *msg, size_t msglen);

#endif
