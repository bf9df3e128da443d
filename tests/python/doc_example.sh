#!/bin/sh
# Runs the first Python block of docs/python.md ("A first program") on NPES
# PEs, so the page's example stays pasteable.
# Usage: doc_example.sh SHOALRUN PYTHON DOC NPES
set -eu
shoalrun=$1 python=$2 doc=$3 npes=$4
prog=$(mktemp --suffix=.py); trap 'rm -f "$prog"' EXIT
awk '/^## A first program/{f=1} f&&/^```python/{p=1;next} p&&/^```/{exit} p' "$doc" > "$prog"
[ -s "$prog" ] || { echo "no example found in $doc"; exit 1; }
"$shoalrun" -n "$npes" --timeout 60 "$python" "$prog"
