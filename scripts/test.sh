#!/bin/sh
# The whole test suite: installs what is missing, builds, runs every test
# (multi-PE API tests at 1, 2, 4 and 8 PEs, launcher and fault tests, bad
# input, example programs, symbol and docs checks, benchmarks in quick mode,
# the api suite under ASan+UBSan+LSan and the thread tests under TSan).
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
ctest --test-dir build --output-on-failure -j 2 "$@"
