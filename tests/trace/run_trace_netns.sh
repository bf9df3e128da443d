#!/bin/sh
# trace_prog on two hosts made of network namespaces, 2 PEs each
# (tests/netns/netns_job.sh: config-store bootstrap, UCX over TCP between
# the hosts): the trace holds the network events, and each PE off PE 0's
# host a clock offset measured over the store (a round trip above 0) while
# PE 0's host has none; everything else as check_trace.py checks it on one
# host. Skipped (77) where namespaces cannot be made.
# Usage: run_trace_netns.sh NETNS_JOB TRACE_PROG CHECK_TRACE_PY
set -u
job=$1 prog=$2 checker=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$job" --timeout 120 --env "SHOAL_TRACE=$work/t" --env SHMEM_SYMMETRIC_SIZE=16M 2 2 "$prog"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && { echo "FAIL: trace_prog exited $rc"; exit 1; }
SHOAL_TEST_HOSTS=2 /usr/bin/python3 "$checker" trace "$work/t" 4 2 || exit 1
echo PASS
