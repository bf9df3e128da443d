#!/bin/sh
# Builds one standard OpenSHMEM program with shoalcc, as a user would, and
# runs it under shoalrun at each PE count. The programs check their own
# results and exit non-zero on a wrong value.
# Usage: run_example.sh SHOALCC SHOALRUN SOURCE WORKDIR NPES...
set -eu
shoalcc=$1 shoalrun=$2 src=$3 work=$4
shift 4
mkdir -p "$work"
exe="$work/$(basename "$src" .c)"
"$shoalcc" -O2 -Wall -Werror "$src" -o "$exe" -lm
for n in "$@"; do
    if ! "$shoalrun" -n "$n" --timeout 60 "$exe"; then
        echo "FAIL: $(basename "$src") at $n PEs"
        exit 1
    fi
done
echo "ok: $(basename "$src") at PE counts $*"
