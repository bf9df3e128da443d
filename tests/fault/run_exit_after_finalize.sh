#!/bin/sh
# A PE that exits with status 3 right after shmem_finalize must not end the
# others (exit_after_finalize.c), under shoalrun and with the config-store
# start (PE 0 hosts the store; tests/netns/netns_job.sh starts the PEs by
# hand in network namespaces, the store on host 0). RUNS runs, each must
# leave every other PE's file and end with status 3 and a line naming PE 0.
#
# usage: run_exit_after_finalize.sh shoalrun SHOALRUN PROG NPES [RUNS]
#        run_exit_after_finalize.sh store NETNS_JOB PROG HOSTS PES_PER_HOST [RUNS]
# Exit 77 (skipped) where the namespace cluster cannot be made.
set -u
mode=$1 launcher=$2 prog=$3
if [ "$mode" = shoalrun ]; then
    npes=$4 runs=${5:-5}
    want='PE 0 (pid [0-9]*) exited with status 3 after shmem_finalize'
else
    hosts=$4 pph=$5 runs=${6:-5}
    npes=$((hosts * pph))
    want='rank 0 on host 0 exited with status 3'
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
for run in $(seq 1 "$runs"); do
    dir=$tmp/run$run
    mkdir -p "$dir"
    rc=0
    if [ "$mode" = shoalrun ]; then
        "$launcher" -n "$npes" --timeout 30 "$prog" "$dir" >"$dir/out" 2>&1 || rc=$?
    else
        "$launcher" --timeout 30 "$hosts" "$pph" "$prog" "$dir" >"$dir/out" 2>&1 || rc=$?
        if [ "$rc" -eq 77 ]; then
            cat "$dir/out"
            exit 77
        fi
    fi
    missing=""
    for pe in $(seq 1 $((npes - 1))); do
        [ -f "$dir/pe$pe.done" ] || missing="$missing $pe"
    done
    if [ -n "$missing" ] || [ "$rc" -ne 3 ] || ! grep -q "$want" "$dir/out"; then
        echo "FAIL run $run: status $rc (want 3), PEs without their file:${missing:- none}"
        cat "$dir/out"
        failures=$((failures + 1))
    else
        echo "ok run $run: status 3, every file written"
    fi
done
[ "$failures" -eq 0 ] || { echo "$failures of $runs runs failed"; exit 1; }
echo "all $runs runs passed ($mode, $npes PEs)"
