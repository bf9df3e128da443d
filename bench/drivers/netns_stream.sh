#!/usr/bin/env bash
# netns_stream.sh: Shoal's one-way streams of 8-byte non-blocking operations
# (bench/programs/stream_nbi.c: put_nbi, put_signal_nbi, atomic_add, then one quiet)
# from a PE on one namespace host to a PE on another, next to UCX's own
# ucx_perftest on the same veth in the same run (ucp_put_bw and ucp_add,
# 8 bytes): the floor of the engine on this path.  K interleaved rounds;
# the table shows medians and the ratio Shoal / ucx_perftest per message
# (put_signal_nbi is one active message carrying data and signal; the
# goal compares it with one ucp_put_bw message: within 1.25x).
#
# Both sides run pinned, each end on a CPU of its own (taskset: host 0's
# process on CPU 0, host 1's on CPU 1), as bench/drivers/netns_compare.sh does:
# unpinned, the two "hosts" can share one CPU for tens of ms; --no-pin
# turns this off.
#
# usage: bench/drivers/netns_stream.sh [-k K] [-n N] [--build DIR] [--out FILE] [--no-pin]
#   needs root (network namespaces) and ucx-utils (installed when missing)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # bench/drivers
bench=$(dirname "$here")
repo=$(dirname "$bench")
BUILD=$repo/build
K=3
N=20000
OUT=""
PIN=1
while [ $# -gt 0 ]; do
    case "$1" in
    -k) K=$2; shift 2 ;;
    -n) N=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --no-pin) PIN=0; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "netns_stream.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
command -v ucx_perftest >/dev/null || "$repo/scripts/setup.sh" ucx-utils
NETNS_JOB=$repo/tests/netns/netns_job.sh
PROG=$BUILD/bench/stream_nbi
[ -x "$PROG" ] || { echo "netns_stream.sh: build first ($PROG missing)" >&2; exit 1; }

NAME=shoalbs$$
work=$(mktemp -d)
trap '"$NETNS_JOB" --down "$NAME"; rm -rf "$work"' EXIT
"$NETNS_JOB" --up "$NAME" 2 >/dev/null
# Pinning (bench/drivers/pin_rank.sh): Shoal's PEs by rank, ucx_perftest's server
# as rank 1 and its client as rank 0 (nothing with --no-pin).
SHOAL_WRAP=() ON_H0=() ON_H1=()
if [ "$PIN" = 1 ]; then
    SHOAL_WRAP=("$here/pin_rank.sh")
    ON_H0=(SHOAL_RANK=0 "$here/pin_rank.sh")
    ON_H1=(SHOAL_RANK=1 "$here/pin_rank.sh")
fi

# One ucx_perftest measurement: usec per message (the "typical" latency
# column of its final line is per-iteration overhead in µs).
perftest() {
    local test=$1 port=$((20000 + RANDOM % 20000))
    ip netns exec "$NAME-h1" env UCX_TLS=tcp UCX_NET_DEVICES=shoal0 "${ON_H1[@]}" \
        ucx_perftest -p "$port" >/dev/null 2>&1 &
    local srv=$!
    sleep 0.5
    ip netns exec "$NAME-h0" env UCX_TLS=tcp UCX_NET_DEVICES=shoal0 "${ON_H0[@]}" \
        ucx_perftest 10.77.0.2 -p "$port" -t "$test" -s 8 -n "$N" >"$work/pt.out" 2>&1 || true
    wait "$srv" 2>/dev/null || true
    # Final line: "Final: <iters> <typical> <avg> <overall> ..." (latency usec).
    awk '/^Final:/ { print $5 }' "$work/pt.out"
}

declare -A vals
for ((k = 0; k < K; k++)); do
    vals[ucp_put_bw]+="$(perftest ucp_put_bw) "
    vals[ucp_add]+="$(perftest ucp_add) "
    "$NETNS_JOB" --timeout 200 2 1 "${SHOAL_WRAP[@]}" "$PROG" -n "$N" -r 3 >"$work/shoal.out" 2>&1 ||
        { cat "$work/shoal.out" >&2; exit 1; }
    for op in put_nbi put_signal_nbi atomic_add; do
        vals[$op]+="$(sed -n "s/.*bench=stream_nbi op=$op .*usec=\([0-9.]*\).*/\1/p" \
            "$work/shoal.out") "
    done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
declare -A med
for key in "${!vals[@]}"; do med[$key]=$(echo "${vals[$key]}" | median); done

report() {
    echo "| op | Shoal µs/msg | ucx_perftest µs/msg | ratio |"
    echo "|---|---:|---:|---:|"
    awk -v a="${med[put_nbi]}" -v b="${med[ucp_put_bw]}" \
        'BEGIN { printf "| put_nbi 8 B | %.2f | %.2f (ucp_put_bw) | %.2f |\n", a, b, a / b }'
    awk -v a="${med[atomic_add]}" -v b="${med[ucp_add]}" \
        'BEGIN { printf "| atomic_add 8 B | %.2f | %.2f (ucp_add) | %.2f |\n", a, b, a / b }'
    awk -v a="${med[put_signal_nbi]}" -v b="${med[ucp_put_bw]}" \
        'BEGIN { printf "| put_signal_nbi 8 B (1 message) | %.2f | %.2f (ucp_put_bw) | %.2f |\n", a, b, a / b }'
    echo
    echo "K=$K rounds of N=$N messages, medians; load: $(cut -d' ' -f1-3 /proc/loadavg);" \
        "pinned: $([ "$PIN" = 1 ] && echo yes || echo no); command: bench/drivers/netns_stream.sh -k $K -n $N$([ "$PIN" = 1 ] || echo " --no-pin")"
}
if [ -n "$OUT" ]; then report | tee "$OUT"; else report; fi
