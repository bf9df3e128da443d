#!/bin/sh
# run_dev_api_fail.sh SHOALRUN NPES PROG MODE [PROBE]: a kernel that stops on
# an error ends the job, and the host says why. MODE timeout: PE 0's kernel
# waits for a signal nobody sends (SHOAL_DEVICE_WAIT_TIMEOUT=1); MODE badptr:
# it puts to memory that is not symmetric; MODE range: a put that starts in
# the host heap and runs past its end; MODE multi: several threads of PE 0
# fail at once. With PROBE (a GPU run), exits 77
# (skipped) when there is no GPU.
set -u
shoalrun=$1 npes=$2 prog=$3 mode=$4 probe=${5:-}
if [ -n "$probe" ]; then "$probe" || exit 77; fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
SHOAL_DEVICE_WAIT_TIMEOUT=1 "$shoalrun" -n "$npes" --timeout 60 "$prog" "$mode" >"$out" 2>&1
rc=$?
took=$(($(date +%s) - start))
fail() { echo "FAIL [$mode np$npes]: $*"; cat "$out"; exit 1; }
[ "$rc" -ne 0 ] || fail "the job exited 0"
[ "$rc" -ne 124 ] || fail "the job hung until shoalrun's timeout"
[ "$took" -lt 30 ] || fail "the job took $took s to end"
case $mode in
timeout)
    pat='PE 0: a device wait timed out in shmemx_dev_signal_wait_until \(block \(0,0,0\), thread \(0,0,0\)\): waited [0-9.]+ s for the word at 0x[0-9a-f]+ to be == 12345; it last saw 0'
    ;;
badptr)
    pat='PE 0: shmemx_dev_putmem \(block \(0,0,0\), thread \(0,0,0\)\) aimed at address 0x[0-9a-f]+ \(8 bytes\) on PE 0, which this GPU cannot reach'
    ;;
range)
    pat='PE 0: shmemx_dev_putmem \(block \(0,0,0\), thread \(0,0,0\)\) aimed at address 0x[0-9a-f]+ \(64 bytes\) on PE 0, which this GPU cannot reach'
    ;;
multi)
    # Which thread wins varies; the report is whole, and counts the others
    # (at least one of the 3 on the CPU counts itself within the monitor's grace).
    pat='PE 0: shmemx_dev_putmem \(block \(0,0,0\), thread \([0-9]+,0,0\)\) aimed at address 0x[0-9a-f]+ \(8 bytes\) on PE 0, which this GPU cannot reach.* \([1-9][0-9]* other threads? of this PE failed at the same time; this is the first\)'
    ;;
*) fail "unknown mode" ;;
esac
grep -qE "$pat" "$out" || fail "no line matching /$pat/"
grep -q "FAIL" "$out" && fail "the program reported a failure"
echo "ok [$mode np$npes]: the job ended in $took s with status $rc, naming the cause"
