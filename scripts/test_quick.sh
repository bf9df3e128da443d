#!/bin/sh
# The quick tier, the run before each commit: the tests labelled `quick`
# (every area at one or two PE counts: api, collectives, store, launcher,
# errors, faults, hangs, trace, check mode, Python, the device stand-in,
# one namespace test where run as root), about a minute on 2 cores.
# CI runs the whole suite (scripts/test.sh). Builds ./build first if needed
# (scripts/build.sh); installs nothing (scripts/setup.sh does).
#
# usage: scripts/test_quick.sh [extra ctest options]
set -eu
cd "$(dirname "$0")/.."
./scripts/build.sh
t0=$(date +%s)
rc=0
ctest --test-dir build --output-on-failure -j "$(nproc)" -L '^quick$' "$@" || rc=$?
echo "test_quick.sh: status $rc in $(($(date +%s) - t0)) s (ctest -L quick)"
exit "$rc"
