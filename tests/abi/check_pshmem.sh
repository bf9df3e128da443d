#!/bin/sh
# check_pshmem.sh LIB CC INCLUDE_DIR: the profiling interface in the built
# library (spec 1.5, "Profiling Interface"; docs/debugging.md).
#  1. Every exported routine has a name-shifted twin: a weak plain name
#     (shmem_long_put, start_pes) and a strong p-name (pshmem_long_put,
#     pstart_pes) at the same address, and no p-name without its plain one.
#  2. <pshmem.h> declares exactly the exported p-names.
#  3. libshoal calls none of its own routines through the PLT or the GOT: such
#     a call would reach a tool's shmem_* in front of it (and count as the
#     program's call), and would cost an indirect jump on the fast path.
set -eu
lib=$1 cc=$2 inc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# "name type address" of every exported function (T strong, W weak, i ifunc).
nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3, $2, $1 }' |
    sort >"$tmp/funcs"
grep -v '^p' "$tmp/funcs" >"$tmp/plain" || true
grep '^p' "$tmp/funcs" >"$tmp/shifted" || true
[ -s "$tmp/plain" ] || { echo "FAIL: $lib exports no routines"; exit 1; }

# 1. twins: for each plain name, its p-name, strong, at the same address.
awk 'NR == FNR { type[$1] = $2; addr[$1] = $3; next }
     { p = "p" $1
       if (!(p in type)) { print "FAIL: " $1 " has no twin " p; bad = 1; next }
       if ($2 != "W") { print "FAIL: " $1 " is not weak (nm type " $2 "); a tool could not replace it in a static link"; bad = 1 }
       if (type[p] != "T") { print "FAIL: " p " is not a strong definition (nm type " type[p] ")"; bad = 1 }
       if (addr[p] != $3) { print "FAIL: " $1 " (" $3 ") and " p " (" addr[p] ") are different code"; bad = 1 } }
     END { exit bad }' "$tmp/shifted" "$tmp/plain" || fail=1
awk 'NR == FNR { have[$1] = 1; next }
     !(substr($1, 2) in have) { print "FAIL: " $1 " is exported without its plain name " substr($1, 2); bad = 1 }
     END { exit bad }' "$tmp/plain" "$tmp/shifted" || fail=1

# 2. pshmem.h declares exactly the exported p-names.
printf '#include <pshmem.h>\n' | "$cc" -E -P -I"$inc" -x c - |
    grep -oE '\bp[A-Za-z0-9_]+ *\(' | sed 's/ *($//' |
    grep -E '^p(shmem|shmemx|start_pes|_my_pe|_num_pes|my_pe|num_pes|shmalloc|shmemalign|shrealloc|shfree)' |
    sort -u >"$tmp/declared"
cut -d' ' -f1 "$tmp/shifted" | sort -u >"$tmp/exported"
if ! diff -u "$tmp/declared" "$tmp/exported" >"$tmp/diff"; then
    echo "FAIL: pshmem.h (-) and the library's p-names (+) differ:"
    grep '^[-+]p' "$tmp/diff" | head -20
    fail=1
fi

# 3. no dynamic relocation (PLT slot or GOT entry) names one of libshoal's own routines.
cut -d' ' -f1 "$tmp/funcs" | sort -u >"$tmp/names"
readelf -rW "$lib" | awk '$3 ~ /JUMP_SLOT|GLOB_DAT|64$/ && NF >= 5 { sub(/@.*/, "", $5); print $5 }' |
    sort -u >"$tmp/relocs"
own=$(comm -12 "$tmp/names" "$tmp/relocs")
if [ -n "$own" ]; then
    echo "FAIL: libshoal reaches its own routines through dynamic relocations (call the pshmem_" \
        "twin in the same file, or the core, instead):"
    echo "$own" | head -20
    fail=1
fi

[ "$fail" = 0 ] || exit 1
echo "ok: $(wc -l <"$tmp/plain") routines, each a weak alias of its p-twin; pshmem.h declares" \
    "all $(wc -l <"$tmp/exported"); no self-reference through the PLT or GOT"
