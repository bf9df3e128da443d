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
bad=0
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh' 2>/dev/null || find . -name '*.[ch]' -not -path './build*')
for f in $files; do
    [ -f "$f" ] || continue
    if ! "$fmt" --style=file "$f" | cmp -s - "$f"; then
        echo "check_format: $f is not formatted; run: $fmt -i $f"
        bad=$((bad + 1))
    fi
done
n=$(echo "$files" | wc -w)
if [ "$bad" -ne 0 ]; then
    echo "check_format: $bad of $n files need clang-format"
    exit 1
fi
echo "check_format: all $n C files formatted ($($fmt --version | head -1))"
