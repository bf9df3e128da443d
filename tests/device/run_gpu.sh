#!/bin/sh
# run_gpu.sh PROBE SHOALRUN NPES TIMEOUT PROG [ARGS...]: a test that needs a
# GPU. Without a CUDA driver or device it exits 77 (ctest: skipped, never
# passed); with one it runs PROG on NPES PEs, all sharing this host's GPUs.
set -u
probe=$1 shoalrun=$2 npes=$3 timeout=$4
shift 4
"$probe" || exit 77
exec "$shoalrun" -n "$npes" --timeout "$timeout" "$@"
