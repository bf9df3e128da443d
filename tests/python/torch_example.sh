#!/bin/sh
# The data-parallel example on NPES PEs must end with the parameters of the
# same training done in one process on the whole batch.
# Usage: torch_example.sh SHOALRUN PYTHON EXAMPLE NPES
set -eu
shoalrun=$1 python=$2 example=$3 npes=$4
"$python" -c "import torch" 2>/dev/null || { echo "python3-torch missing: skipped"; exit 77; }
ref=$(mktemp --suffix=.pt); trap 'rm -f "$ref"' EXIT
"$python" "$example" --reference "$ref"
# SHOAL_TEST_TIME_SCALE: sanitized runs set it (their PEs run several times slower).
limit=$(awk -v k="${SHOAL_TEST_TIME_SCALE:-1}" 'BEGIN { printf "%d", 200 * k }')
out=$("$shoalrun" -n "$npes" --timeout "$limit" "$python" "$example" --check "$ref")
echo "$out"
[ "$(echo "$out" | grep -o "PE [0-9]*: matches the single-process run" | sort -u | wc -l)" -eq "$npes" ]
