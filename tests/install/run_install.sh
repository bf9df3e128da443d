#!/bin/sh
# Installs Shoal to a temporary prefix and builds a program three ways a user
# would: the installed shoalcc, pkg-config, and a CMake project with
# find_package(Shoal). Each binary must run under the installed shoalrun.
# Usage: run_install.sh BUILD_DIR SOURCE_DIR ucx|no-ucx (whether the build has the plugin)
set -eu
build=$1 src=$2 ucx=${3:-ucx}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
lib=$(ls -d "$prefix"/lib* | head -n 1)

"$prefix/bin/shoalcc" -O2 "$src/examples/counter.c" -o "$prefix/counter_cc"
"$prefix/bin/shoalrun" -n 3 "$prefix/counter_cc"
# The installed shoal-info finds the installed UCX plugin.
[ "$ucx" = no-ucx ] || "$prefix/bin/shoal-info" | grep -q "UCX plugin: loads from $prefix/" ||
    { echo "FAIL: installed shoal-info does not load the plugin from $prefix:"; "$prefix/bin/shoal-info" | head -8; exit 1; }

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
echo "ok: installed shoalcc, pkg-config and find_package(Shoal) builds all run"
