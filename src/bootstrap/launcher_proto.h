/*
 * The wire protocol between shoalrun and the PEs it starts. It is private to
 * this repository: both ends are built from this header.
 *
 * shoalrun gives every PE one end of a SOCK_STREAM socketpair and these
 * environment variables:
 *   SHOAL_LAUNCHER_FD  the PE's end of the socketpair (a decimal fd number)
 *   SHOAL_RANK, SHOAL_NPES, SHOAL_LOCAL_RANK, SHOAL_LOCAL_NPES
 *   SHOAL_JOB_ID       a string unique on this host for the job's lifetime
 *
 * Every message is a shoal_launcher_msg_t header followed by key_len bytes of
 * key (no terminating NUL) and value_len bytes of value. Integers are in host
 * byte order: both ends run on the same host.
 *
 * PE -> launcher:
 *   PUT     key, value    store value under (sender's rank, key); no reply
 *   GET     arg=pe, key   reply VALUE once (pe, key) exists (waits until then)
 *   BARRIER               reply BARRIER_DONE once all PEs sent BARRIER
 *   EVENT   arg=event     shoal_bootstrap_event_t (initialized / finalized); no reply
 *   ALLGATHER key, value  reply GATHERED once every PE sent ALLGATHER with this
 *                         key (one at a time, the same order on every PE)
 *   ABORT   arg=status, value=message (may be empty)
 *                         the launcher prints the message once, ends every
 *                         other PE and exits with `status`; no reply (the PE
 *                         exits right after sending it)
 * launcher -> PE:
 *   VALUE   value
 *   BARRIER_DONE
 *   GATHERED value = for each PE in rank order: u32 length, then its value
 *            (at most SHOAL_LAUNCHER_MAX_GATHERED bytes in all)
 */
#ifndef SHOAL_BOOTSTRAP_LAUNCHER_PROTO_H
#define SHOAL_BOOTSTRAP_LAUNCHER_PROTO_H

#include <stdint.h>

#define SHOAL_LAUNCHER_MAX_KEY 256
#define SHOAL_LAUNCHER_MAX_VALUE (1u << 20)
#define SHOAL_LAUNCHER_MAX_GATHERED (64u << 20)

typedef enum {
    SHOAL_LAUNCHER_MSG_PUT = 1,
    SHOAL_LAUNCHER_MSG_GET = 2,
    SHOAL_LAUNCHER_MSG_BARRIER = 3,
    SHOAL_LAUNCHER_MSG_EVENT = 4,
    SHOAL_LAUNCHER_MSG_ABORT = 5,
    SHOAL_LAUNCHER_MSG_ALLGATHER = 6,
    SHOAL_LAUNCHER_MSG_VALUE = 101,
    SHOAL_LAUNCHER_MSG_BARRIER_DONE = 102,
    SHOAL_LAUNCHER_MSG_GATHERED = 103,
} shoal_launcher_msg_type_t;

typedef struct {
    uint32_t type;
    int32_t arg;
    uint32_t key_len;
    uint32_t value_len;
} shoal_launcher_msg_t;

#endif
