#!/usr/bin/env bash
# trace_overhead.sh: ns per 8-byte shmem_putmem with tracing off, with
# SHOAL_PROFILE=1 and with SHOAL_TRACE, in one run of this script (same
# machine, same build), at 2 PEs.
# usage: bench/drivers/trace_overhead.sh [--shoalcc PATH] [ITERS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SHOALCC=${SHOALCC:-$(dirname "$(dirname "$here")")/build/tools/shoalcc}
if [ "${1:-}" = --shoalcc ]; then SHOALCC=$2; shift 2; fi
iters=${1:-200000}
SHOALRUN=$(dirname "$SHOALCC")/shoalrun
work=$(mktemp -d "${TMPDIR:-/tmp}/shoal-trace-overhead.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$SHOALCC" -O2 -o "$work/trace_overhead" "$(dirname "$here")/programs/trace_overhead.c"
# Each traced put is one record; keep them all (48 bytes each).
events=$(( iters * 6 + iters / 10 + 1000 ))
echo "off:     $("$SHOALRUN" -n 2 "$work/trace_overhead" "$iters")"
echo "profile: $(SHOAL_PROFILE=1 "$SHOALRUN" -n 2 "$work/trace_overhead" "$iters" | grep ns)"
echo "trace:   $(SHOAL_TRACE=$work/t SHOAL_TRACE_EVENTS=$events "$SHOALRUN" -n 2 "$work/trace_overhead" "$iters")"
