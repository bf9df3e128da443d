#!/bin/sh
# A Python PE that raises, is interrupted (SIGINT, as Ctrl-C sends to the
# launcher) or is killed: the job ends within seconds, with a failing status,
# and leaves no process and no shared-memory file behind.
# Usage: faults.sh SHOALRUN PYTHON PROGS_DIR
set -u
shoalrun=$1 python=$2 progs=$3
tag="shoal-fault-$$"            # marks this test's processes
fail() { echo "FAIL: $*"; exit 1; }
# pgrep without a preloaded libasan (scripts/test_sanitized.sh's python group
# preloads it into every process): procps' pgrep deadlocks in glibc's
# textdomain() under it.
procs() { env -u LD_PRELOAD pgrep "$@"; }
# scaled N: N times SHOAL_TEST_TIME_SCALE (sanitized runs set it: their PEs
# start several times slower), as a whole number.
scaled() { awk -v n="$1" -v k="${SHOAL_TEST_TIME_SCALE:-1}" 'BEGIN { printf "%d", n * k }'; }
shm_before=$(ls /dev/shm | sort)
leftovers() {
    sleep 1
    if procs -f "$tag" >/dev/null; then procs -af "$tag"; fail "$1: processes left behind"; fi
    shm_after=$(ls /dev/shm | sort)
    new=$(printf '%s\n%s\n' "$shm_before" "$shm_after" | sort | uniq -u)
    [ -z "$new" ] || echo "note: /dev/shm changed during $1 (other jobs may run): $new"
    echo "$1: no process left"
}
run_bg() { # mode -> starts the job in the background, waits until every PE is ready
    : > "$out"
    "$shoalrun" -n 4 --timeout 60 "$python" "$progs/fault.py" "$1" "$tag" > "$out" 2>&1 &
    job=$!
    i=0
    while [ "$(grep -c '^ready' "$out")" -lt 4 ]; do
        i=$((i + 1)); [ $i -gt "$(scaled 300)" ] && fail "$1: the PEs did not start"; sleep 0.1
    done
}
out=$(mktemp); trap 'rm -f "$out"' EXIT

# 1. A PE raises: its traceback is shown, the job fails, nothing is left.
start=$(date +%s)
"$shoalrun" -n 4 --timeout 60 "$python" "$progs/fault.py" raise "$tag" > "$out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "raise: job exited 0"
grep -q "RuntimeError: PE failed on purpose" "$out" || { cat "$out"; fail "raise: no traceback"; }
[ $(( $(date +%s) - start )) -lt "$(scaled 30)" ] || fail "raise: took too long"
leftovers raise

# 2. Ctrl-C: SIGINT to the launcher while every PE waits in the library.
run_bg wait
kill -INT $job
wait $job; rc=$?
[ $rc -ne 0 ] || fail "sigint: job exited 0"
leftovers sigint

# 3. kill -9 of one PE.
run_bg wait
pe=$(procs -f "^$python $progs/fault.py wait $tag" | head -1)
kill -9 "$pe"
wait $job; rc=$?
[ $rc -ne 0 ] || fail "kill: job exited 0"
grep -q "shoalrun: PE .*$pe" "$out" || { cat "$out"; fail "kill: the launcher did not name the dead PE"; }
leftovers kill

# 4. kill -9 of the launcher: the PEs die with it (PR_SET_PDEATHSIG).
run_bg wait
kill -9 $job
wait $job 2>/dev/null
leftovers launcher-kill
echo "all fault cases passed"
