#!/bin/sh
# A job that faults (trace_fault_prog: PE 1 passes a bad pointer): the fault
# handler that turns the fault into an error writes PE 1's records first, so
# its file holds its puts and its barrier, and shoal-trace merges them.
# Then PE 1 killed by SIGKILL after a 1.2 s pause and one more put: the
# once-a-second flush of that put's record wrote the calls before it.
# Usage: run_fault.sh SHOALRUN FAULT_PROG SHOAL_TRACE_TOOL NPES
set -u
shoalrun=$1 prog=$2 tool=$3 npes=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; echo "--- job output"; cat "$work/out"; exit 1; }

# check DIR WHAT: PE 1's three puts and one barrier are in DIR/trace.json.
check() {
    "$tool" merge "$1" || fail "shoal-trace merge failed"
    /usr/bin/python3 - "$1/trace.json" "$2" <<'PY' || fail "PE 1's calls before the $2 are not in trace.json"
import json, sys
xs = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X" and e["pid"] == 1]
puts = [e for e in xs if e["name"] == "shmem_long_put"]
bars = [e for e in xs if e["name"] == "shmem_barrier_all"]
assert len(puts) == 3 and all(e["args"]["bytes"] == 8 for e in puts), puts
assert len(bars) == 1, bars
print(f"PE 1: {len(puts)} shmem_long_put and {len(bars)} shmem_barrier_all before the {sys.argv[2]}")
PY
}
SHOAL_TRACE=$work/t timeout 200 "$shoalrun" -n "$npes" --timeout 100 "$prog" >"$work/out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "the faulting job exited 0"
grep -q "shmem_long_put: source is NULL" "$work/out" || fail "no error naming the faulting call"
check "$work/t" fault

SHOAL_TRACE=$work/k timeout 200 "$shoalrun" -n "$npes" --timeout 100 "$prog" kill >"$work/out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "the killed job exited 0"
check "$work/k" kill
echo PASS
