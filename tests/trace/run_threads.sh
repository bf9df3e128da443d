#!/bin/sh
# Flushes of other threads' buffers racing the threads that record
# (trace_threads_prog): hang reports requested over and over (the program
# signals itself) while three threads per PE record into 16-record buffers; trace.json must hold each
# thread's puts exactly once (count, no repeated record), nothing dropped.
# Usage: run_threads.sh SHOALRUN THREADS_PROG NPES
set -u
shoalrun=$1 prog=$2 npes=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SHOAL_TRACE=$work/t SHOAL_TRACE_EVENTS=16 timeout 250 "$shoalrun" -n "$npes" --timeout 200 "$prog" \
    >"$work/out" 2>&1
rc=$?
reports=$(grep -c "end of hang report" "$work/out")
echo "job status $rc; $reports reports during the job"; grep "asked for" "$work/out"
if [ $rc -ne 0 ] || grep -q FAIL "$work/out"; then echo "FAIL: the job failed"; tail -20 "$work/out"; exit 1; fi
[ "$reports" -gt 0 ] || { echo "FAIL: no hang report ran during the job (nothing raced)"; exit 1; }
/usr/bin/python3 - "$work/t/trace.json" "$npes" <<'PY' || exit 1
import collections, json, sys
doc = json.load(open(sys.argv[1]))
npes, nthreads, nput = int(sys.argv[2]), 3, 20000
xs = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"] == "shmem_long_p"]
count = collections.Counter((e["pid"], e["tid"]) for e in xs)
seen = collections.Counter((e["pid"], e["tid"], e["ts"], e["dur"]) for e in xs)
bad = []
for pe in range(npes):
    tids = sorted(t for (p, t) in count if p == pe)
    if len(tids) != nthreads or any(count[(pe, t)] != nput for t in tids):
        bad.append(f"PE {pe}: {[(t, count[(pe, t)]) for t in tids]} (expected {nthreads} threads x {nput})")
rep = [k for k, n in seen.items() if n > 1]
if rep:
    bad.append(f"{len(rep)} records written twice, e.g. {rep[0]}")
if doc["otherData"]["dropped"] != [0] * npes:
    bad.append(f"dropped {doc['otherData']['dropped']}")
for b in bad:
    print("FAIL:", b)
print(f"{len(xs)} puts, {npes} PEs x {nthreads} threads")
sys.exit(1 if bad else 0)
PY
echo PASS
