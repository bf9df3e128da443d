#!/bin/sh
# run_pcontrol.sh SHOALRUN PROGRAM NPES: runs prof_pcontrol with debug logs
# and checks, for every PE, the levels and flush counts shmem_pcontrol
# recorded, in call order.
set -eu
shoalrun=$1 prog=$2 npes=$3
out=$(SHOAL_LOG_LEVEL=3 "$shoalrun" -n "$npes" --timeout 60 "$prog" 2>&1) || {
    echo "$out" | tail -20
    echo "FAIL: prof_pcontrol failed at $npes PEs"
    exit 1
}
want="0 profiling off (0
2 profiling on, flush requested (1
2 profiling on, flush requested (2
7 profiling on; a level above 2 is a profiling library's, Shoal treats it as 1 (2
-1 profiling off (2
1 profiling on at the default detail (2"
pe=0
while [ "$pe" -lt "$npes" ]; do
    got=$(echo "$out" | grep "PE $pe:.*shmem_pcontrol: level" |
        sed 's/.*shmem_pcontrol: level \(-\{0,1\}[0-9]*\): \(.*\) (\([0-9]*\) flush.*/\1 \2 (\3/')
    if [ "$got" != "$want" ]; then
        echo "FAIL: PE $pe recorded:"
        echo "$got"
        echo "expected:"
        echo "$want"
        exit 1
    fi
    pe=$((pe + 1))
done
echo "ok: $npes PEs recorded levels 0 2 2 7 -1 1 and 2 flush requests each"
