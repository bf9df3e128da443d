#!/bin/sh
# Fails when a tracked C source or header differs from what clang-format
# (the repository's .clang-format) makes of it, and names each such file.
# Usage: check_format.sh SOURCE_DIR [CLANG_FORMAT]
set -eu
src=$1
fmt=${2:-clang-format}
cd "$src"
if ! command -v "$fmt" >/dev/null 2>&1; then
    echo "check_format: $fmt not found (scripts/setup.sh installs clang-format)"
    exit 77
fi
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
files=$(for f in $files; do [ -f "$f" ] && echo "$f"; done)
# One clang-format process for all files (one per file cost most of the
# time): --dry-run -Werror names every place that would change.
rc=0
out=$(echo "$files" | xargs -r "$fmt" --style=file --dry-run -Werror 2>&1) || rc=$?
badfiles=$(echo "$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ "$rc" -ne 0 ] && [ -z "$badfiles" ]; then
    echo "$out"
    echo "check_format: $fmt failed (status $rc)"
    exit 1
fi
bad=0
for f in $badfiles; do
    echo "check_format: $f is not formatted; run: $fmt -i $f"
    bad=$((bad + 1))
done
n=$(echo "$files" | wc -w)
if [ "$bad" -ne 0 ]; then
    echo "check_format: $bad of $n files need clang-format"
    exit 1
fi
echo "check_format: all $n C files formatted ($($fmt --version | head -1))"
