/*
 * Every setting Shoal reads from the environment, one row each:
 *   X(VARIABLE, type, field, "default", "documentation")
 * The settings struct, the parser, `shoal-info` and docs/env.md are generated
 * from these rows; a default is written here and nowhere else.
 * Types: size (bytes, with optional k/m/g/t suffix), bool (0/1, yes/no,
 * true/false, on/off), uint (unsigned decimal), string.
 */
#ifndef SHOAL_UTIL_ENV_TABLE_H
#define SHOAL_UTIL_ENV_TABLE_H

#define SHOAL_ENV_TABLE(X)                                                                     \
    X(SHMEM_SYMMETRIC_SIZE, size, symmetric_size, "1G",                                        \
      "Size of each PE's symmetric heap. Address space is reserved up front; memory is "       \
      "used only as pages are touched.")                                                       \
    X(SHMEM_DEBUG, bool, debug, "0",                                                           \
      "Extra checks and debug log lines (collective argument checks, every PE's view of "      \
      "errors).")                                                                              \
    X(SHMEM_INFO, bool, info, "0", "PE 0 prints every setting and its value at shmem_init.")   \
    X(SHMEM_VERSION, bool, version, "0", "PE 0 prints the library name and version at init.")  \
    X(SHOAL_LOG_LEVEL, uint, log_level, "1",                                                   \
      "0 errors only, 1 warnings, 2 info, 3 debug (SHMEM_DEBUG raises it to 3).")              \
    X(SHOAL_SYMMETRIC_GLOBALS, bool, symmetric_globals, "1",                                   \
      "Make the executable's global and static variables symmetric (remotely accessible).")    \
    X(SHOAL_WAIT_SPIN, uint, wait_spin, "512",                                                 \
      "Polls a waiting PE spins before it starts to yield the CPU. When this host runs more "  \
      "PEs than it has CPUs and the variable is unset, waits yield at once instead.")          \
    X(SHOAL_WAIT_YIELD_US, uint, wait_yield_us, "2000",                                        \
      "Microseconds a waiting PE yields (sched_yield) before it starts to sleep between "      \
      "polls.")                                                                                \
    X(SHOAL_TEAMS_MAX, uint, teams_max, "64",                                                  \
      "Most teams made by splits alive at once, besides the predefined ones (at most 4094). "  \
      "Each takes 320 bytes of every PE's symmetric heap segment.")                            \
    X(SHOAL_REDUCE_TWO_SHOT_BYTES, size, reduce_two_shot_bytes, "16k",                         \
      "Reductions of at least this many bytes on teams of 3 or more PEs use two shots (each "  \
      "PE reduces a slice, then all gather); smaller ones read every PE's source directly.")   \
    X(SHOAL_WAIT_SLEEP_US, uint, wait_sleep_us, "50",                                          \
      "Longest sleep between polls of a PE that has waited long; bounds the added latency.")

#endif
