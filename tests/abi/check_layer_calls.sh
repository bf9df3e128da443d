#!/bin/sh
# check_layer_calls.sh OBJ_DIR: the layer order of docs/architecture.md,
# checked on the compiled objects rather than the includes (check_layers.sh):
# no object of a layer refers to a symbol that an object of a layer above
# it defines (a call, or a read of its data), whatever header declared it.
#   util < mem < bootstrap < transport < device < core < coll < api
# OBJ_DIR holds the library's objects, one folder per layer (CMake's
# src/CMakeFiles/shoal.dir); util lives in its own library and is below
# everything. Fails when a layer has no objects, so a changed build layout
# cannot make it pass by finding nothing. Prints every violation.
set -eu
dir=${1:?usage: check_layer_calls.sh OBJ_DIR}
# The order (tests/abi/layers.order) without util, which is another library.
layers=$(grep -v '^#' "$(dirname "$0")/layers.order" | sed 's/\butil\b *//')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for l in $layers; do
    objs=$(find "$dir/$l" -name '*.o' 2>/dev/null | sort)
    [ -n "$objs" ] || { echo "check_layer_calls: no objects of layer $l under $dir"; exit 1; }
    # shellcheck disable=SC2086  # one word per object
    nm --defined-only $objs | awk 'NF == 3 && $2 ~ /^[TDBRVWG]$/ { print $3 }' | sort -u >"$work/def.$l"
    # shellcheck disable=SC2086
    nm -u $objs | awk 'NF >= 2 && $1 == "U" { print $2 }' | sort -u >"$work/use.$l"
done
bad=0 below=""
for l in $layers; do
    for lower in $below; do
        # What `lower` uses that `l`, above it, defines.
        comm -12 "$work/use.$lower" "$work/def.$l" >"$work/cross"
        if [ -s "$work/cross" ]; then
            sed "s/^/check_layer_calls: layer $lower uses $l's /" "$work/cross"
            bad=1
        fi
    done
    below="$below $l"
done
[ "$bad" -eq 0 ] && echo "check_layer_calls: no object of $layers uses a symbol of a layer above it"
exit "$bad"
