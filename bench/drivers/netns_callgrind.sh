#!/usr/bin/env bash
# netns_callgrind.sh: instructions one blocking 8-byte remote operation
# costs PE 0 when its peer is on another host (two network namespaces,
# UCX over TCP), counted by callgrind: bench/programs/remote_ops.c runs N and then
# 2N operations with PE 0 under valgrind --tool=callgrind (PE 1 native);
# (I(2N) - I(N)) / N is the cost of one, start-up and finalize cancelled.
# Only PE 0's main thread is counted (callgrind --separate-threads): the
# library's progress thread and UCX's own run for as long as the job does,
# and counting them made short runs on a busy machine meaningless (a
# negative difference at N=100 under a parallel ctest). It includes the
# polls of the wait for the reply, so it moves a little from run to run (a
# few per cent); the callgrind.sh counts of the single-host path do not.
#
# Prints a Markdown table (op | instructions per operation) and, with
# --top K, the K functions that grew most per operation.
#
# usage: bench/drivers/netns_callgrind.sh [--shoalcc PATH] [--libdir DIR] [-n N] [--ops a,b,...]
#                                 [--top K] [--keep DIR]
#        (ops: get, fetch_add, put_quiet; default all, N=5000; --libdir: run against the
#        libshoal*.so in DIR instead, for an A/B of two builds; needs root for the namespaces)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # bench/drivers
bench=$(dirname "$here")
repo=$(dirname "$bench")
SHOALCC=${SHOALCC:-$repo/build/tools/shoalcc}
N=5000
OPS=get,fetch_add,put_quiet
TOP=0
KEEP=""
LIBDIR=""
while [ $# -gt 0 ]; do
    case "$1" in
    --shoalcc) SHOALCC=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --top) TOP=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --libdir) LIBDIR=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "netns_callgrind.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || "$repo/scripts/setup.sh" valgrind

work=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/shoal-netns-callgrind.XXXXXX")}
mkdir -p "$work"
[ -n "$KEEP" ] || trap 'rm -rf "$work"' EXIT

"$SHOALCC" -O2 -g -o "$work/remote_ops" "$bench/programs/remote_ops.c"
# PE 0 under callgrind (instruction counts only), PE 1 as it is.
cat >"$work/wrap.sh" <<'WRAP'
#!/usr/bin/env bash
if [ "${SHOAL_RANK:-0}" = 0 ]; then
    exec valgrind -q --tool=callgrind --separate-threads=yes --callgrind-out-file="$CG_OUT" "$@"
fi
exec "$@"
WRAP
chmod +x "$work/wrap.sh"

# Runs `op` n times with PE 0 in callgrind; writes its profile to $work/op.n.out.
profile() {
    local op=$1 n=$2 rc=0
    local env=(--env CG_OUT="$work/$op.$n.out")
    [ -z "$LIBDIR" ] || env+=(--env LD_LIBRARY_PATH="$LIBDIR")
    "$repo/tests/netns/netns_job.sh" --timeout 300 "${env[@]}" 2 1 \
        "$work/wrap.sh" "$work/remote_ops" "$n" "$op" >"$work/$op.$n.log" 2>&1 || rc=$?
    if [ $rc -eq 77 ]; then
        echo "netns_callgrind.sh: the namespaces are not available here (root needed)" >&2
        exit 77
    fi
    if [ $rc -ne 0 ] || ! grep -q "remote_ops op=$op n=$n ok" "$work/$op.$n.log"; then
        echo "netns_callgrind.sh: remote_ops $n $op failed (exit $rc):" >&2
        tail -20 "$work/$op.$n.log" >&2
        exit 1
    fi
}

echo "| op | instructions per operation (PE 0, N=$N) |"
echo "|---|---:|"
IFS=, read -r -a ops <<<"$OPS"
for op in "${ops[@]}"; do
    profile "$op" "$N"
    profile "$op" $((2 * N))
    python3 - "$work" "$op" "$N" "$TOP" <<'PY'
import re, subprocess, sys
work, op, n, top = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

def self_costs(path):
    """Total and per-function self instruction counts of one profile."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    total, funcs = 0, {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m or "=>" in line:
            continue
        v, name = int(m.group(1).replace(",", "")), m.group(2).strip()
        if "PROGRAM TOTALS" in name:
            total = v
        elif ":" in name:
            name = re.sub(r"\s*\[.*\]$", "", name)
            funcs[name] = funcs.get(name, 0) + v
    return total, funcs

# Thread 1 is the main thread: the one that issues the operations.
t1, f1 = self_costs(f"{work}/{op}.{n}.out-01")
t2, f2 = self_costs(f"{work}/{op}.{2 * n}.out-01")
print(f"| {op} | {(t2 - t1) / n:.0f} |")
if top > 0:
    grew = sorted(((f2.get(k, 0) - f1.get(k, 0)) / n, k) for k in set(f1) | set(f2))
    for v, k in reversed(grew[-top:]):
        print(f"|   {k[:90]} | {v:.0f} |")
PY
done
