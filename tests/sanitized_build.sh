#!/bin/sh
# Configures and builds Shoal with sanitizers in a build directory of its
# own (a sanitizer must cover the whole library, so it cannot share the main
# build), logging to NAME.configure.log and NAME.build.log there and
# printing their tails on failure. Used by tests/tsan/run_tsan.sh and
# tests/netns/run_asan.sh.
#
# usage: tests/sanitized_build.sh NAME SANITIZERS SOURCE_DIR BUILD_DIR TARGET...
#   CMAKE_GENERATOR picks the generator (default: Ninja when installed).
set -eu
name=$1 sanitizers=$2 src=$3 build=$4
shift 4
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then
    CMAKE_GENERATOR=Ninja
    export CMAKE_GENERATOR
fi
mkdir -p "$build"
echo "$name: configuring $build"
if ! cmake -S "$src" -B "$build" -DSHOAL_SANITIZE="$sanitizers" -DCMAKE_BUILD_TYPE=Debug \
    >"$build/$name.configure.log" 2>&1; then
    cat "$build/$name.configure.log"
    echo "$name: configure FAILED"
    exit 1
fi
echo "$name: building $*"
if ! cmake --build "$build" --target "$@" >"$build/$name.build.log" 2>&1; then
    tail -n 40 "$build/$name.build.log"
    echo "$name: build FAILED"
    exit 1
fi
