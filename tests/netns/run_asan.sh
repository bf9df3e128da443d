#!/bin/sh
# AddressSanitizer + UBSan (+ LeakSanitizer) check of the multi-host paths:
# a separate build with -DSHOAL_SANITIZE=address,undefined (library, UCX
# plugin and every tests/api program; the same build as
# tests/asan/run_asan_api.sh), each run at 2 hosts x 2 PEs in the
# namespace cluster (netns_job.sh). The first report ends the PE, and so the
# job, with a nonzero status; UCX itself is covered too (leaks included).
#
# usage: tests/netns/run_asan.sh [source dir] [build dir]
# Exit 77 (skipped) where the namespace cluster cannot be made.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$(cd "$here/../.." && pwd)}
build=${2:-$src/build-asan}
programs="tests/multihost/remote_completion"
for t in $(cd "$src/tests/api" && ls ./*.c ./*.cpp | sed 's|^\./||; s/\.c$//; s/\.cpp$//'); do
    programs="$programs tests/api/api_$t"
done
targets="shoal shoal_ucx"
for p in $programs; do
    targets="$targets $(basename "$p")"
done

# shellcheck disable=SC2086 # one target per word
"$src/tests/sanitized_build.sh" run_asan address,undefined "$src" "$build" $targets

# shellcheck source=../sanitizer_verdict.sh
. "$src/tests/sanitizer_verdict.sh"
status=0
for p in $programs; do
    name=$(basename "$p")
    log="$build/run_asan.$name.log"
    rc=0
    heap=
    [ "$name" = api_memory ] && heap="--env SHMEM_SYMMETRIC_SIZE=16M" # as in tests/api
    # shellcheck disable=SC2086 # heap is one option and its value, or nothing
    "$here/netns_job.sh" --timeout 170 $heap 2 2 "$build/$p" >"$log" 2>&1 || rc=$?
    if [ "$rc" -eq 77 ]; then
        cat "$log"
        exit 77
    fi
    sanitizer_verdict run_asan "$name 2x2" "$rc" "$log" || status=1
done
exit "$status"
