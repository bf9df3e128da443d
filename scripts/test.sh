#!/bin/sh
# The whole test suite: installs what is missing, builds, runs every test
# (multi-PE API tests at 1, 2, 4 and 8 PEs, launcher and fault tests, bad
# input, example programs, symbol and docs checks, benchmarks in quick mode,
# the api suite under ASan+UBSan+LSan and the thread tests under TSan), then
# the same tree built without UCX and PMIx while those packages are hidden
# (scripts/test_minimal.sh: every one-host test of that build).
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
status=0
ctest --test-dir build --output-on-failure -j 2 "$@" || status=$?
rc=0
./scripts/test_minimal.sh build-minimal || rc=$?
if [ "$rc" -eq 77 ]; then
    echo "test.sh: the build without UCX and PMIx was SKIPPED (hiding the packages needs root)"
elif [ "$rc" -ne 0 ]; then
    echo "test.sh: the build without UCX and PMIx FAILED"
    [ "$status" -ne 0 ] || status=$rc
fi
exit "$status"
