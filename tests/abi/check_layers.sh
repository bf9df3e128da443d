#!/bin/sh
# check_layers.sh SRC_DIR: the include matrix of docs/architecture.md.
# Each folder of src/ is a layer; a file may include headers of its own
# layer and of the layers below it, never above:
#   util       includes only util
#   mem        util
#   bootstrap  util, mem
#   transport  util, mem, bootstrap        (never device, core, coll, api)
#   device     util, mem, bootstrap, transport   (never core, coll, api)
#   core       util, mem, bootstrap, transport, device   (never coll, api)
#   coll       the above and core          (never api)
#   api        everything below
# Every file of src/ is checked, the internal libraries' too (util is
# shoal_util, bootstrap/store is shoal_store and shoal_store_logic).
# No two files of src/ share a base name. The order is tests/abi/layers.order. Prints every violation (file:line and
# the include) and exits 1 if any.
set -eu
src=${1:?usage: check_layers.sh SRC_DIR}
order=$(grep -v '^#' "$(dirname "$0")/layers.order" | tr -s ' \n' ' ')
cd "$src"
files=$(find . -name '*.[ch]' | sed 's|^\./||' | sort)
[ -n "$files" ] || { echo "check_layers: no sources under $src"; exit 1; }
# One pass over every file (a process per file took a minute on a loaded
# 2-core machine): a file's layer is its top folder; it may include its own
# layer and those before it in the order.
# shellcheck disable=SC2086  # one word per file (no blanks in src/ names)
out=$(awk -v order="$order" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    FNR == 1 {
        layer = FILENAME; sub(/\/.*/, "", layer)
        if (!(layer in rank) && !(layer in told)) {
            printf "check_layers: %s is in no known layer (%s)\n", FILENAME, layer
            told[layer] = 1
        }
    }
    /^#include "\.\.\// {
        printf "check_layers: %s:%d:%s: name the header from src/ (layer/file.h)\n", FILENAME, FNR, $0
        next
    }
    /^#include "[a-z_]*\// {
        inc = $0; sub(/^#include "/, "", inc); sub(/\/.*/, "", inc)
        if ((layer in rank) && (!(inc in rank) || rank[inc] > rank[layer]))
            printf "check_layers: %s:%d: layer %s must not include %s: %s\n", FILENAME, FNR, layer, inc, $0
    }' $files)
# A file outside every layer is an error even when it is empty (awk never
# sees an empty file's first line).
for f in $files; do
    layer=${f%%/*}
    case " $order " in *" $layer "*) ;; *) [ -s "$f" ] || out="$out
check_layers: $f is in no known layer ($layer)" ;; esac
done
# One base name, one file: two files called register.c in two layers make
# every log line, profile and grep say less than it seems.
for name in $(echo "$files" | sed 's|.*/||' | sort | uniq -d); do
    out="$out
check_layers: two files are named $name under src/: $(echo "$files" | grep "/$name\$" | tr '\n' ' ')(give each a name of its own)"
done
if [ -n "$out" ]; then
    printf '%s\n' "$out" | sed '/^$/d'
    exit 1
fi
echo "check_layers: $(echo "$files" | wc -l) files ($(echo "$files" | grep -c '^util/') of util, $(echo "$files" | grep -c '^bootstrap/store/') of bootstrap/store), no include crosses a layer upwards, no base name twice"
