#!/bin/sh
# Installs the Debian packages Shoal needs, when missing:
#   scripts/setup.sh [PKG...]         building the library and running the whole
#                                     test suite (scripts/test.sh, scripts/demo.sh)
#   scripts/setup.sh --lib [PKG...]   only building and installing the library
#                                     (README's "Build and install")
# Extra package names may be given as arguments: optional features with --lib
# (e.g. libucx-dev), tools of bench/ otherwise (e.g. gnuplot-nox).
set -eu
lib_only=0
if [ "${1:-}" = --lib ]; then
    lib_only=1
    shift
fi

# ---- the library: required by CMakeLists.txt ----
# build-essential: C and C++ compilers, make; cmake (3.20 or newer);
# pkg-config: finds the optional UCX and PMIx; libssl-dev (OpenSSL 3): TLS for
# the config store.
need="build-essential cmake pkg-config libssl-dev $*"

# ---- the whole test suite ----
if [ "$lib_only" = 0 ]; then
    # The library's optional features, which the suite covers: libucx-dev +
    # libpmix-dev, the UCX transport and the PMIx bootstrap; Debian's Python
    # (/usr/bin/python3) for the Python package (python/): headers, NumPy,
    # pytest for its suites, PyTorch (CPU) for shoal.torch and its example.
    need="$need libucx-dev libpmix-dev python3-dev python3-numpy python3-pytest python3-torch"
    # python3-mypy: type-checks the Python examples against the stubs.
    need="$need python3-mypy"
    # python3-venv + python3-setuptools + python3-wheel: `pip install
    # --no-build-isolation ./python` into a --system-site-packages venv,
    # offline (tests/python/pip_venv.sh).
    need="$need python3-venv python3-setuptools python3-wheel"
    # openssl: the store tests make certificates; clang + libclang-rt-14-dev:
    # the store's libFuzzer target; clang-format: the formatting check
    # (tests/style).
    need="$need openssl clang libclang-rt-14-dev clang-format"
    # openmpi-bin: mpirun, the PMIx launcher of the multihost tests.
    need="$need openmpi-bin"
    # slurmctld + slurmd + slurm-client: a throwaway Slurm cluster for the srun
    # --mpi=pmix tests (tests/slurm); slurm-wlm-basic-plugins holds mpi/pmix.
    need="$need slurmctld slurmd slurm-client slurm-wlm-basic-plugins"
    # iproute2: `ip netns` and veths for the namespace cluster (tests/netns),
    # `ss` for the Slurm tests' free ports; minimal Debian images lack it.
    need="$need iproute2"
    # procps: pgrep/pkill, with which the launcher, store and Python fault
    # tests check that no process is left; "important", not "required", so a
    # minimal image may lack it.
    need="$need procps"
    # valgrind: callgrind, for the instruction counts of bench/drivers/callgrind.sh and
    # bench/drivers/netns_callgrind.sh (the latter has a test: bench.netns_callgrind).
    need="$need valgrind"
    # autoconf + automake: a real autotools package configured with
    # CC=oshcc (tests/install/run_autotools.sh).
    need="$need autoconf automake"
    # ccache: scripts/test.sh's second build (without UCX and PMIx) reuses
    # the first one's objects.
    need="$need ccache"
    # chromium: renders shoal-trace view's page headless (trace.view.np4),
    # the offline trace viewer's check; the test says skipped without it.
    need="$need chromium"
fi

missing=""
for pkg in $need; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
