#!/bin/sh
# A traced Python program (progs/traced.py) at NPES PEs: its trace.json
# names the calls as Python spells them (shoal.put, not the
# shmem_ctx_putmem it calls), holds its user ranges (shoal.trace_range)
# around them, and its barrier with the team.
# Usage: trace_names.sh SHOALRUN PYTHON PROGS NPES
set -u
shoalrun=$1 python=$2 progs=$3 npes=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
SHOAL_TRACE=$work timeout 200 "$shoalrun" -n "$npes" --timeout 180 "$python" "$progs/traced.py" ||
    { echo "FAIL: traced.py exited $?"; exit 1; }
"$python" - "$work/trace.json" "$npes" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
xs = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
bad = []
for pe in range(n):
    mine = [e for e in xs if e["pid"] == pe]
    names = {e["name"] for e in mine}
    for want in ("shoal.put", "shoal.atomic_fetch_add", "shoal.barrier_all", "shoal._core.alloc",
                 "shoal.free", "compute", "inner"):
        if want not in names:
            bad.append(f"PE {pe}: no {want!r} event (names: {sorted(names)})")
    leaked = sorted(x for x in names if x.startswith("shmem_"))
    if leaked:
        bad.append(f"PE {pe}: C names in a Python program's trace: {leaked}")
    put = [e for e in mine if e["name"] == "shoal.put"]
    if len(put) != 1 or put[0]["cat"] != "put" or put[0]["args"]["bytes"] != 32 or \
            put[0]["args"]["peer"] != (pe + 1) % n:
        bad.append(f"PE {pe}: shoal.put events {put}")
    bar = [e for e in mine if e["name"] == "shoal.barrier_all"]
    if not bar or bar[0]["args"].get("team") != "SHMEM_TEAM_WORLD" or \
            bar[0]["args"].get("team_npes") != n:
        bad.append(f"PE {pe}: barrier {bar}")
    rng = {e["name"]: e for e in mine if e["cat"] == "user range"}
    if sorted(rng) == ["compute", "inner"]:
        o, i = rng["compute"], rng["inner"]
        if not (o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"] + 0.001):
            bad.append(f"PE {pe}: range 'inner' not inside 'compute': {o} {i}")
        for e in put:
            if not (o["ts"] <= e["ts"] <= o["ts"] + o["dur"]):
                bad.append(f"PE {pe}: shoal.put outside the range 'compute'")
    else:
        bad.append(f"PE {pe}: user ranges {sorted(rng)}")
for b in bad:
    print("FAIL:", b)
print("FAIL" if bad else f"PASS: Python names and ranges on {n} PEs")
sys.exit(1 if bad else 0)
PY
