#!/bin/sh
# AddressSanitizer + UBSan + LeakSanitizer over the whole tests/api suite:
# a separate build with -DSHOAL_SANITIZE=address,undefined (library, UCX
# plugin, shoalrun and every tests/api program), each program run at 2 and
# 4 PEs under shoalrun on this host (finalize_leftovers, the leak test of
# finalize, at 1 PE too), leaks on. The first report of any
# sanitizer ends the PE with a nonzero status (and so the job), and a log
# that mentions a sanitizer at all fails the run. The same build serves
# tests/netns/run_asan.sh (the multi-host paths).
#
# usage: tests/asan/run_asan_api.sh [source dir] [build dir]
#   CMAKE_GENERATOR picks the generator (see tests/sanitized_build.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$(cd "$here/../.." && pwd)}
build=${2:-$src/build-asan}
tests=$(cd "$src/tests/api" && ls ./*.c ./*.cpp | sed 's|^\./||; s/\.c$//; s/\.cpp$//')
targets="shoal shoalrun" # shoal brings the UCX plugin where the build has one
for t in $tests; do
    targets="$targets api_$t"
done

# shellcheck disable=SC2086 # one target per word
"$src/tests/sanitized_build.sh" run_asan_api address,undefined "$src" "$build" $targets

# shellcheck source=../sanitizer_verdict.sh
. "$src/tests/sanitizer_verdict.sh"
status=0
for t in $tests; do
    npes="2 4"
    [ "$t" = finalize_leftovers ] && npes="1 2 4"
    for n in $npes; do
        log="$build/run_asan_api.$t.np$n.log"
        rc=0
        # As tests/api/CMakeLists.txt runs it: memory checks exhaustion of a small heap.
        heap=
        [ "$t" = memory ] && heap=16M
        SHMEM_SYMMETRIC_SIZE=${heap:-${SHMEM_SYMMETRIC_SIZE:-1G}} \
            "$build/tools/shoalrun" -n "$n" --timeout 150 "$build/tests/api/api_$t" >"$log" 2>&1 ||
            rc=$?
        sanitizer_verdict run_asan_api "$t np=$n" "$rc" "$log" || status=1
    done
done
exit "$status"
