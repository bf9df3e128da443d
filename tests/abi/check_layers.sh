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
# The order is tests/abi/layers.order. Prints every violation (file:line and
# the include) and exits 1 if any.
set -eu
src=${1:?usage: check_layers.sh SRC_DIR}
order=$(grep -v '^#' "$(dirname "$0")/layers.order")
# The layers a file of layer $1 may include: its own and those below.
allowed() {
    out=""
    for l in $order; do
        out="$out $l"
        [ "$l" = "$1" ] && { echo "$out"; return; }
    done
    echo ""
}
bad=0
checked=0
for f in $(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
    layer=${f%%/*}
    ok=$(allowed "$layer")
    [ -n "$ok" ] || { echo "check_layers: $f is in no known layer ($layer)"; bad=1; continue; }
    checked=$((checked + 1))
    # An include that climbs out of its folder would dodge the matrix below.
    grep -n '^#include "\.\./' "$src/$f" | sed "s|^|check_layers: $f:|; s|\$|: name the header from src/ (layer/file.h)|"
    grep -n '^#include "[a-z_]*/' "$src/$f" | while IFS= read -r line; do
        inc=$(echo "$line" | sed 's/^[0-9]*:#include "\([a-z_]*\)\/.*/\1/')
        case " $ok " in
        *" $inc "*) ;;
        *) echo "check_layers: $f:${line%%:*}: layer $layer must not include $inc: ${line#*:}" ;;
        esac
    done
done >"${TMPDIR:-/tmp}/check_layers.$$"
if [ -s "${TMPDIR:-/tmp}/check_layers.$$" ]; then
    cat "${TMPDIR:-/tmp}/check_layers.$$"
    bad=1
fi
rm -f "${TMPDIR:-/tmp}/check_layers.$$"
[ "$bad" -eq 0 ] && echo "check_layers: $checked files ($(cd "$src" && find util -name '*.[ch]' | wc -l) of util, $(cd "$src" && find bootstrap/store -name '*.[ch]' | wc -l) of bootstrap/store), no include crosses a layer upwards"
exit "$bad"
