#!/bin/sh
# Runs check_prog's modes under SHOAL_CHECK=1 and checks that each buggy
# program ends promptly with a non-zero status and a message naming the
# call, the PEs and the arguments, and that the correct one runs to the end.
# Usage: run_check.sh SHOALRUN CHECK_PROG NPES [WRAPPER]
#   WRAPPER: a command each PE runs the program under (tests/multihost's
#   as_host.sh puts PEs on pretend hosts, so the checks cross the network)
set -u
shoalrun=$1
prog=$2
npes=$3
wrapper=${4:-}
last=$((npes - 1))
out=$(mktemp)
trap 'rm -f "$out"' EXIT
SHOAL_CHECK=1
export SHOAL_CHECK

run_mode() {
    # shellcheck disable=SC2086 # the wrapper may be empty
    timeout 60 "$shoalrun" -n "$npes" --timeout 45 $wrapper "$prog" "$1"
}
# shellcheck source=../expect_mode.sh
. "$(dirname "$0")/../expect_mode.sh"

expect ok zero "every collective gave the right values at $npes PEs"
if [ "$npes" -gt 1 ]; then
    expect root_mismatch nonzero "shmem_long_broadcast (SHOAL_CHECK)" "passed different arguments" \
        "PE $last (team PE $last) called shmem_long_broadcast(root 1, 32 bytes)" \
        "PE 0 (team PE 0) called shmem_long_broadcast(root 0, 32 bytes)"
    expect count_mismatch nonzero "shmem_long_sum_reduce (SHOAL_CHECK)" "passed different arguments" \
        "PE $last (team PE $last) called shmem_long_sum_reduce(24 bytes)" \
        "PE 0 (team PE 0) called shmem_long_sum_reduce(32 bytes)"
    expect op_mismatch nonzero "(SHOAL_CHECK)" "not calling the same collective" \
        "PE $last (team PE $last) is in shmem_long_max_reduce(32 bytes)" \
        "PE 0 (team PE 0) is in shmem_long_sum_reduce(32 bytes)"
    # Collective #4 on TEAM_WORLD: two shmem_callocs, a barrier, then this.
    expect desync nonzero "(SHOAL_CHECK)" "not calling the same collective" \
        "PE $last (team PE $last) is in shmem_long_broadcast(root 0, 32 bytes), its collective #4 on this team" \
        "PE 0 (team PE 0) is in shmem_barrier_all(), its #4" "a desync"
    # shmem_finalize is compared like a collective: the PE with a barrier
    # more is named at once instead of hanging until the timeout.
    expect finalize_desync nonzero "(SHOAL_CHECK)" "not calling the same collective" \
        "PE $last (team PE $last) is in shmem_barrier_all(), its collective #4 on this team" \
        "PE 0 (team PE 0) is in shmem_finalize(), its #4" "a desync"
fi
# A put or get past an allocation's end, or into a freed one, is named at
# the call, with the PE that made it (the heap offsets: two callocs of
# check_prog's set-up come first).
expect overrun nonzero "shmem_putmem (SHOAL_CHECK): PE 0 writes 108 bytes to PE $last at heap offset" \
    "8 bytes past the end of the symmetric allocation of 100 bytes at heap offset" \
    "(allocation #3, by shmem_malloc); from there at most 100 bytes are the allocation's"
expect overrun_get nonzero "shmem_getmem (SHOAL_CHECK): PE 0 reads 108 bytes from PE $last at heap offset" \
    "8 bytes past the end of the symmetric allocation of 100 bytes"
expect use_after_free nonzero "shmem_char_p (SHOAL_CHECK): PE 0 writes 1 byte to PE $last at heap offset" \
    "in the symmetric allocation of 100 bytes at heap offset" "by shmem_malloc), which shmem_free freed: a use after free"
# A PE's own stores are seen by the guard zone and the poison.
expect overrun_free nonzero "shmem_free (SHOAL_CHECK): the symmetric allocation of 100 bytes" \
    "allocation #3 on this PE, by shmem_malloc) was written past its end" \
    "the byte 0 past the end holds 0x07, not the guard pattern 0xfd" "PE $last"
expect overrun_final nonzero "shmem_finalize (SHOAL_CHECK): the symmetric allocation of 100 bytes" \
    "written past its end" "PE $last"
expect use_after_free_local nonzero "shmem_finalize (SHOAL_CHECK): the symmetric allocation of 100 bytes" \
    "was written after shmem_free freed it: byte 10 holds 0x01, not the poison 0xfb" "PE $last"
expect overlap nonzero "shmem_putmem (SHOAL_CHECK): the source (64 bytes at" \
    "and the dest" "are the same memory for 56 bytes" "use separate buffers"
expect double_free nonzero "shmem_free: ptr" "was not returned by shmem_malloc" "or was already freed"
if [ $failures -ne 0 ]; then
    echo "$failures check-mode case(s) failed"
    exit 1
fi
