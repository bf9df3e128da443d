#!/bin/sh
# A job that hangs (trace_hang_prog: the last PE waits for a signal nobody sends)
# under SHOAL_TRACE, ended by shoalrun --timeout: every PE's trace.<pe>.jsonl
# holds its calls up to the hang (the hang report that --timeout asks for
# flushes them), no trace.json is written (PE 0 never passed finalize), and
# `shoal-trace merge` builds one that check_trace.py's `hang` mode accepts;
# `shoal-trace summary` names the unfinished PE.
# Usage: run_hang.sh SHOALRUN HANG_PROG SHOAL_TRACE_TOOL CHECK_TRACE_PY NPES
set -u
shoalrun=$1 prog=$2 tool=$3 checker=$4 npes=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --timeout leaves room for a slow start on a loaded machine; the PEs wait
# with backoff meanwhile.
SHOAL_TRACE=$work/t timeout 200 "$shoalrun" -n "$npes" --timeout 20 "$prog" >"$work/out" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "the hung job exited 0"
grep -q "timeout after" "$work/out" || fail "shoalrun did not end the job by its timeout"
reached=$(grep -c "reached the hang" "$work/out")
[ "$reached" -eq "$npes" ] || fail "$reached of $npes PEs reached the hang before the timeout"
[ ! -e "$work/t/trace.json" ] || fail "a trace.json was written though PE 0 never finished"
for pe in $(seq 0 $((npes - 1))); do
    n=$(grep -c '"fn"' "$work/t/trace.$pe.jsonl" 2>/dev/null)
    echo "trace.$pe.jsonl: ${n:-no file} records"
    [ "${n:-0}" -gt 0 ] || fail "PE $pe's file holds no records"
done
"$tool" merge "$work/t" >"$work/merge.out" 2>&1 || { fail "shoal-trace merge failed"; cat "$work/merge.out"; }
/usr/bin/python3 "$checker" hang "$work/t" "$npes" || failures=$((failures + 1))
"$tool" summary "$work/t" >"$work/summary" 2>&1 || fail "shoal-trace summary failed"
cat "$work/summary"
grep -q "PE $((npes - 1)): unfinished" "$work/summary" || fail "the summary does not name PE $((npes - 1)) unfinished"
rows=$(grep -c '^[0-9]' "$work/summary")
[ "$rows" -ge "$npes" ] || fail "the summary's table has $rows rows for $npes PEs"
grep -q "released by PE" "$work/summary" || fail "the summary names no wait's releaser"
if [ $failures -ne 0 ]; then echo "--- job output"; cat "$work/out"; fi
[ -n "${TRACE_KEEP:-}" ] && cp -r "$work/t" "$work/out" "$work/summary" "$TRACE_KEEP/"
[ $failures -eq 0 ] && echo PASS
exit $((failures > 0))
