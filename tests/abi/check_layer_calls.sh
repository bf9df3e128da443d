#!/bin/sh
# check_layer_calls.sh BUILD_SRC_DIR: the layer order of docs/architecture.md,
# checked on the compiled objects rather than the includes (check_layers.sh):
# no object of a layer refers to a symbol that an object of a layer above
# it defines (a call, or a read of its data), whatever header declared it.
#   util < mem < bootstrap < transport < device < core < coll < api
# BUILD_SRC_DIR is the build tree's src/ (build/src). A layer's objects are
# libshoal's objects of that folder (CMakeFiles/shoal.dir/LAYER) and those of
# every internal library or plugin built in the folder: shoal_util in util/,
# shoal_store and shoal_store_logic in bootstrap/store/, the UCX plugin in
# transport/. Fails when a layer has no objects, or when util or the store has
# none, so a changed build layout cannot make it pass by finding nothing.
# Prints every violation.
set -eu
dir=${1:?usage: check_layer_calls.sh BUILD_SRC_DIR}
layers=$(grep -v '^#' "$(dirname "$0")/layers.order")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for l in $layers; do
    # libshoal's objects of the folder, then every other target built there.
    find "$dir/CMakeFiles/shoal.dir/$l" "$dir/$l" -name '*.o' 2>/dev/null | sort -u >"$work/objs.$l"
    [ -s "$work/objs.$l" ] || { echo "check_layer_calls: no objects of layer $l under $dir"; exit 1; }
    # shellcheck disable=SC2046  # one word per object (build paths have no blanks)
    nm --defined-only $(cat "$work/objs.$l") | awk 'NF == 3 && $2 ~ /^[TDBRVWG]$/ { print $3 }' | sort -u >"$work/def.$l"
    # shellcheck disable=SC2046
    nm -u $(cat "$work/objs.$l") | awk 'NF >= 2 && $1 == "U" { print $2 }' | sort -u >"$work/use.$l"
done
# The separate libraries must be there: they are what this check once skipped.
for lib in util/CMakeFiles/shoal_util.dir bootstrap/store/CMakeFiles/shoal_store.dir \
    bootstrap/store/CMakeFiles/shoal_store_logic.dir; do
    [ -n "$(find "$dir/$lib" -name '*.o' 2>/dev/null)" ] ||
        { echo "check_layer_calls: no objects under $dir/$lib"; exit 1; }
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
counts=""
for l in $layers; do counts="$counts $l:$(wc -l <"$work/objs.$l")"; done
echo "check_layer_calls: objects per layer (libshoal, shoal_util, shoal_store, shoal_store_logic, the UCX plugin):$counts"
[ "$bad" -eq 0 ] && echo "check_layer_calls: no object of$below uses a symbol of a layer above it"
exit "$bad"
