#!/bin/sh
# The profile of prof_laggard (one PE sleeps before each barrier) at NPES
# PEs, two ways:
#   SHOAL_PROFILE=1             PE 0's printout names the slow PE as the
#                               laggard; up to 16 PEs the traffic matrix is
#                               printed, beyond that only a note
#   SHOAL_PROFILE_CSV=FILE      (alone) turns the profile on; the CSV's PE
#                               table marks the same laggard, its shares add
#                               up, and its matrix is exact
# Usage: run_laggard.sh SHOALRUN PROG NPES
set -u
shoalrun=$1 prog=$2 npes=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
slow=2
[ "$npes" -le 2 ] && slow=$((npes - 1))
fail=0
unset SHOAL_PROFILE SHOAL_PROFILE_CSV SHOAL_TRACE
SHOAL_PROFILE=1 timeout 200 "$shoalrun" -n "$npes" --timeout 180 "$prog" >"$work/out" 2>&1 ||
    { echo "FAIL: prof_laggard exited $?"; fail=1; }
cat "$work/out"
SHOAL_PROFILE_CSV=$work/p.csv timeout 200 "$shoalrun" -n "$npes" --timeout 180 "$prog" \
    >"$work/out2" 2>&1 || { echo "FAIL: prof_laggard (CSV only) exited $?"; fail=1; }
[ -s "$work/p.csv" ] || { echo "FAIL: SHOAL_PROFILE_CSV alone wrote no file"; cat "$work/out2"; fail=1; }
/usr/bin/python3 - "$work/out" "$work/out2" "$work/p.csv" "$npes" "$slow" <<'PY' || fail=1
import csv, re, sys
out, out2, path, n, slow = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], \
    int(sys.argv[4]), int(sys.argv[5])
ROUNDS, SLEEP_MS, PUT_BYTES = 3, 150, 1000
bad = []
m = re.search(r"Laggard: PE (\d+) arrived last .* the other PEs ([\d.]+) ms more", out)
if not m or int(m.group(1)) != slow:
    bad.append(f"printout names laggard {m and m.group(1)}, expected PE {slow}")
elif float(m.group(2)) < 0.5 * ROUNDS * SLEEP_MS:
    bad.append(f"the others waited {m.group(2)} ms more; expected about {ROUNDS * SLEEP_MS}")
row = [l for l in out.splitlines() if l.startswith("barrier/collective")]
if not row:
    bad.append("no barrier/collective row")
else:
    mean, mx = float(row[0].split()[3]), float(row[0].split()[4])
    wall = float(re.search(r"PEs, ([\d.]+) ms from shmem_init", out).group(1))
    # time per PE, not a sum over PEs: within one PE's wall time
    if not (mean <= mx <= wall * 1.05 and mx >= 0.5 * ROUNDS * SLEEP_MS):
        bad.append(f"barrier mean {mean} max {mx} ms per PE in a {wall} ms job")
if n <= 16:
    if f"PE {slow}" not in "".join(l for l in out.splitlines() if l.endswith("<- laggard")):
        bad.append("the PE rows mark no laggard")
    lines = out[out.index("Traffic in bytes"):].splitlines()[1:2 + n] if "Traffic in bytes" in out else []
    if len(lines) != n + 1 or max(len(l) for l in lines) > 8 + 8 * 16:
        bad.append(f"matrix printout: {lines}")
else:
    if "Traffic in bytes" in out or f"Traffic matrix: {n} PEs are more than the 16 printed; set SHOAL_PROFILE_CSV" not in out:
        bad.append("a matrix over 16 PEs was printed, or the note is missing")
    if "its nonzero cells are in SHOAL_PROFILE_CSV" not in out2:
        bad.append("with the CSV, the note does not point to it")
    if max(len(l) for l in out.splitlines()) > 200:
        bad.append("a printed line over 200 characters")
tables = [list(csv.DictReader(b.strip().splitlines())) for b in open(path).read().split("\n\n")]
fam, pes, cells = tables
lag = [int(r["pe"]) for r in pes if r["laggard"] == "1"]
if lag != [slow]:
    bad.append(f"CSV laggard {lag}, expected [{slow}]")
for r in pes:
    if int(r["compute_ns"]) + int(r["communication_ns"]) + int(r["waiting_ns"]) != int(r["wall_ns"]):
        bad.append(f"CSV PE {r['pe']}: shares do not add up to the wall time")
others = [int(r["waiting_ns"]) for r in pes if int(r["pe"]) != slow]
if others and min(others) <= int(pes[slow]["waiting_ns"]):
    bad.append(f"CSV: PE {slow} waited {pes[slow]['waiting_ns']} ns, others {others}")
if int(pes[slow]["compute_ns"]) < 0.5 * ROUNDS * SLEEP_MS * 1e6:
    bad.append(f"CSV: PE {slow}'s sleep is not compute: {pes[slow]}")
got = {(int(c["from_pe"]), int(c["to_pe"])): int(c["bytes"]) for c in cells}
want = {(p, (p + 1) % n): ROUNDS * PUT_BYTES for p in range(n)}
if got != want:
    bad.append(f"CSV matrix {got}, expected {want}")
for b in bad:
    print("FAIL:", b)
print("laggard check:", "FAIL" if bad else f"PE {slow} named at {n} PEs")
sys.exit(1 if bad else 0)
PY
# The heat map script reads the CSV (its matrix and size); with
# python3-matplotlib it also draws it on a log scale.
heatmap=$(dirname "$0")/../../bench/tools/profile_heatmap.py
/usr/bin/python3 - "$heatmap" "$work/p.csv" "$npes" <<'PY' || fail=1
import importlib.util, sys
spec = importlib.util.spec_from_file_location("heatmap", sys.argv[1])
h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)
m, n = h.read_matrix(sys.argv[2]), int(sys.argv[3])
ok = len(m) == n and all(m[p][(p + 1) % n] == 3000 for p in range(n)) and sum(map(sum, m)) == 3000 * n
print("heatmap matrix:", "ok" if ok else f"FAIL: {m}")
sys.exit(0 if ok else 1)
PY
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    /usr/bin/python3 "$heatmap" --log "$work/p.csv" "$work/p.png" && [ -s "$work/p.png" ] ||
        { echo "FAIL: profile_heatmap.py --log drew nothing"; fail=1; }
else
    echo "heatmap PNG: skipped (no python3-matplotlib)"
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
