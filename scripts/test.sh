#!/bin/sh
# The whole test suite (CI's run): installs what is missing, builds, runs
# every test of ./build (multi-PE API tests at 1, 2 and 4 PEs, a few at 8;
# launcher, store, fault and hang tests, bad input, example programs, the
# multi-host suites, Python, symbol and docs checks, benchmarks in quick
# mode), then the tree built without UCX and PMIx while those packages are
# hidden (scripts/test_minimal.sh: the tests whose code differs there), then
# the sanitizer runs. Prints each step's time at the end. Before each commit
# scripts/test_quick.sh is enough (about a minute).
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
# Both builds compile the same test programs: ccache (scripts/setup.sh
# installs it) lets the second reuse the first's objects. The base dir makes
# paths relative, so build/ and build-minimal/ hash alike. nvcc too: ptxas
# spends over a minute on tests/device/dev_api_kernels.cu (a kernel per
# device step), the build's longest job; a rerun, or a clone on a machine
# that built the same sources before, takes it from the cache.
if command -v ccache >/dev/null && [ -z "${CMAKE_C_COMPILER_LAUNCHER:-}" ]; then
    CCACHE_BASEDIR=$(pwd)
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    export CMAKE_CUDA_COMPILER_LAUNCHER=ccache
    export CCACHE_BASEDIR CCACHE_NOHASHDIR=1
fi
times=""
step() { # NAME START: note how long the step took
    times="$times
  $1: $(($(date +%s) - $2)) s"
}
status=0

t=$(date +%s)
./scripts/build.sh
step "build" "$t"

# The sanitizer and fuzz tests build sanitized trees of their own; they run
# in their own step below, timed apart.
# As many busy tests at once as cores (what -j 2 gave on 2 cores), and beside
# them up to twice as many of those that mostly wait (label waits: timeouts,
# sleeps): each busy test takes one of the spec's CPU slots, a waiting one
# none (cmake/shoal_test.cmake).
cores=$(nproc)
t=$(date +%s)
ctest --test-dir build --output-on-failure -j $((3 * cores)) \
    --resource-spec-file "$(pwd)/build/tests/cpu_slots.json" -LE '^(asan|tsan|fuzz)$' "$@" || status=$?
step "ctest (main build)" "$t"

t=$(date +%s)
rc=0
./scripts/test_minimal.sh build-minimal || rc=$?
if [ "$rc" -eq 77 ]; then
    echo "test.sh: the build without UCX and PMIx was SKIPPED (hiding the packages needs root)"
elif [ "$rc" -ne 0 ]; then
    echo "test.sh: the build without UCX and PMIx FAILED"
    [ "$status" -ne 0 ] || status=$rc
fi
step "build and tests without UCX/PMIx" "$t"

# ---- sanitizer step ----
# The sanitized builds, timed apart from the steps above. First ctest's
# labels asan, tsan and fuzz: asan_api and netns_asan (the api suite on one
# host and across namespace hosts under ASan+UBSan+LSan), tsan_threads (the
# thread tests under TSan), store.fuzz (the store's decoder under libFuzzer
# for SHOAL_FUZZ_SECONDS; clang and libclang-rt-14-dev come from
# scripts/setup.sh, so it fails, not skips, without them). Then
# scripts/test_sanitized.sh's groups in the same two sanitized trees (each
# built once, by whichever comes first): asan (the error, fault, hang,
# check, trace, log, store and stand-in device tests), python (the Python
# suites, libasan preloaded) and tsan (the store thread, the hang watchdog
# and the signal-report thread). Any sanitizer report fails the run.
t=$(date +%s)
ctest --test-dir build --output-on-failure -j 2 -L '^(asan|tsan|fuzz)$' "$@" || {
    rc=$?
    [ "$status" -ne 0 ] || status=$rc
}
step "sanitizer tests (asan_api, netns_asan, tsan_threads, store.fuzz)" "$t"
for group in asan python tsan; do
    t=$(date +%s)
    rc=0
    ./scripts/test_sanitized.sh build "$group" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "test.sh: the sanitized group $group FAILED"
        [ "$status" -ne 0 ] || status=$rc
    fi
    step "sanitized group $group (scripts/test_sanitized.sh)" "$t"
done
# ---- end of the sanitizer step ----

echo "test.sh: times:$times"
exit "$status"
