#!/bin/bash
# shellcheck disable=SC2016  # $SHOAL_* in single quotes are for the PEs' shells
# How a job of real SHMEM programs ends when a PE fails. Usage:
#   run_fault.sh SHOALRUN FAULT_PROG CASE NPES
# After every case no process of the job may be left, and /dev/shm must hold
# nothing new (the tests run serially, so anything new came from this job).
set -u
export LC_ALL=C

# shellcheck disable=SC2034  # used by test_lib.sh
SHOALRUN=$1
PROG=$2
CASE=$3
NP=$4
# shellcheck source-path=SCRIPTDIR source=../launcher/test_lib.sh
. "$(dirname "$0")/../launcher/test_lib.sh"

# Seconds from $1 (an EPOCHREALTIME value) to the end of the job.
seconds_since() {
    awk -v a="$1" -v b="$T_END" 'BEGIN { printf "%.3f", b - a }'
}

case $CASE in
kill-in-barrier)
    # SIGKILL to a PE that waits inside shmem_barrier_all.
    victim=$((NP - 1))
    start_bg "$NP" ' ready$' -n "$NP" "$PROG" barrier-victim "$MARK"
    sleep 0.3 # into the second barrier
    pid=$(grep -E "^PE $victim pid [0-9]+ ready$" "$TMP/out" | awk '{ print $4 }')
    [ -n "$pid" ] || fail "no pid for PE $victim"
    t0=$EPOCHREALTIME
    kill -KILL "$pid"
    wait_bg
    took=$(seconds_since "$t0")
    expect_rc 137
    expect_line "$TMP/err" "shoalrun: PE $victim \(pid $pid\) was killed by signal 9 \(Killed\); ending the job"
    took_under "$took" 2.5 || fail "the job ended $took s after the PE was killed"
    ;;
suicide-in-barrier)
    # The last PE dies between barriers while the others are inside one.
    run -n "$NP" "$PROG" barrier-suicide "$MARK"
    expect_rc 137
    expect_line "$TMP/err" "shoalrun: PE $((NP - 1)) \(pid [0-9]+\) was killed by signal 9 \(Killed\)(; ending the job)?"
    took=$(since_stamp)
    took_under "$took" 2.5 || fail "the job ended $took s after the PE was killed"
    ;;
no-finalize)
    # Returning from main without shmem_finalize: the library finalizes on
    # the way out, and the job ends cleanly.
    run -n "$NP" "$PROG" no-finalize "$MARK"
    expect_rc 0
    expect_line "$TMP/out" "PE [0-9]+ returns without shmem_finalize" "$NP"
    expect_shoalrun_lines 0
    ;;
global-exit)
    run -n "$NP" "$PROG" global-exit 3 "$MARK"
    expect_rc 3
    expect_line "$TMP/out" "PE $((NP - 1)) calls shmem_global_exit\(3\)"
    grep -q 'FAILED' "$TMP/out" && fail "a barrier completed after shmem_global_exit"
    took_under "$ELAPSED" 3 || fail "the job took $ELAPSED s"
    ;;
global-exit-zero)
    run -n "$NP" "$PROG" global-exit 0 "$MARK"
    expect_rc 0
    expect_shoalrun_lines 0
    ;;
*)
    echo "unknown case $CASE"
    exit 2
    ;;
esac
expect_no_leftovers
expect_no_new_shm
echo "PASS [$CASE np$NP]"
