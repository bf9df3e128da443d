#!/bin/sh
# Type-checks the Python examples (examples/python/*.py and the first program
# of docs/python.md) with mypy against shoal's stubs (python/shoal/*.pyi), then
# checks that mypy rejects a program with wrong calls: an unknown keyword, an
# op and a cmp that are not ones shoal takes, a shoal.torch call (torch.pyi). Exit 77 (skipped) without mypy.
# Usage: mypy_examples.sh PYTHON SOURCE_DIR PACKAGE_PARENT_DIR
set -eu
python=$1 src=$2 pkgdir=$3
if ! "$python" -m mypy --version >/dev/null 2>&1; then
    echo "SKIPPED: $python has no mypy (Debian: apt-get install python3-mypy)"
    exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^## A first program/{f=1} f&&/^```python/{p=1;next} p&&/^```/{exit} p' \
    "$src/docs/python.md" > "$tmp/doc_first_program.py"
[ -s "$tmp/doc_first_program.py" ] || { echo "no first program in docs/python.md"; exit 1; }
export MYPYPATH="$pkgdir"
conf="$src/tests/python/mypy.ini"

echo "== the examples, against the stubs"
"$python" -m mypy --config-file "$conf" "$src"/examples/python/*.py "$tmp/doc_first_program.py"

echo "== a program with wrong calls must fail"
cat > "$tmp/wrong_calls.py" <<'PY'
import numpy as np
import shoal

a = shoal.zeros(4, np.int64)
shoal.put(a, a, pee=1)
shoal.reduce(a, a, op="mean")
shoal.wait_until(a, "=>", 0)
shoal.TEAM_WORLD.split_strided(start=0, stride=1, sizes=1)
import shoal.torch as st
st.full_like(a, 1, fill=2)
PY
if "$python" -m mypy --config-file "$conf" "$tmp/wrong_calls.py" > "$tmp/out" 2>&1; then
    cat "$tmp/out"; echo "FAIL: mypy accepted the wrong calls"; exit 1
fi
cat "$tmp/out"
for want in 'wrong_calls.py:5: error: Unexpected keyword argument "pee"' \
            'wrong_calls.py:6: error: Argument "op" to "reduce"' \
            'wrong_calls.py:7: error: Argument 2 to "wait_until"' \
            'wrong_calls.py:8: error: Unexpected keyword argument "sizes"' \
            'wrong_calls.py:10: error: Unexpected keyword argument "fill" for "full_like"'; do
    grep -qF "$want" "$tmp/out" || { echo "FAIL: no error like: $want"; exit 1; }
done
echo "PASS: examples type-check; the 5 wrong calls are reported"
