#!/bin/sh
# Runs trace_prog at NPES PEs three ways and checks each:
#   off      no SHOAL_TRACE or SHOAL_PROFILE: the program leaves no files
#   trace    SHOAL_TRACE=dir: trace.json has the expected events and flows
#   profile  SHOAL_PROFILE=1 + SHOAL_PROFILE_CSV: counts and matrix exact
#   small    SHOAL_TRACE_EVENTS=10: full buffers are written out, nothing dropped
# Usage: run_trace.sh SHOALRUN TRACE_PROG CHECK_TRACE_PY NPES [WRAPPER]
#   WRAPPER: a command each PE runs the program under (tests/multihost's
#   as_host.sh puts PEs on pretend hosts, so the traffic crosses the network)
set -u
shoalrun=$1 prog=$2 checker=$3 npes=$4 wrapper=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
run() { # DIR: runs the program with cwd DIR, output in $work/out
    (cd "$1" && timeout 120 "$shoalrun" -n "$npes" --timeout 100 $wrapper "$prog") >"$work/out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || grep -q "FAIL" "$work/out"; then
        echo "FAIL: trace_prog exited $rc"; cat "$work/out"; failures=$((failures + 1))
    fi
}
unset SHOAL_TRACE SHOAL_PROFILE SHOAL_PROFILE_CSV
mkdir "$work/off"
run "$work/off"
if [ -n "$(ls -A "$work/off")" ]; then
    echo "FAIL: with tracing off the program left files:"; ls -la "$work/off"
    failures=$((failures + 1))
fi

mkdir "$work/t"
SHOAL_TRACE=$work/t/trace run "$work/t"
ls "$work/t/trace"
for pe in $(seq 0 $((npes - 1))); do
    [ -s "$work/t/trace/trace.$pe.jsonl" ] || { echo "FAIL: no trace.$pe.jsonl"; failures=$((failures + 1)); }
done
/usr/bin/python3 "$checker" trace "$work/t/trace" "$npes" "${SHOAL_TEST_HOSTS:-1}" || failures=$((failures + 1))

mkdir "$work/p"
SHOAL_PROFILE=1 SHOAL_PROFILE_CSV=$work/p/profile.csv run "$work/p"
cat "$work/out"
/usr/bin/python3 "$checker" profile "$work/p/profile.csv" "$npes" "$work/out" ||
    failures=$((failures + 1))
# A buffer of 10 records per thread: written to the file each time it fills,
# so nothing is dropped and trace.json is the same as with a large buffer.
mkdir "$work/d"
SHOAL_TRACE=$work/d SHOAL_TRACE_EVENTS=10 run "$work/d"
if grep -q "dropped" "$work/out"; then
    echo "FAIL: records dropped with a small buffer:"; cat "$work/out"; failures=$((failures + 1))
fi
/usr/bin/python3 "$checker" trace "$work/d" "$npes" "${SHOAL_TEST_HOSTS:-1}" || { echo "FAIL: trace.json with 10-record buffers"; failures=$((failures + 1)); }

[ -n "${TRACE_KEEP:-}" ] && cp -r "$work/t/trace" "$work/p/profile.csv" "$work/out" "$TRACE_KEEP/"
[ $failures -eq 0 ] && echo PASS
exit $((failures > 0))
