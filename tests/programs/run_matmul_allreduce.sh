#!/bin/sh
# Builds examples/matmul_allreduce/host.c + common.c with shoalcc, as a user
# would, and runs it under shoalrun at each PE count with a small,
# non-square size whose tile count (12) does not divide by every PE count.
# Each run must exit 0 and print its "result matches" line, also with one
# workspace slot per source (-d 1, 8 PEs). Then one run
# with -x 5 (the owner adds 1 to tile 5 after reducing it) must exit
# non-zero and name tile 5 and its owner: the check can fail.
# Usage: run_matmul_allreduce.sh SHOALCC SHOALRUN SRCDIR WORKDIR NPES...
set -eu
shoalcc=$1 shoalrun=$2 src=$3 work=$4
shift 4
mkdir -p "$work"
exe="$work/matmul_allreduce"
"$shoalcc" -O2 -Wall -Werror "$src/host.c" "$src/common.c" -o "$exe"
size="-m 128 -n 96 -k 80 -t 32 -r 2"
for n in "$@"; do
    # shellcheck disable=SC2086 # $size is a list of arguments
    if ! out=$("$shoalrun" -n "$n" --timeout 60 "$exe" $size 2>&1); then
        printf '%s\n' "$out"
        echo "FAIL: matmul_allreduce at $n PEs exited non-zero"
        exit 1
    fi
    printf '%s\n' "$out"
    case "$out" in
    *"result matches the plain computation on all $n PEs"*) ;;
    *)
        echo "FAIL: matmul_allreduce at $n PEs printed no 'result matches' line"
        exit 1
        ;;
    esac
done

# One slot per source (-d 1): every tile after a PE's first to an owner waits
# for a credit, with 8 PEs on the machine's cores.
# shellcheck disable=SC2086
if ! out=$("$shoalrun" -n 8 --timeout 60 "$exe" $size -d 1 2>&1) ||
    ! printf '%s\n' "$out" | grep -q "result matches the plain computation on all 8 PEs"; then
    printf '%s\n' "$out"
    echo "FAIL: matmul_allreduce -d 1 at 8 PEs"
    exit 1
fi

# shellcheck disable=SC2086
if out=$("$shoalrun" -n 4 --timeout 60 "$exe" $size -x 5 2>&1); then
    printf '%s\n' "$out"
    echo "FAIL: matmul_allreduce -x 5 (tile 5 broken) exited 0"
    exit 1
fi
printf '%s\n' "$out"
case "$out" in
*"PE 0: fused result wrong in tile 5 (owner PE 1, rows 32-63, columns 64-95) at C[32][64]"*) ;;
*)
    echo "FAIL: matmul_allreduce -x 5 did not name tile 5, its owner and PE 0"
    exit 1
    ;;
esac
case "$out" in
*"result matches"*)
    echo "FAIL: matmul_allreduce -x 5 still printed 'result matches'"
    exit 1
    ;;
esac
echo "ok: matmul_allreduce at PE counts $*, with -d 1 at 8, and a broken tile is reported"
