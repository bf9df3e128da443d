#!/bin/sh
# shoalrun with the options oshrun/mpirun scripts pass for one host: -np,
# -x VAR=VALUE and -x VAR, --bind-to core (each PE pinned to one CPU, PE i to
# the (i mod n)-th CPU shoalrun may use) and none, and --oversubscribe,
# --allow-run-as-root and --map-by, accepted with one note line each.
# Usage: run_osh_options.sh SHOALRUN BIND_CHECK NPES
set -u
shoalrun=$1 prog=$2 np=$3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
failures=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; failures=$((failures + 1)); }

for bind in core none; do
    SHT_X_VAR=from-env timeout 60 "$shoalrun" -np "$np" --oversubscribe --allow-run-as-root \
        --map-by core --bind-to "$bind" -x SHT_X_VAR=x-value -x HOME --timeout 50 \
        "$prog" "$bind" "$cpus" x-value >"$out" 2>"$err"
    rc=$?
    [ $rc -eq 0 ] || { fail "--bind-to $bind at $np PEs: exit status $rc"; continue; }
    [ "$(grep -c "^PE [0-9]*: .* -x ok" "$out")" -eq "$np" ] ||
        fail "--bind-to $bind: not every PE reported"
    for opt in "--oversubscribe has no effect" "--allow-run-as-root has no effect" \
        "--map-by core has no effect"; do
        [ "$(grep -c -- "note: $opt" "$err")" -eq 1 ] || fail "no single note for '$opt'"
    done
    echo "ok: --bind-to $bind at $np PEs (CPUs $cpus)"
done
# -x with an export of a variable that is already set passes it unchanged.
SHT_X_VAR=kept timeout 60 "$shoalrun" -np "$np" --bind-to none -x SHT_X_VAR --timeout 50 \
    "$prog" none "$cpus" kept >"$out" 2>"$err" || fail "-x SHT_X_VAR (set in the environment)"
# Bad values are refused, naming the option.
"$shoalrun" -np 1 --bind-to socket "$prog" >"$out" 2>"$err" && fail "--bind-to socket accepted"
grep -q -- "--bind-to expects core or none, got 'socket'" "$err" || fail "--bind-to socket message"
"$shoalrun" -np 1 -x =1 "$prog" >"$out" 2>"$err" && fail "-x =1 accepted"
grep -q -- "-x expects VAR or VAR=VALUE" "$err" || fail "-x =1 message"
[ $failures -eq 0 ] || exit 1
echo "all oshrun/mpirun option checks passed at $np PEs"
