#!/bin/sh
# The offline viewer: trace_prog's trace at 4 PEs, turned by `shoal-trace
# view` into one HTML page; the page must embed the whole trace.json, and
# headless Chromium (Debian's `chromium`, if installed; else the test is
# skipped, exit 77, after the checks that need no browser) must run its
# script and draw every PE's track, every call and every signal arrow.
# Usage: run_view.sh SHOALRUN TRACE_PROG SHOAL_TRACE_TOOL NPES
set -u
shoalrun=$1 prog=$2 tool=$3 npes=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$work" && SHOAL_TRACE=$work/t timeout 120 "$shoalrun" -n "$npes" --timeout 100 "$prog") \
    >"$work/out" 2>&1 || { cat "$work/out"; fail "trace_prog exited $?"; }
"$tool" view "$work/t" || fail "shoal-trace view failed"
[ -s "$work/t/trace.html" ] || fail "no trace.html"
# The embedded trace is trace.json itself.
/usr/bin/python3 - "$work/t" <<'PY' || fail "trace.html does not embed trace.json"
import json, sys
d = sys.argv[1]
html = open(f"{d}/trace.html").read()
start = html.index("const TRACE=\n") + len("const TRACE=\n")
embedded = json.loads(html[start:html.index(";\n</script>", start)].replace("<\\/", "</"))
assert embedded == json.load(open(f"{d}/trace.json")), "differs"
PY
count() { # PH: the events of that phase in trace.json
    /usr/bin/python3 -c 'import json,sys; print(sum(1 for x in json.load(open(sys.argv[1]))["traceEvents"] if x.get("ph")==sys.argv[2]))' "$work/t/trace.json" "$1"
}
nx=$(count X) nflows=$(count s)
command -v chromium >/dev/null || { echo "SKIP: no chromium to render trace.html (apt-get install chromium)"; exit 77; }
HOME=$work timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1000,240 \
    --dump-dom "file://$work/t/trace.html" >"$work/dom" 2>"$work/chromium.err" ||
    { tail -5 "$work/chromium.err"; fail "chromium could not render trace.html"; }
want="Shoal trace: $npes PEs, $nx calls, $nflows signal arrows"
grep -q "$want" "$work/dom" || { head -c 600 "$work/dom"; fail "the page does not say '$want'"; }
for pe in $(seq 0 $((npes - 1))); do
    grep -q ">PE $pe</text>" "$work/dom" || fail "no track PE $pe"
done
echo "rendered: $want"
echo PASS
