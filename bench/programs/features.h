/*
 * features.h: which optional calls the implementation being measured has.
 *
 * Each BENCH_HAVE_<NAME> is 1 when shmem.h declares the call(s) of probe
 * <NAME> in probes.c.  compare.sh and bench/CMakeLists.txt compile every
 * probe against the implementation's header and pass the answers as -D
 * flags, so a program always builds and says "unsupported" for what is
 * missing instead of failing to compile.  Built by hand without those
 * flags, the spec version the header announces decides: the active-set
 * collectives are in every version up to 1.5 (deprecated there), the team
 * collectives and put-with-signal came with 1.5.
 */
#ifndef SHOAL_BENCH_FEATURES_H
#define SHOAL_BENCH_FEATURES_H

#define BENCH_SPEC (SHMEM_MAJOR_VERSION * 100 + SHMEM_MINOR_VERSION)

/* OpenSHMEM 1.5: put-with-signal and signal_wait_until. */
#ifndef BENCH_HAVE_SIGNAL
#define BENCH_HAVE_SIGNAL (BENCH_SPEC >= 105)
#endif

/* The active-set forms, with pSync (and pWrk) arrays. */
#ifndef BENCH_HAVE_BARRIER_AS
#define BENCH_HAVE_BARRIER_AS 1
#endif
#ifndef BENCH_HAVE_SYNC_AS
#define BENCH_HAVE_SYNC_AS (BENCH_SPEC >= 104)
#endif
#ifndef BENCH_HAVE_BROADCAST64
#define BENCH_HAVE_BROADCAST64 1
#endif
#ifndef BENCH_HAVE_LONG_SUM_TO_ALL
#define BENCH_HAVE_LONG_SUM_TO_ALL 1
#endif
#ifndef BENCH_HAVE_DOUBLE_SUM_TO_ALL
#define BENCH_HAVE_DOUBLE_SUM_TO_ALL 1
#endif
#ifndef BENCH_HAVE_FCOLLECT64
#define BENCH_HAVE_FCOLLECT64 1
#endif
#ifndef BENCH_HAVE_COLLECT64
#define BENCH_HAVE_COLLECT64 1
#endif
#ifndef BENCH_HAVE_ALLTOALL64
#define BENCH_HAVE_ALLTOALL64 1
#endif

/* The team forms (OpenSHMEM 1.5), on SHMEM_TEAM_WORLD. */
#ifndef BENCH_HAVE_TEAM_SYNC
#define BENCH_HAVE_TEAM_SYNC (BENCH_SPEC >= 105)
#endif
#ifndef BENCH_HAVE_BROADCASTMEM
#define BENCH_HAVE_BROADCASTMEM (BENCH_SPEC >= 105)
#endif
#ifndef BENCH_HAVE_LONG_SUM_REDUCE
#define BENCH_HAVE_LONG_SUM_REDUCE (BENCH_SPEC >= 105)
#endif
#ifndef BENCH_HAVE_DOUBLE_SUM_REDUCE
#define BENCH_HAVE_DOUBLE_SUM_REDUCE (BENCH_SPEC >= 105)
#endif
#ifndef BENCH_HAVE_FCOLLECTMEM
#define BENCH_HAVE_FCOLLECTMEM (BENCH_SPEC >= 105)
#endif
#ifndef BENCH_HAVE_COLLECTMEM
#define BENCH_HAVE_COLLECTMEM (BENCH_SPEC >= 105)
#endif
#ifndef BENCH_HAVE_ALLTOALLMEM
#define BENCH_HAVE_ALLTOALLMEM (BENCH_SPEC >= 105)
#endif

#endif /* SHOAL_BENCH_FEATURES_H */
