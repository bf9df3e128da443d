#!/bin/sh
# Installs Shoal to a temporary prefix and builds a program three ways a user
# would: the installed shoalcc, pkg-config, and a CMake project with
# find_package(Shoal). Each binary must run under the installed shoalrun.
# The installed wrappers answer every --showme form with the installed
# directories (run_showme.sh), also once the tree is moved.
# Where the build has the Python package, the installed one must import from
# the prefix and run under the installed shoalrun and its pytest plugin.
# Usage: run_install.sh BUILD_DIR SOURCE_DIR ucx|no-ucx [PYTHON|no-python]
set -eu
build=$1 src=$2 ucx=${3:-ucx} python=${4:-no-python}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(ls -d "$prefix"/lib* | head -n 1)

libdir=$(dirname "$(find "$prefix" -name libshoal.so | head -n 1)")
"$src/tests/install/run_showme.sh" "$prefix/bin" "$(cd "$prefix" && pwd -P)/include" \
    "$(cd "$libdir" && pwd -P)" "$src"

"$prefix/bin/shoalcc" -O2 "$src/examples/counter.c" -o "$prefix/counter_cc"
"$prefix/bin/shoalrun" -n 3 "$prefix/counter_cc"
# The installed shoal-info finds the installed UCX plugin.
[ "$ucx" = no-ucx ] || "$prefix/bin/shoal-info" | grep -q "UCX plugin: loads from $prefix/" ||
    { echo "FAIL: installed shoal-info does not load the plugin from $prefix:"; "$prefix/bin/shoal-info" | head -8; exit 1; }
# The installed shoal-trace merges and summarizes a job's per-PE trace files.
SHOAL_TRACE="$prefix/tr" "$prefix/bin/shoalrun" -n 3 "$prefix/counter_cc" >/dev/null
rm "$prefix/tr/trace.json"
"$prefix/bin/shoal-trace" merge "$prefix/tr" 2>/dev/null
"$prefix/bin/shoal-trace" summary "$prefix/tr" | grep -q "^trace of 3 PEs" && [ -s "$prefix/tr/trace.json" ] ||
    { echo "FAIL: the installed shoal-trace did not merge and summarize $prefix/tr"; exit 1; }

# The conventional OpenSHMEM names, as links to Shoal's tools.
(cd "$prefix" && "$prefix/bin/oshcc" "$src/examples/ring.c" -o ring_osh &&
    "$prefix/bin/oshrun" -np 4 ./ring_osh | grep -q "token 6 after 4 PEs (expected 6)")
printf '#include <shmem.h>\nint main(){shmem_init();shmem_finalize();return 0;}\n' > "$prefix/t.cpp"
for cxx in oshc++ oshCC oshcxx; do "$prefix/bin/$cxx" "$prefix/t.cpp" -o "$prefix/t_$cxx"; done
"$prefix/bin/oshrun" -np 2 "$prefix/t_oshCC"

# An older program that includes the deprecated-annex <mpp/shmem.h>.
"$prefix/bin/shoalcc" -O2 "$src/tests/programs/mpp_ring.c" -o "$prefix/mpp_ring"
"$prefix/bin/shoalrun" -n 4 "$prefix/mpp_ring"

# The profiling interface: <pshmem.h> is installed and its names link.
printf '#include <pshmem.h>\nint main(void){pshmem_init();int ok=pshmem_n_pes()==shmem_n_pes();pshmem_finalize();return !ok;}\n' > "$prefix/p.c"
"$prefix/bin/shoalcc" "$prefix/p.c" -o "$prefix/pshmem_names"
"$prefix/bin/shoalrun" -n 2 "$prefix/pshmem_names"

# The Python package installs with the project: the installed shoal (not the
# build tree's) imports, finds the installed libshoal, and its values cross
# PEs under the installed shoalrun; the pytest plugin starts that shoalrun.
if [ "$python" != no-python ]; then
    pkg="$lib/python3/dist-packages"
    [ -d "$pkg/shoal" ] || { echo "FAIL: the Python package was not installed under $pkg"; exit 1; }
    cat > "$prefix/test_ring.py" <<'PY'
import os
import numpy as np
import shoal


def test_ring():
    assert shoal.__file__.startswith(os.environ["SHT_PREFIX"] + "/"), shoal.__file__
    me, n = shoal.my_pe(), shoal.n_pes()
    a = shoal.zeros(1, np.int64)
    shoal.p(a, 100 + me, (me + 1) % n)
    shoal.barrier_all()
    assert a[0] == 100 + (me - 1) % n
    shoal.barrier_all()
    shoal.free(a)
    print(f"installed shoal ok on PE {me} of {n}")


if __name__ == "__main__":
    test_ring()
PY
    out=$(cd "$prefix" && env -u SHOALRUN SHT_PREFIX="$prefix" PYTHONPATH="$pkg" \
        "$prefix/bin/shoalrun" -n 3 "$python" test_ring.py)
    [ "$(echo "$out" | grep -c "installed shoal ok on PE [0-9] of 3")" -eq 3 ] ||
        { echo "FAIL: installed Python package under the installed shoalrun: $out"; exit 1; }
    if "$python" -c "import pytest" 2>/dev/null; then
        out=$(cd "$prefix" && env -u SHOALRUN SHT_PREFIX="$prefix" PYTHONPATH="$pkg" \
            PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "$python" -m pytest -q -p no:cacheprovider \
            -p shoal.pytest_plugin --shoal-npes 2 test_ring.py 2>&1) || true
        [ "$(echo "$out" | grep -c "1 passed")" -eq 2 ] ||
            { echo "FAIL: the installed pytest plugin did not pass test_ring.py on 2 PEs: $out"; exit 1; }
    fi
    echo "ok: the installed Python package runs under the installed shoalrun"
fi

PKG_CONFIG_PATH="$lib/pkgconfig" cc -O2 "$src/examples/ring.c" -o "$prefix/ring_pc" \
    $(PKG_CONFIG_PATH="$lib/pkgconfig" pkg-config --cflags --libs shoal)
"$prefix/bin/shoalrun" -n 3 "$prefix/ring_pc"

mkdir -p "$prefix/proj"
cat > "$prefix/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.20)
project(user_app C)
find_package(Shoal REQUIRED)
add_executable(hello $src/examples/hello.c)
target_link_libraries(hello PRIVATE Shoal::shoal)
CM
cmake -S "$prefix/proj" -B "$prefix/proj/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/proj/build" >/dev/null
LD_LIBRARY_PATH="$lib" "$prefix/bin/shoalrun" -n 2 "$prefix/proj/build/hello"

# A moved install tree: its wrappers name the new place.
mv "$prefix" "$prefix.moved"
prefix=$prefix.moved
moved=$(cd "$prefix" && pwd -P)
for w in shoalcc oshcc oshc++; do
    out=$("$prefix/bin/$w" --showme:incdirs)
    [ "$out" = "$moved/include" ] || { echo "FAIL: $w moved to $prefix: --showme:incdirs printed $out"; exit 1; }
done
echo "ok: installed shoalcc, pkg-config and find_package(Shoal) builds all run"
