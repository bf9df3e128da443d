#!/bin/sh
# Log subsystems and log files: SHOAL_DEBUG_SUBSYS keeps only the named
# subsystems' debug lines, SHOAL_LOG_FILE writes a file per PE (with the
# host, pid and PE in its name), an unknown subsystem name is warned about
# by name, and so is a misspelt setting.
# Usage: run_log.sh SHOALRUN PROG NPES
set -u
shoalrun=$1
prog=$2
npes=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. Only memory's debug lines (the globals line is memory's; the segment
#    mapping line is transport's), and no info/debug line of another subsystem.
SHOAL_DEBUG_SUBSYS=memory "$shoalrun" -n "$npes" "$prog" >"$dir/out" 2>&1 || fail "job failed: $(cat "$dir/out")"
grep -q "DEBUG(memory): globals .* are symmetric" "$dir/out" || fail "no memory debug line: $(cat "$dir/out")"
if grep -E "(DEBUG|INFO)\((init|bootstrap|transport|coll|rma|core)\)" "$dir/out"; then
    fail "lines of subsystems not asked for"
fi
n=$(grep -c "DEBUG(memory): globals" "$dir/out")
[ "$n" -eq "$npes" ] || fail "$n memory lines at $npes PEs, expected one per PE"

# 2. Both subsystems when both are named.
if [ "$npes" -gt 1 ]; then
    SHOAL_DEBUG_SUBSYS=memory,transport "$shoalrun" -n "$npes" "$prog" >"$dir/out" 2>&1 || fail "job failed"
    grep -q "DEBUG(transport): $((npes - 1)) local peers, mapped on first use" "$dir/out" ||
        fail "no transport line: $(cat "$dir/out")"
fi

# 3. A file per PE, named after host and PE, holding that PE's lines only.
SHOAL_DEBUG_SUBSYS=memory SHOAL_LOG_FILE="$dir/shoal.%h.%r.log" \
    "$shoalrun" -n "$npes" "$prog" >"$dir/out" 2>&1 || fail "job failed"
host=$(hostname)
r=0
while [ $r -lt "$npes" ]; do
    f="$dir/shoal.$host.$r.log"
    [ -s "$f" ] || fail "no log file $f (have: $(ls "$dir"))"
    grep -q "PE $r:pid [0-9]*\] DEBUG(memory): globals" "$f" || fail "$f lacks PE $r's line: $(cat "$f")"
    if grep -v "PE $r:pid" "$f"; then fail "$f holds another PE's lines"; fi
    r=$((r + 1))
done
if grep -q "DEBUG(memory)" "$dir/out"; then fail "debug lines still on stderr with a log file"; fi

# 4. An unknown subsystem is named, with the known ones.
SHOAL_DEBUG_SUBSYS=memory,trasport "$shoalrun" -n "$npes" "$prog" >"$dir/out" 2>&1 || fail "job failed"
grep -q "SHOAL_DEBUG_SUBSYS: unknown subsystem 'trasport' (known: bootstrap, transport" "$dir/out" ||
    fail "no warning for the unknown name: $(cat "$dir/out")"
# 5. A setting's name with a typo is named once (by PE 0), with the likely one.
SHOAL_CHEK=1 SHMEM_SYMMETRIC_SIZ=1M "$shoalrun" -n "$npes" "$prog" >"$dir/out" 2>&1 || fail "job failed"
for pair in "SHOAL_CHEK SHOAL_CHECK" "SHMEM_SYMMETRIC_SIZ SHMEM_SYMMETRIC_SIZE"; do
    set -- $pair
    n=$(grep -c "environment variable $1 is not a setting Shoal knows; did you mean $2?" "$dir/out")
    [ "$n" -eq 1 ] || fail "$n warnings for $1 at $npes PEs, expected one: $(cat "$dir/out")"
done
# A real setting next to them (SHOAL_CHECK itself) must not be warned about.
SHOAL_CHECK=0 SHOAL_CHEK=1 "$shoalrun" -n "$npes" "$prog" >"$dir/out" 2>&1 || fail "job failed"
n=$(grep -c "is not a setting Shoal knows" "$dir/out")
[ "$n" -eq 1 ] || fail "$n typo warnings with SHOAL_CHECK and SHOAL_CHEK set, expected 1"
echo "log ok at $npes PEs"
