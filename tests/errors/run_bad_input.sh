#!/bin/sh
# Runs bad_input in each mode and checks the job ends with a non-zero status,
# promptly, with an error that names the call and the argument.
# Usage: run_bad_input.sh SHOALRUN BAD_INPUT_BINARY NPES
set -u
shoalrun=$1
prog=$2
npes=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run_mode() { timeout 30 "$shoalrun" -n "$npes" --timeout 20 "$prog" "$1"; }
# shellcheck source=../expect_mode.sh
. "$(dirname "$0")/../expect_mode.sh"

# expect_error MODE PATTERN...: as expect MODE nonzero, and the PE ended by
# the library's error, not by a signal (a crash: status 128 + the signal).
expect_error() {
    mode_=$1
    shift
    before=$failures
    expect "$mode_" nonzero "$@"
    [ "$failures" -ne "$before" ] && return
    # shellcheck disable=SC2154 # rc: the status expect (expect_mode.sh) saw
    if [ "$rc" -ge 128 ] || grep -q "killed by signal" "$out"; then
        echo "FAIL $mode_: ended by a signal (status $rc), not by the library's error:"; cat "$out"
        failures=$((failures + 1))
    fi
}

expect before_init nonzero "shmem_long_p" "before shmem_init"
expect nonsymmetric nonzero "shmem_long_put" "dest" "not a symmetric address"
expect pe_range nonzero "shmem_long_put" "pe $npes is out of range"
expect negative_pe nonzero "shmem_long_atomic_add" "pe -1 is out of range"
expect inc_pe nonzero "shmem_long_atomic_inc" "pe -1 is out of range"
expect ctx_fetch_inc_pe nonzero "shmem_ctx_int_atomic_fetch_inc" "pe $((npes + 3)) is out of range"
expect overflow nonzero "shmem_putmem" "dest" "past the end of the symmetric heap"
expect bad_cmp nonzero "shmem_long_wait_until" "cmp 42"
expect bad_free nonzero "shmem_free" "was not returned by shmem_malloc"
expect misaligned_amo nonzero "shmem_long_atomic_add" "not aligned"
expect out_of_heap zero "out of symmetric heap" "raise SHMEM_SYMMETRIC_SIZE" "largest free block"
expect debug_broadcast_overflow nonzero "shmem_broadcastmem: dest" "has 80 bytes to the end of its symmetric allocation" "writes 200 bytes"
# Bad calls that crashed the PE (issue 29, item 2): each is refused by name,
# with and without check mode (which sends the data path the routed way).
for check in 0 1; do
    SHOAL_CHECK=$check
    export SHOAL_CHECK
    expect_error reduce_past_heap "ERROR: shmem_long_sum_reduce: dest" "past the end of the symmetric heap"
    expect_error reduce_team_invalid "ERROR: shmem_long_sum_reduce: team is SHMEM_TEAM_INVALID"
    expect_error garbage_team "ERROR: shmem_team_sync: team 0x[0-9a-f]* is not a team handle"
    expect_error team_destroy_twice "ERROR: shmem_team_destroy: team 0x[0-9a-f]* was already destroyed"
    expect_error ctx_destroyed "ERROR: shmem_ctx_long_p: ctx 0x[0-9a-f]* was destroyed by shmem_ctx_destroy"
    expect_error put_null_source "ERROR: shmem_putmem: source is NULL"
    expect_error wait_null "ERROR: shmem_long_wait_until: ivar is NULL"
    expect_error wait_nonsymmetric "ERROR: shmem_long_wait_until: ivar 0x[0-9a-f]* is not a symmetric address"
    # Item 3: clearing a lock this PE does not hold would break it.
    expect_error clear_lock_not_held "ERROR: shmem_clear_lock: lock 0x[0-9a-f]* is not held by this PE (PE $((npes - 1)))"
    expect lock_ok zero
done
unset SHOAL_CHECK
expect bad_align zero "shmem_align: alignment 3 is not a power of two" "returning NULL on every PE" "pass a power of two"
SHOAL_LOG_LEVEL=2
export SHOAL_LOG_LEVEL
expect unknown_hint zero "shmem_malloc_with_hints: hints 0x100000 has bits Shoal does not know" "allocating as shmem_malloc does"
unset SHOAL_LOG_LEVEL
# Three calls, one line per PE.
said=$(grep -c "hints 0x100000 has bits" "$out")
if [ "$said" -ne "$npes" ]; then
    echo "FAIL unknown_hint: the hint was logged $said times at $npes PEs, expected once per PE"
    failures=$((failures + 1))
fi
# A failed shmem_init names the step and its cause, once per PE that got to
# say it before the first failing PE ended the job (a heap larger than any
# address space: 10^18 bytes).
SHMEM_SYMMETRIC_SIZE=1000000T expect init_fails nonzero "mmap of the shoal-heap segment" \
    "lower SHMEM_SYMMETRIC_SIZE" "shmem_init: creating the symmetric heap failed: system call failed"
said=$(grep -c "shmem_init: creating the symmetric heap failed" "$out")
if [ "$said" -gt "$npes" ] || [ "$(sort "$out" | uniq -d | wc -l)" -ne 0 ]; then
    echo "FAIL init_fails: a line said twice ($said step lines from $npes PEs):"; cat "$out"
    failures=$((failures + 1))
fi
if [ "$npes" -gt 1 ]; then
    expect debug_collect_overflow nonzero "shmem_collectmem: dest" "has 80 bytes to the end" "writes $((npes * 80)) bytes"
    expect outside_set zero "shmem_barrier: PE 1 is not in the active set (PE_start 0, logPE_stride 0, PE_size 1)" "returning at once" "once per call site"
    said=$(grep -c "is not in the active set" "$out")
    if [ "$said" -ne $((2 * (npes - 1))) ]; then
        echo "FAIL outside_set: $said warnings from $((npes - 1)) outside PEs at 2 call sites, expected $((2 * (npes - 1)))"
        failures=$((failures + 1))
    fi
    SHMEM_DEBUG=1
    export SHMEM_DEBUG
    expect outside_set nonzero "shmem_barrier: PE [0-9]* is not in the active set" "SHMEM_DEBUG makes this fatal"
    unset SHMEM_DEBUG
    expect malloc_mismatch nonzero "shmem_malloc" "PE $((npes - 1)) asked for 2048 bytes" "PE 0 asked for 1024 bytes"
fi

if [ $failures -ne 0 ]; then
    echo "$failures bad-input check(s) failed"
    exit 1
fi
echo "all bad-input checks passed at $npes PEs"
