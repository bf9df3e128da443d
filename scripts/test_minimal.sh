#!/bin/sh
# Builds Shoal with -DSHOAL_WITH_UCX=OFF -DSHOAL_WITH_PMIX=OFF
# -DSHOAL_WITH_CUDA=OFF on a machine where UCX, PMIx and the CUDA toolkit
# look absent, and runs the tests whose code paths differ there: the
# launcher's (label launcher: with PMIx gone shoalrun is the only way in,
# and the choice is made at start) and the quick tier (label quick: a sample
# of every area, the config store's included, shoal-info's transport and
# bootstrap list, the device errors without CUDA). The rest of the suite runs
# the same code as in the main build: the only sources that differ are the
# stand-ins src/bootstrap/pmix_none.c and src/transport/ucx/ucx_load_none.c
# (no #if on UCX or PMIx elsewhere), so rerunning it, the store's 56 tests
# among them, bought no coverage; a test this build does not register (UCX,
# PMIx, CUDA) is simply not there. Sanitizer
# and fuzz runs rebuild code the main run covers. The packages are hidden, not removed: in a private
# mount namespace (unshare -m, root) every header folder, library, archive
# and pkg-config file of libucx-dev, libucx0, libpmix-dev and libpmix2 is
# covered (folders by an empty tmpfs, files by /dev/null), and so is
# /usr/local/cuda, so an include or a link that still needed them would
# fail. The script checks the hiding worked before it builds.
#
# usage: scripts/test_minimal.sh [BUILD_DIR]   (default build-minimal)
#   exit 77 (skipped) when not root or without unshare
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build-minimal}
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
    echo "test_minimal.sh: needs root and unshare to hide packages; skipped"
    exit 77
fi
export repo build
exec unshare -m sh -eu -c '
mount --make-rprivate /
multiarch=$(dirname "$(ls /usr/lib/*/libc.so.6 | head -n 1)")
for path in $(dpkg -L libucx-dev libucx0 libpmix-dev libpmix2 2>/dev/null | sort -u); do
    parent=$(dirname "$path")
    if [ -d "$path" ] && [ ! -L "$path" ]; then
        case $parent in /usr/include | "$multiarch") mount -t tmpfs none "$path" ;; esac
    elif [ -e "$path" ]; then
        case $parent in "$multiarch" | "$multiarch/pkgconfig") mount --bind /dev/null "$path" ;; esac
    fi
done
if [ -d /usr/local/cuda/ ]; then mount -t tmpfs none /usr/local/cuda/; fi
for i in 1 2 3; do # wrappers elsewhere on PATH (/usr/local/bin/nvcc)
    p=$(command -v nvcc 2>/dev/null) || break
    mount --bind /dev/null "$p"
done
if command -v nvcc >/dev/null 2>&1; then
    echo "test_minimal.sh: nvcc is still visible"; exit 1
fi
if pkg-config --exists ucx || pkg-config --exists pmix; then
    echo "test_minimal.sh: pkg-config still finds ucx or pmix"; exit 1
fi
if printf "#include <ucp/api/ucp.h>\n" | cc -E -x c - >/dev/null 2>&1; then
    echo "test_minimal.sh: ucp.h is still visible"; exit 1
fi
echo "test_minimal.sh: UCX, PMIx and CUDA are hidden; building in $build"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHOAL_WERROR=ON \
    -DSHOAL_WITH_UCX=OFF -DSHOAL_WITH_PMIX=OFF -DSHOAL_WITH_CUDA=OFF -DSHOAL_BUILD_BENCH=OFF |
    grep -E "^-- (Shoal|  )" || true
cmake --build "$build" -j"$(nproc)"
if ldd "$build"/libshoal.so | grep -E "libuc[pstm]|libpmix"; then
    echo "test_minimal.sh: libshoal links UCX or PMIx"; exit 1
fi
cd "$build"
# CPU slots as in scripts/test.sh: the tests labelled waits run beside the busy ones.
ctest -j$((3 * $(nproc))) --resource-spec-file tests/cpu_slots.json --output-on-failure \
    --timeout 300 -L "^(quick|launcher)$" -LE "^(asan|tsan|fuzz)$"
'
