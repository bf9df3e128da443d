#!/bin/sh
# Configures and builds Shoal into ./build (warnings are errors under CI).
set -eu
cd "$(dirname "$0")/.."
werror=OFF
[ "${CI:-}" = true ] && werror=ON
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHOAL_WERROR=$werror >/dev/null
cmake --build build -j "$(nproc)"
