#!/bin/sh
# Installs the shoal package with pip, as a user of a venv would, offline:
# a venv made from PYTHON with --system-site-packages (NumPy, setuptools and
# wheel from Debian), `pip install --no-build-isolation --no-index` of a copy
# of python/ built against this build tree (SHOAL_BUILD_DIR; mode build-tree)
# or against an installation of it found by pkg-config (cmake --install to a
# temporary prefix, PKG_CONFIG_PATH; mode installed), then, from the venv and
# without PYTHONPATH:
#   - docs/python.md's first program at 2 PEs with `python -m shoal.run -n 2`,
#     its output values checked;
#   - `python -m shoal` reports this build's version and libshoal;
#   - shoal.__version__ is CMake's project VERSION and the library's vendor
#     string (SHMEM_VENDOR_STRING) says the same;
#   - a shoalrun option shoal.run does not know (--tag-output) passes through;
#   - the launcher process does not initialize the library.
# Exit 77 (skipped) when PYTHON has no venv module or pip for venvs.
# Usage: pip_venv.sh SOURCE_DIR BUILD_DIR PYTHON build-tree|installed
set -eu
src=$1 build=$2 python=$3 mode=$4
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset PYTHONPATH SHOALRUN PKG_CONFIG_PATH SHOAL_PREFIX SHOAL_BUILD_DIR
if [ "$mode" = installed ]; then
    cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
    pc=$(find "$tmp/prefix" -name shoal.pc | head -n 1)
    export PKG_CONFIG_PATH="${pc%/shoal.pc}"
    libdir=$(cd "$(dirname "$(find "$tmp/prefix" -name libshoal.so | head -n 1)")" && pwd -P)
else
    export SHOAL_BUILD_DIR="$build"
    libdir=$build
fi
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# The extension's compiler through the build's launcher (ccache under
# scripts/test.sh), paths relative to the temporary folder so that a rerun
# hits the cache.
if [ -n "${SHOAL_CC_LAUNCHER:-}" ]; then
    export CC="$SHOAL_CC_LAUNCHER ${CC:-cc}" CCACHE_BASEDIR=$tmp CCACHE_NOHASHDIR=1
fi

if ! "$python" -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1; then
    cat "$tmp/venv.log"
    echo "SKIP: $python cannot make a venv with pip (Debian: apt install python3-venv)"
    exit 77
fi
py=$tmp/venv/bin/python
# A copy, so that setuptools' build/ and egg-info stay out of the checkout.
mkdir "$tmp/pkg"
cp -r "$src/python/pyproject.toml" "$src/python/setup.py" "$src/python/shoal" "$src/python/src" "$tmp/pkg/"
"$py" -m pip install --no-build-isolation --no-index "$tmp/pkg" \
    >"$tmp/pip.log" 2>&1 || { cat "$tmp/pip.log"; echo "FAIL: pip install"; exit 1; }

cd "$tmp"  # nothing named shoal here: the import must come from the venv
where=$("$py" -c 'import shoal._paths, os; print(os.path.dirname(shoal._paths.__file__))')
case $where in
"$tmp/venv/"*) ;;
*) echo "FAIL: shoal imports from $where, not from the venv"; exit 1 ;;
esac

# The extension loads that libshoal through its rpath.
ext=$(ls "$where"/_core*.so)
readelf -d "$ext" | grep -E 'RPATH|RUNPATH' | grep -q "$libdir" ||
    { echo "FAIL: $ext has no rpath to $libdir:"; readelf -d "$ext" | grep -E 'RPATH|RUNPATH'; exit 1; }

awk '/^## A first program/{f=1} f&&/^```python/{p=1;next} p&&/^```/{exit} p' \
    "$src/docs/python.md" >prog.py
[ -s prog.py ] || { echo "FAIL: no first program in docs/python.md"; exit 1; }
"$py" -m shoal.run -n 2 --timeout 90 prog.py >out.txt 2>&1 ||
    { cat out.txt; echo "FAIL: python -m shoal.run -n 2 prog.py"; exit 1; }
cat out.txt
# PE 0 holds PE 1's 1.5 in all 8 elements, PE 1 holds PE 0's 0.5.
grep -Eq '^0 \[1\.5( 1\.5){7}\]$' out.txt || { echo "FAIL: PE 0's line"; exit 1; }
grep -Eq '^1 \[0\.5( 0\.5){7}\]$' out.txt || { echo "FAIL: PE 1's line"; exit 1; }

"$py" -m shoal >info.txt 2>&1 || { cat info.txt; echo "FAIL: python -m shoal"; exit 1; }
cat info.txt
grep -q "^shoal $version\$" info.txt || { echo "FAIL: python -m shoal: not version $version"; exit 1; }
grep -q "library: $libdir/libshoal.so.* (Shoal $version, OpenSHMEM 1\.5)" info.txt ||
    { echo "FAIL: python -m shoal: not this build's libshoal"; exit 1; }
grep -q "^Build: version $version" info.txt || { echo "FAIL: python -m shoal: no build info"; exit 1; }

"$py" -c "
import shoal
v = shoal.__version__
assert v == '$version', (v, '$version')
assert shoal.info()[2] == 'Shoal ' + v, shoal.info()
print('__version__', v)
"

# The launcher process is no PE: with a config store that cannot be reached in
# its environment, importing the library would fail; shoal.run -V must not.
SHOAL_RANK=0 SHOAL_NPES=2 SHOAL_STORE=127.0.0.1:1 "$py" -m shoal.run -V >v.txt 2>&1 ||
    { cat v.txt; echo "FAIL: the launcher process initialized the library"; exit 1; }
grep -q "^shoalrun (Shoal) $version\$" v.txt || { cat v.txt; echo "FAIL: shoalrun -V"; exit 1; }

# --tag-output is shoalrun's, unknown to shoal.run: passed through.
"$py" -m shoal.run -n 2 --tag-output -c 'import shoal; print("pe", shoal.my_pe(), shoal.n_pes())' \
    >tag.txt 2>&1 || { cat tag.txt; echo "FAIL: -c with --tag-output"; exit 1; }
cat tag.txt
[ "$(grep -c 'pe [01] 2$' tag.txt)" = 2 ] || { echo "FAIL: two PEs should print"; exit 1; }
grep -q '^\[PE 1\] pe 1 2$' tag.txt || { echo "FAIL: output not tagged"; exit 1; }
echo "PASS"
