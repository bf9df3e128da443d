#!/bin/sh
# Trace, profile CSV and log files on a file system without room: each PE
# names the file it could not write, with errno, once; the job still ends
# with the program's status unless SHOAL_OUTPUT_LOST_STATUS asks for another.
# Small tmpfs mounts (root only: exit 77, skipped, where mounting fails),
# unmounted on exit:
#   cut   SHOAL_TRACE on an empty 64 KiB tmpfs, 4000 traced puts a PE (about
#         half a MiB of trace each): every PE file and trace.json reported,
#         status 0
#   full  SHOAL_PROFILE_CSV and SHOAL_LOG_FILE on a full 64 KiB tmpfs with
#         SHOAL_OUTPUT_LOST_STATUS=7: each reported, the job ends with 7
#   room  all three on a 16 MiB tmpfs with SHOAL_OUTPUT_LOST_STATUS=7: no
#         message, status 0, every file complete
# Usage: run_output_full.sh SHOALRUN OUTPUT_PROG NPES
set -u
shoalrun=$1 prog=$2 npes=$3
work=$(mktemp -d)
mounted=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    for m in $mounted; do umount "$m" 2>/dev/null || umount -l "$m"; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "FAIL [$part np$npes]: $*"
    echo "--- output (first 60 lines):"
    head -n 60 "$work/out" | cut -c1-400
    exit 1
}

# tmpfs DIR SIZE: a tmpfs of SIZE at DIR, or the test is skipped.
tmpfs() {
    mkdir -p "$1"
    if ! mount -t tmpfs -o "size=$2" tmpfs "$1" 2>"$work/mount.err"; then
        echo "SKIP: cannot mount a tmpfs ($(cat "$work/mount.err")); the test needs root"
        exit 77
    fi
    mounted="$1 $mounted"
}
# run NPUT: the job, output in $work/out, status in $rc.
run() {
    timeout 150 "$shoalrun" -n "$npes" --timeout 120 "$prog" "$1" >"$work/out" 2>&1
    rc=$?
    [ "$(grep -c "^PE [0-9]* ok$" "$work/out")" -eq "$npes" ] ||
        fail "not every PE checked its values (status $rc)"
}
count() { grep -cF -- "$1" "$work/out"; }
enospc="failed: No space left on device (errno 28); the file is incomplete"

unset SHOAL_TRACE SHOAL_PROFILE SHOAL_PROFILE_CSV SHOAL_LOG_FILE SHOAL_LOG_LEVEL \
    SHOAL_OUTPUT_LOST_STATUS SHOAL_DEBUG_SUBSYS SHMEM_DEBUG

part="cut"
tmpfs "$work/cut" 64k
SHOAL_TRACE=$work/cut/trace run 4000
[ "$rc" -eq 0 ] || fail "exit status $rc; without SHOAL_OUTPUT_LOST_STATUS the program's 0 stands"
pe=0
while [ $pe -lt "$npes" ]; do
    # (written at finalize, or by a flush on the way: once a second, or a full buffer)
    n=$(count ": SHOAL_TRACE: writing $work/cut/trace/trace.$pe.jsonl $enospc")
    [ "$n" -eq 1 ] || fail "PE $pe's cut trace file reported $n times, expected once"
    pe=$((pe + 1))
done
n=$(count "shmem_finalize: SHOAL_TRACE: writing $work/cut/trace/trace.json $enospc")
[ "$n" -eq 1 ] || fail "trace.json's failure reported $n times, expected once"
n=$(count "SHOAL_OUTPUT_LOST_STATUS")
[ "$n" -eq 0 ] || fail "the exit status was changed without SHOAL_OUTPUT_LOST_STATUS"
echo "ok: cut trace files reported, status 0"

part="full"
tmpfs "$work/full" 64k
dd if=/dev/zero of="$work/full/filler" bs=4k 2>/dev/null
if (printf x >"$work/full/probe") 2>/dev/null; then fail "the 64 KiB tmpfs did not fill up"; fi
SHOAL_PROFILE=1 SHOAL_PROFILE_CSV=$work/full/profile.csv SHOAL_LOG_FILE=$work/full/log.%r \
    SHOAL_LOG_LEVEL=3 SHOAL_OUTPUT_LOST_STATUS=7 run 10
[ "$rc" -eq 7 ] || fail "exit status $rc, expected 7 (SHOAL_OUTPUT_LOST_STATUS)"
n=$(count "shmem_finalize: SHOAL_PROFILE_CSV: writing $work/full/profile.csv $enospc")
[ "$n" -eq 1 ] || fail "the profile CSV's failure reported $n times, expected once"
pe=0
while [ $pe -lt "$npes" ]; do
    n=$(count "SHOAL_LOG_FILE: writing $work/full/log.$pe $enospc and this PE's later lines go to stderr only")
    [ "$n" -eq 1 ] || fail "PE $pe's log file failure reported $n times, expected once"
    pe=$((pe + 1))
done
n=$(count "could not be written completely (each failure is logged above); exiting with status 7 instead of 0, as SHOAL_OUTPUT_LOST_STATUS says")
[ "$n" -eq "$npes" ] || fail "$n PEs said they exit with 7, expected $npes"
grep -q "exited with status 7 after shmem_finalize" "$work/out" ||
    fail "shoalrun did not name a PE's status 7"
echo "ok: full disk reported, status 7"

part="room"
tmpfs "$work/room" 16m
SHOAL_TRACE=$work/room/trace SHOAL_PROFILE=1 SHOAL_PROFILE_CSV=$work/room/profile.csv \
    SHOAL_LOG_FILE=$work/room/log.%r SHOAL_LOG_LEVEL=3 SHOAL_OUTPUT_LOST_STATUS=7 run 4000
[ "$rc" -eq 0 ] || fail "exit status $rc with room to write"
if grep -E "failed: |cannot open|SHOAL_OUTPUT_LOST_STATUS" "$work/out"; then
    fail "a failure reported with room to write"
fi
/usr/bin/python3 - "$work/room" "$npes" <<'EOF' || fail "incomplete files with room to write"
import json, sys
room, npes = sys.argv[1], int(sys.argv[2])
doc = json.load(open(room + "/trace/trace.json"))
puts = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e["name"] == "shmem_long_p"]
assert len(puts) == 4000 * npes, len(puts)
lines = open(room + "/profile.csv").read().split("\n")
assert lines[0].startswith("family,calls,"), lines[0]
# the matrix's nonzero cells: each PE's 4000 longs to its right neighbour
rows = [r for r in lines[lines.index("from_pe,to_pe,bytes") + 1:] if r]
cells = {tuple(map(int, r.split(",")[:2])): int(r.split(",")[2]) for r in rows}
assert cells == {(p, (p + 1) % npes): 4000 * 8 for p in range(npes)}, rows
for pe in range(npes):
    log = open("%s/log.%d" % (room, pe)).read()
    assert "PE %d:" % pe in log and log.endswith("\n"), pe
EOF
echo "ok: with room, every file complete and status 0"
echo "output files ok at $npes PEs"
