#!/bin/sh
# Compares the symbols libshoal exports with the committed list. A difference
# means a routine was added, lost or leaked; update the list only on purpose:
#   tests/abi/check_symbols.sh build/libshoal.so --update
set -eu
lib=$1
list=$(dirname "$0")/exported_symbols.txt
actual=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u)
if [ "${2:-}" = "--update" ]; then
    printf '%s\n' "$actual" > "$list"
    echo "updated $list ($(wc -l < "$list") symbols)"
    exit 0
fi
if ! printf '%s\n' "$actual" | diff -u "$list" - ; then
    echo "FAIL: exported symbols differ from $list (+ = exported but not listed, - = listed but missing)"
    exit 1
fi
# Only spec names and documented extensions may be exported.
bad=$(printf '%s\n' "$actual" | grep -v -E '^p?(shmem_|shmemx_|shmalloc$|shmemalign$|shrealloc$|shfree$|start_pes$|_my_pe$|_num_pes$|my_pe$|num_pes$)' | grep -v -E '^(SHMEM_|SHMEMX_)' || true)
if [ -n "$bad" ]; then
    echo "FAIL: non-API symbols exported: $bad"
    exit 1
fi
echo "ok: $(printf '%s\n' "$actual" | wc -l) exported symbols match $list"
