/*
 * Every setting Shoal reads from the environment, one row each:
 *   X(VARIABLE, type, field, "default", "documentation")
 * The settings struct, the parser, `shoal-info` and docs/env.md are generated
 * from these rows; a default is written here and nowhere else.
 * Types: size (bytes, with optional k/m/g/t suffix), bool (0/1, yes/no,
 * true/false, on/off), uint (unsigned decimal), string, secret (a string that
 * shoal-info and SHMEM_INFO never print, and that is removed from the process's
 * environment once read unless SHOAL_JOB_KEY_INHERIT says to keep it).
 */
#ifndef SHOAL_UTIL_ENV_TABLE_H
#define SHOAL_UTIL_ENV_TABLE_H

#define SHOAL_ENV_TABLE(X)                                                                         \
    X(SHMEM_SYMMETRIC_SIZE, size, symmetric_size, "1G",                                            \
      "Initial size of each PE's symmetric heap. Address space is reserved up front; memory is "   \
      "used only as pages are touched. An allocation that does not fit grows the heap on every "   \
      "PE by a new segment (collectively, inside the allocation), up to "                          \
      "SHOAL_SYMMETRIC_SIZE_MAX.")                                                                 \
    X(SHOAL_SYMMETRIC_SIZE_MAX, size, symmetric_size_max, "64G",                                   \
      "Most the symmetric heap grows to, all segments together (no growth when not above "         \
      "SHMEM_SYMMETRIC_SIZE). Each growth adds a segment of max(request, heap so far), so the "    \
      "heap doubles: one memfd, one route row and one exchange between the PEs (a bootstrap "      \
      "allgather, plus a UCX registration across hosts); data in later segments is reached "       \
      "through the routed path (on one host about 180 instructions more per call than in the "     \
      "first segment: shmem_long_p 36 -> 217). Empty segments at the end are given back at "       \
      "shmem_free.")                                                                               \
    X(SHMEM_DEBUG, bool, debug, "0",                                                               \
      "Extra checks and debug log lines (collective argument checks, every PE's view of "          \
      "errors).")                                                                                  \
    X(SHOAL_CHECK, bool, check, "0",                                                               \
      "Check mode (also on under SHMEM_DEBUG): every collective checks that the team's PEs "       \
      "call the same routine with the same root, count and operation; symmetric allocations "      \
      "get guard zones checked at shmem_free and shmem_finalize; freed blocks are poisoned "       \
      "and writes into them reported. Costs a barrier per collective.")                            \
    X(SHMEM_INFO, bool, info, "0", "PE 0 prints every setting and its value at shmem_init.")       \
    X(SHMEM_VERSION, bool, version, "0", "PE 0 prints the library name and version at init.")      \
    X(SHOAL_TRACE, string, trace, "",                                                              \
      "Directory for a trace of every PE's API calls (created if absent). Each PE writes "         \
      "trace.<pe>.jsonl there as it runs (and on a hang report or a caught fault); at "            \
      "shmem_finalize PE 0 merges them into trace.json, a Chrome trace-event file with one "       \
      "track per PE (shoal-trace merge does the same after a job that never finished). Empty: "    \
      "no trace.")                                                                                 \
    X(SHOAL_TRACE_EVENTS, uint, trace_events, "262144",                                            \
      "Calls each thread buffers while tracing (56 bytes each); a full buffer is written to "      \
      "the PE's file and emptied.")                                                                \
    X(SHOAL_PROFILE, bool, profile, "0",                                                           \
      "At shmem_finalize PE 0 prints per operation family the calls, bytes and the mean and "      \
      "maximum time per PE, the laggard (the PE that arrived last at the world's barriers and "    \
      "collectives), each PE's share of wall time in compute, communication and waiting, and "     \
      "(up to 16 PEs) the bytes each PE moved to each other PE.")                                  \
    X(SHOAL_PROFILE_CSV, string, profile_csv, "",                                                  \
      "PE 0 writes the profile to this CSV file (and prints it; no SHOAL_PROFILE needed), with "   \
      "every PE's row and the whole traffic matrix, which shoal-profile-heatmap draws.")           \
    X(SHOAL_LOG_LEVEL, uint, log_level, "1",                                                       \
      "0 errors only, 1 warnings, 2 info, 3 debug (SHMEM_DEBUG raises it to 3).")                  \
    X(SHOAL_DEBUG_SUBSYS, string, debug_subsys, "",                                                \
      "Comma-separated subsystems whose info and debug lines are printed (bootstrap, "             \
      "transport, device, memory, coll, rma, init, core); setting it turns debug lines on. "       \
      "Empty: all.")                                                                               \
    X(SHOAL_LOG_FILE, string, log_file, "",                                                        \
      "Also write each PE's log lines to this file (%h host, %p pid, %r PE are replaced, for "     \
      "example shoal.%h.%r.log); errors and warnings still go to stderr.")                         \
    X(SHOAL_OUTPUT_LOST_STATUS, uint, output_lost_status, "0",                                     \
      "Exit status a PE's process ends with, in place of 0, when a file Shoal was asked to "       \
      "write (SHOAL_TRACE's files, SHOAL_PROFILE_CSV, SHOAL_LOG_FILE) could not be written "       \
      "completely, e.g. on a full disk. The failure itself is always logged, naming the file "     \
      "and the cause. Applied after every other exit handler of the program, by _exit (library "   \
      "destructors do not run then). 0: the program's own status stands.")                         \
    X(SHOAL_SYMMETRIC_GLOBALS, bool, symmetric_globals, "1",                                       \
      "Make the executable's global and static variables symmetric (remotely accessible).")        \
    X(SHOAL_WAIT_SPIN, uint, wait_spin, "512",                                                     \
      "Polls a waiting PE spins before it starts to yield the CPU. Unset: waits yield at once "    \
      "when this host's PEs outnumber the CPUs they may use together, and a wait stops "           \
      "spinning when another PE of the host last waited on its CPU.")                              \
    X(SHOAL_WAIT_YIELD_US, uint, wait_yield_us, "2000",                                            \
      "Microseconds a waiting PE yields (sched_yield) before it starts to sleep between "          \
      "polls.")                                                                                    \
    X(SHOAL_TEAMS_MAX, uint, teams_max, "64",                                                      \
      "Most teams made by splits alive at once, besides the predefined ones (at most 4094). "      \
      "Each takes 640 bytes of every PE's symmetric heap segment.")                                \
    X(SHOAL_REDUCE_TWO_SHOT_BYTES, size, reduce_two_shot_bytes, "16k",                             \
      "Reductions of at least this many bytes on teams of 3 or more PEs use two shots (each "      \
      "PE reduces a slice, then all gather); smaller ones read every PE's source directly.")       \
    X(SHOAL_WAIT_SLEEP_US, uint, wait_sleep_us, "50",                                              \
      "Longest sleep between polls of a PE that has waited long; bounds the added latency. "       \
      "Unset: a wait longer than ~3 ms sleeps up to 1/64 of the time it has waited (at most "      \
      "1 ms), so a long wait costs little CPU and ends under 2% late.")                            \
    X(SHOAL_HANG_TIMEOUT, uint, hang_timeout, "0",                                                 \
      "Seconds a PE may stay blocked in one Shoal wait (barrier, collective, wait_until, "         \
      "lock, quiet, finalize) before every PE of its host prints where it is blocked and "         \
      "the host's lowest PE names the likely culprit (docs/debugging.md). 0: never.")              \
    X(SHOAL_FLIGHT, bool, flight, "0",                                                             \
      "Flight recorder: each PE keeps its last SHOAL_FLIGHT_EVENTS one-sided events (puts, "       \
      "gets, AMOs, signals, waits, barriers) in shared memory, and hang reports use them to "      \
      "say who last wrote what a PE waits for. Sends every RMA, AMO and signal through the "       \
      "routed path (docs/debugging.md has the cost per operation).")                               \
    X(SHOAL_FLIGHT_EVENTS, uint, flight_events, "4096",                                            \
      "Events the flight recorder keeps per PE (64 bytes each, rounded up to a power of two).")    \
    X(SHOAL_HANG_ABORT, bool, hang_abort, "1",                                                     \
      "After a SHOAL_HANG_TIMEOUT report, end the job with status 124; 0 keeps it waiting "        \
      "(to attach a debugger).")                                                                   \
    X(SHOAL_NODE, string, node, "",                                                                \
      "Host identity of this PE: PEs with the same value share memory, PEs with different "        \
      "values talk through the network transport. Empty: hostname, boot id and network "           \
      "namespace. Lets tests place PEs on different hosts of one machine.")                        \
    X(SHOAL_RANK, string, rank, "",                                                                \
      "This PE's rank, 0 to SHOAL_NPES - 1, for a start without shoalrun (shoalrun sets it "       \
      "for its own PEs). With SHOAL_NPES it makes the PE join the job through the config "         \
      "store at SHOAL_STORE.")                                                                     \
    X(SHOAL_NPES, string, npes, "",                                                                \
      "Number of PEs in the job, the same on every PE, for a start without shoalrun "              \
      "(shoalrun sets it for its own PEs).")                                                       \
    X(SHOAL_TIMEOUT, string, timeout, "",                                                          \
      "shoalrun's time limit for a job when --timeout is not given: seconds, fractions "           \
      "allowed; 0 or empty: no limit. When it passes, shoalrun asks the PEs for their hang "       \
      "reports, then ends the job with status 124.")                                               \
    X(SHOAL_LAUNCHER_FD, string, launcher_fd, "",                                                  \
      "Set by shoalrun for each PE it starts: the PE's end of its socketpair to shoalrun, "        \
      "over which it speaks the config store's protocol. Not for users to set.")                   \
    X(SHOAL_LOCAL_RANK, string, local_rank, "",                                                    \
      "Set by shoalrun for each PE, for the program's own use: its rank among the PEs of "         \
      "this host (shoalrun runs every PE on its host, so SHOAL_RANK). Shoal does not read it.")    \
    X(SHOAL_LOCAL_NPES, string, local_npes, "",                                                    \
      "Set by shoalrun for each PE, for the program's own use: the number of PEs on this "         \
      "host (SHOAL_NPES under shoalrun). Shoal does not read it.")                                 \
    X(SHOAL_JOB_ID, string, job_id, "",                                                            \
      "Set by shoalrun for each PE, for the program's own use: an id unique on this host for "     \
      "the job's lifetime (<shoalrun's pid>-<8 hex digits>); the PEs learn the same id from "      \
      "shoalrun's store. Shoal does not read it.")                                                 \
    X(SHOAL_STORE, string, store, "127.0.0.1:8666",                                                \
      "Config store address, host:port or [IPv6]:port (without a port, the default's port). "      \
      "The PE of rank 0 hosts the store there and every PE connects to it. For "                   \
      "shmemx_get_uniqueid, where the store listens (port 0: any free port) and, unless an "       \
      "interface is named, the address the unique ID carries.")                                    \
    X(SHOAL_STORE_LISTEN_IFACE, string, store_listen_iface, "",                                    \
      "Network interface (by name, e.g. eth0; * for all) whose address the store listens "         \
      "on, with the port of SHOAL_STORE. Empty: the host of SHOAL_STORE.")                         \
    X(SHOAL_STORE_ADVERTISE_IFACE, string, store_advertise_iface, "",                              \
      "Network interface whose address a unique ID tells PEs to connect to. Empty: the host "      \
      "of SHOAL_STORE if set, else the first interface that is up and not loopback.")              \
    X(SHOAL_STORE_IPV6, bool, store_ipv6, "0",                                                     \
      "Take an interface's IPv6 address rather than its IPv4 one (for the two variables "          \
      "above and the default unique-ID address).")                                                 \
    X(SHOAL_STORE_TLS, bool, store_tls, "1",                                                       \
      "Protect config-store traffic with TLS 1.3 and mutual authentication. Turning it off "       \
      "lets an outsider who reaches the store join the job, read its bootstrap data or end it "    \
      "with any status and message; "                                                              \
      "shmemx_set_conf_store_tls called before init takes precedence.")                            \
    X(SHOAL_STORE_TLS_INFO, string, store_tls_info, "",                                            \
      "Certificates instead of the job secret: cert=PATH;key=PATH;ca=PATH[;crl=PATH]"              \
      "[;verify_name=0] (PEM files). Every PE presents its certificate and checks the "            \
      "other side's against the CA; a PE also checks the store's name or address.")                \
    X(SHOAL_JOB_KEY_FILE, string, job_key_file, "",                                                \
      "File holding the job secret for TLS: 64 hex digits (32 random bytes, as `openssl rand "     \
      "-hex 32` prints). Refused unless its mode is 0600 or stricter.")                            \
    X(SHOAL_JOB_KEY, secret, job_key, "",                                                          \
      "The job secret itself, 64 hex digits, when no SHOAL_JOB_KEY_FILE is given. Never "          \
      "printed. Removed from the process's environment once read (also from what "                 \
      "/proc/PID/environ shows), so that programs a PE starts do not inherit it. Keys of little "  \
      "entropy (all zero, one repeated byte, a short repeated pattern) are refused.")              \
    X(SHOAL_JOB_KEY_INHERIT, bool, job_key_inherit, "0",                                           \
      "Leave SHOAL_JOB_KEY in the environment after it is read, so that child processes of a "     \
      "PE inherit it (e.g. a PE that starts further PEs of the same job).")                        \
    X(SHOAL_STORE_CONNECT_TIMEOUT, uint, store_connect_timeout, "60",                              \
      "Seconds a PE keeps trying to reach the config store before it gives up with an "            \
      "error (PE 0 may start later than the others).")                                             \
    X(SHOAL_STORE_JOIN_TIMEOUT, uint, store_join_timeout, "60",                                    \
      "Seconds the store waits, from the first PE's arrival, for every PE to join; then the "      \
      "PEs that came are told which ranks are missing.")                                           \
    X(SHOAL_NET_TIMEOUT, uint, net_timeout, "10",                                                  \
      "Seconds a dead network link (a cable or switch cut, a host that lost power) may go "        \
      "unnoticed: the config store's connections and UCX's TCP connections probe a quiet peer "    \
      "(TCP keepalive) and give up on one that has not answered for this long, and the job "       \
      "ends naming the unreachable host. A peer that is only busy still answers (the kernel "      \
      "does). 0: the system's TCP defaults (minutes to hours). UCX_TCP_KEEPIDLE, "                 \
      "UCX_TCP_KEEPINTVL and UCX_TCP_KEEPCNT, when set, take precedence for UCX.")                 \
    X(SHOAL_DEVICE_HEAP_SIZE, size, device_heap_size, "8G",                                        \
      "Size of each PE's device symmetric heap, made on its GPU at the first device "              \
      "allocation (shmemx_malloc_device, or shmem_malloc_with_hints with "                         \
      "SHMEMX_MALLOC_DEVICE). Only address space is reserved; GPU memory is added in steps "       \
      "of at least 32 MiB as allocations reach it and kept until shmem_finalize.")                 \
    X(SHOAL_DEVICE, string, device, "",                                                            \
      "CUDA device ordinal (as the driver numbers them, after CUDA_VISIBLE_DEVICES) of this "      \
      "PE's device heap when the allocation does not name one. Empty: the PE's rank on its "       \
      "host modulo the number of devices, so the PEs of a host share its GPUs evenly.")            \
    X(SHOAL_DEVICE_WAIT_TIMEOUT, uint, device_wait_timeout, "0",                                   \
      "Seconds a device-side wait (shmemx_dev_*_wait_until, signal_wait_until, barriers, "         \
      "event waits in a kernel) may last before the kernel reports its PE, block, thread, "        \
      "address and the values it saw, and the host ends the job. 0: never.")                       \
    X(SHOAL_DEVICE_HOST_ACCESS, bool, device_host_access, "1",                                     \
      "shmemx_dev_create registers the globals of every PE of the host with CUDA, and its host "   \
      "symmetric heap as far as allocations reach (in 64 MiB steps, extended by the shmem_malloc " \
      "that reaches further), pinning them, so kernels reach them; 0 leaves kernels the device "   \
      "heaps only.")                                                                               \
    X(SHOAL_DEVICE_PROXY_SLOTS, uint, device_proxy_slots, "256",                                   \
      "Request slots of the ring through which kernels hand operations on PEs of other hosts to "  \
      "their PE's proxy thread (each 64 bytes of pinned host memory), and, up to 64, of the "      \
      "inbox (4 KiB each, in the host symmetric heap) where other hosts' proxies leave "           \
      "operations on this PE's device heap. A kernel that finds the ring full waits, within "      \
      "SHOAL_DEVICE_WAIT_TIMEOUT.")                                                                \
    X(SHOAL_CUDA_LIBRARY, string, cuda_library, "libcuda.so.1",                                    \
      "The CUDA driver library, loaded only at the first device allocation (a name for the "       \
      "dynamic loader's search, or a path).")

#endif
