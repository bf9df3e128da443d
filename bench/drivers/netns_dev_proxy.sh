#!/usr/bin/env bash
# netns_dev_proxy.sh: device put-with-signal to a PE of another namespace
# host through the device proxy, next to the host API's put_signal_nbi on
# the same path in the same run (bench/programs/dev_proxy_stream.c), on the
# CPU stand-in CUDA driver: 2 hosts x 1 PE, PE 0 streams N 8-byte
# operations and one quiet, K interleaved rounds per way; medians per
# operation and the ratios to the host way.
#
# usage: bench/drivers/netns_dev_proxy.sh [-n N] [-k K] [--build DIR] [--out FILE]
#   needs root (network namespaces); --out appends the run to FILE
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # bench/drivers
repo=$(dirname "$(dirname "$here")")
BUILD=$repo/build
N=2000
K=5
OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
    -n) N=$2; shift 2 ;;
    -k) K=$2; shift 2 ;;
    --build) BUILD=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "netns_dev_proxy.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
prog=$BUILD/bench/dev_proxy_stream
fake=$BUILD/tests/device/libshoal_fake_cuda.so
for f in "$prog" "$fake"; do
    [ -e "$f" ] || { echo "netns_dev_proxy.sh: $f is missing; build first" >&2; exit 2; }
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$repo/tests/netns/netns_job.sh" --timeout 600 --env "SHOAL_CUDA_LIBRARY=$fake" 2 1 "$prog" "$N" "$K" \
    2>&1 | sed 's/^\[[0-9]*@h[0-9]*\] //' | tee "$log"
if [ -n "$OUT" ]; then
    {
        echo
        echo "## $(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$repo" rev-parse --short HEAD), N=$N K=$K"
        echo
        echo '```'
        echo "\$ bench/drivers/netns_dev_proxy.sh -n $N -k $K"
        grep -E '^(bench=|#)' "$log"
        echo '```'
    } >> "$OUT"
fi
