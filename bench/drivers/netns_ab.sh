#!/usr/bin/env bash
# netns_ab.sh: the same benchmark programs against two builds of libshoal
# between pretend hosts (tests/netns/netns_job.sh: one namespace per host,
# config-store start, UCX over TCP across veths), interleaved round by round
# so that a burst of load hits both, and a table of medians with B/A.
#
#   bench/drivers/netns_ab.sh --a DIR --b DIR [--names A,B] [-k K] [--shape HxP] [--pin] PROG...
#
# DIR is a build directory holding libshoal.so and libshoal_ucx.so (the
# programs' RUNPATH is overridden with LD_LIBRARY_PATH). PROG is a bench/
# program built against either; its "bench=... op=... usec=..." lines are
# collected. --pin runs each PE pinned to CPU rank % ncpu (taskset), as
# bench/drivers/netns_compare.sh does: unpinned, both PEs can stay stacked on one CPU
# for tens of ms after start-up (see there). Prints a markdown table on
# stdout; progress goes to stderr.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
a="" b="" names="A,B" k=5 shape=2x2 pin=0
while [ $# -gt 0 ]; do
    case "$1" in
    --a) a=$2; shift 2 ;;
    --b) b=$2; shift 2 ;;
    --names) names=$2; shift 2 ;;
    -k) k=$2; shift 2 ;;
    --shape) shape=$2; shift 2 ;;
    --pin) pin=1; shift ;;
    -h | --help) sed -n 2,16p "$0"; exit 0 ;;
    *) break ;;
    esac
done
[ -n "$a" ] && [ -n "$b" ] && [ $# -gt 0 ] || { sed -n 2,16p "$0" >&2; exit 2; }
hosts=${shape%x*} pph=${shape#*x}
name_a=${names%,*} name_b=${names#*,}
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
wrap=()
[ "$pin" = 1 ] && wrap=("$repo/bench/drivers/pin_rank.sh")
for round in $(seq 1 "$k"); do
    for prog in "$@"; do
        for side in a b; do
            dir=$a label=$name_a
            [ "$side" = b ] && dir=$b label=$name_b
            echo "netns_ab: round $round/$k $(basename "$prog") on $label" >&2
            "$repo/tests/netns/netns_job.sh" --timeout 200 --env "LD_LIBRARY_PATH=$dir" \
                "$hosts" "$pph" "${wrap[@]}" "$prog" 2>&1 |
                sed -n "s/^\[0@h0\] bench=\([^ ]*\) op=\([^ ]*\)\( mem=\)\{0,1\}\([^ =]*\) size=\([^ ]*\) .*usec=\([0-9.]*\).*/$side \1 \2\/\4 \5 \6/p" \
                    >>"$raw"
        done
    done
done
echo "Medians of $k interleaved rounds, $hosts hosts x $pph PEs (netns, UCX over TCP$([ "$pin" = 1 ] && echo ", PEs pinned to CPU rank % ncpu")); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| bench | op[/mem] | size | $name_a (µs) | $name_b (µs) | $name_b / $name_a |"
echo "|---|---|---:|---:|---:|---:|"
awk '
function median(list,   n, arr, i, j, t) {
    n = split(list, arr, " ")
    for (i = 2; i <= n; i++) { t = arr[i] + 0; for (j = i - 1; j >= 1 && arr[j] + 0 > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
    return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
{ op = $3; sub(/\/$/, "", op); key = $2 " | " op " | " $4; v[$1, key] = v[$1, key] " " $5; if (!(key in seen)) { seen[key] = 1; order[++nk] = key } }
END {
    for (i = 1; i <= nk; i++) {
        key = order[i]; ma = median(v["a", key]); mb = median(v["b", key])
        printf "| %s | %.2f | %.2f | %.2fx |\n", key, ma, mb, (ma > 0 ? mb / ma : 0)
    }
}' "$raw"
