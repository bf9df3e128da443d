#!/bin/sh
# shoal-trace merge on per-PE files written by hand (no job): the header's
# clock offset is added to the PE's times (and a clock line of its own, the
# older form, is read the same way), a record's team and symbol reach
# trace.json, and the summary names the team and leaves network slices and
# user ranges out of "in Shoal".
# Usage: run_merge_files.sh SHOAL_TRACE_TOOL
set -u
tool=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# A global at offset 0x10 of the globals row (row 1): key (1 + 1) << 48 | 0x10.
g=$(((2 << 48) + 16))
cat >"$work/trace.0.jsonl" <<END
{"pe":0,"npes":3,"t_init":1,"exe":"","globals_vaddr":0,"globals_size":0,"clock_offset_ns":0,"clock_rtt_ns":0}
{"fn":"shmem_barrier_all","family":5,"tid":0,"t0":10000,"t1":12000,"peer":-1,"bytes":0,"addr":0,"team":"SHMEM_TEAM_WORLD","team_npes":3}
{"dropped":0}
END
cat >"$work/trace.1.jsonl" <<END
{"pe":1,"npes":3,"t_init":1,"exe":"","globals_vaddr":0,"globals_size":0,"clock_offset_ns":5000,"clock_rtt_ns":900}
{"fn":"compute","family":9,"tid":0,"t0":1000,"t1":9000,"peer":-1,"bytes":0,"addr":0}
{"fn":"shmem_long_atomic_inc","family":2,"tid":0,"t0":2000,"t1":3000,"peer":0,"bytes":8,"addr":$g,"sym":"counter"}
{"fn":"net amo","family":8,"tid":0,"t0":2100,"t1":2900,"peer":0,"bytes":8,"addr":0}
END
cat >"$work/trace.2.jsonl" <<END
{"clock_offset_ns":-500,"clock_rtt_ns":100}
{"fn":"shmem_getmem","family":1,"tid":0,"t0":8000,"t1":8400,"peer":1,"bytes":64,"addr":$g}
END

"$tool" merge "$work" 3 >"$work/merge.out" 2>&1 || { fail "shoal-trace merge failed"; cat "$work/merge.out"; }
/usr/bin/python3 - "$work/trace.json" <<'END' || failures=$((failures + 1))
import json, sys
doc = json.load(open(sys.argv[1]))
od = doc["otherData"]
bad = []
if od.get("clock_offset_ns") != [0, 5000, -500]:
    bad.append(f"clock_offset_ns {od.get('clock_offset_ns')}")
if od.get("clock_rtt_ns") != [0, 900, 100]:
    bad.append(f"clock_rtt_ns {od.get('clock_rtt_ns')}")
if od.get("unfinished") != [1, 2]:
    bad.append(f"unfinished {od.get('unfinished')}")
xs = {e["name"]: e for e in doc["traceEvents"] if e.get("ph") == "X"}
# Times on PE 0's clock: PE 1's range starts at 1000 + 5000 ns, the earliest.
want = {  # name: (pid, ts us, dur us, args)
    "compute": (1, 0.0, 8.0, {}),
    "shmem_long_atomic_inc": (1, 1.0, 1.0, {"addr": "counter"}),
    "net amo": (1, 1.1, 0.8, {}),
    "shmem_getmem": (2, 1.5, 0.4, {"addr": "globals+0x10"}),
    "shmem_barrier_all": (0, 4.0, 2.0, {"team": "SHMEM_TEAM_WORLD", "team_npes": 3}),
}
for name, (pid, ts, dur, args) in want.items():
    e = xs.get(name)
    if e is None:
        bad.append(f"no {name}")
        continue
    if e["pid"] != pid or abs(e["ts"] - ts) > 1e-6 or abs(e["dur"] - dur) > 1e-6:
        bad.append(f"{name}: pid {e['pid']} ts {e['ts']} dur {e['dur']}, expected {pid} {ts} {dur}")
    for k, v in args.items():
        if e["args"].get(k) != v:
            bad.append(f"{name}: args.{k} {e['args'].get(k)!r}, expected {v!r}")
for b in bad:
    print("FAIL:", b)
print(f"merge: {len(xs)} slices checked" if not bad else "")
sys.exit(1 if bad else 0)
END
"$tool" summary "$work" >"$work/summary" 2>&1 || fail "shoal-trace summary failed"
cat "$work/summary"
grep -q "shmem_barrier_all .* on SHMEM_TEAM_WORLD (3 PEs)" "$work/summary" ||
    fail "the summary does not name the barrier's team"
# PE 1: in Shoal is the AMO's 0.001 ms alone, not its network slice or range.
in_shoal=$(awk '$1 == "1" { print $10 }' "$work/summary")
[ "$in_shoal" = "0.001" ] || fail "PE 1's 'in Shoal' is '$in_shoal' ms, expected 0.001"
[ $failures -eq 0 ] && echo PASS
