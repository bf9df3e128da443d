#!/usr/bin/env bash
# callgrind.sh: instructions per call of Shoal's hot operations, counted by
# valgrind's callgrind (repeatable on the project's machines, unlike times).
#
# Builds bench/programs/callgrind_ops.c with shoalcc, runs it at 2 PEs under
# shoalrun with every PE in callgrind (each pinned to its own CPU by
# bind.sh, so the waits do not spin on a shared CPU), and prints a Markdown
# table: per op, the inclusive instruction count of its op_<name> function
# divided by the calls it made, for PE 0 and PE 1.  One-sided ops run on
# PE 0 only.  Barrier and collective counts include the polls of the waits,
# so they vary from run to run; the rest do not.
#
# usage: bench/drivers/callgrind.sh [--shoalcc PATH] [--out FILE] [--keep DIR]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # bench/drivers
bench=$(dirname "$here")
repo=$(dirname "$bench")
SHOALCC=${SHOALCC:-$repo/build/tools/shoalcc}
OUT=""
KEEP=""
while [ $# -gt 0 ]; do
    case "$1" in
    --shoalcc) SHOALCC=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "callgrind.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
command -v valgrind >/dev/null || "$repo/scripts/setup.sh" valgrind
SHOALRUN=$(dirname "$SHOALCC")/shoalrun

work=${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/shoal-callgrind.XXXXXX")}
mkdir -p "$work"
[ -n "$KEEP" ] || trap 'rm -rf "$work"' EXIT

flags=()
mapfile -t probes < <(sed -n 's/^#ifdef PROBE_\([A-Z0-9_]*\).*/\1/p' "$bench/programs/probes.c")
for p in "${probes[@]}"; do
    if "$SHOALCC" -O0 -Werror=implicit-function-declaration "-DPROBE_$p" -o "$work/probe" \
            "$bench/programs/probes.c" >/dev/null 2>&1; then
        flags+=("-DBENCH_HAVE_$p=1")
    else
        flags+=("-DBENCH_HAVE_$p=0")
    fi
done
"$SHOALCC" -O2 -g "${flags[@]}" -o "$work/callgrind_ops" "$bench/programs/callgrind_ops.c"
"$SHOALRUN" -n 2 --timeout 600 "$here/bind.sh" valgrind --tool=callgrind \
    --callgrind-out-file="$work/callgrind.out.pe%q{SHOAL_RANK}" "$work/callgrind_ops" \
    >"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; exit 1; }

src=$(sed -n 's/^Shoal_SOURCE_DIR:STATIC=//p' "$(dirname "$SHOALCC")/../CMakeCache.txt" 2>/dev/null || true)

# "pe name instructions" for every op_<name> function, from the inclusive counts.
for pe in 0 1; do
    callgrind_annotate --inclusive=yes "$work/callgrind.out.pe$pe" 2>/dev/null |
        sed -n 's/^ *\([0-9,]*\) .*callgrind_ops.c:op_\([a-z0-9_]*\)[.a-z0-9]* .*/\2 \1/p' |
        tr -d , | sed "s/^/$pe /"
done >"$work/counts.txt"

# The ops in source order, each with its number of calls (N or N_COLL there).
n=$(sed -n 's/^#define N \([0-9]*\)L.*/\1/p' "$bench/programs/callgrind_ops.c")
n_coll=$(sed -n 's/^#define N_COLL \([0-9]*\)L.*/\1/p' "$bench/programs/callgrind_ops.c")
# (Each definition spans lines since clang-format: the name, then the loop.)
awk '/^OP static .* op_[a-z0-9_]*\(/ { match($0, /op_[a-z0-9_]*\(/)
                                       name = substr($0, RSTART + 3, RLENGTH - 4); next }
     name != "" && /i < N_COLL;/ { print name, "N_COLL"; name = ""; next }
     name != "" && /i < N;/ { print name, "N"; name = "" }' \
    "$bench/programs/callgrind_ops.c" >"$work/ops.txt"

{
    echo "# Instructions per call (callgrind, 2 PEs)"
    echo
    echo "shoal: $(git -C "${src:-$repo}" rev-parse --short HEAD 2>/dev/null || echo '?')" \
        "($SHOALCC), $(valgrind --version)"
    echo
    echo "| op | PE 0 | PE 1 |"
    echo "|---|---:|---:|"
    awk -v n="$n" -v nc="$n_coll" '
        NR == FNR { c[$2, $1] = $3; next }
        { calls = ($2 == "N_COLL") ? nc : n
          a = (($1, 0) in c) ? sprintf("%.0f", c[$1, 0] / calls) : "—"
          b = (($1, 1) in c) ? sprintf("%.0f", c[$1, 1] / calls) : "—"
          printf "| %s | %s | %s |\n", $1, a, b }' "$work/counts.txt" "$work/ops.txt"
} | if [ -n "$OUT" ]; then tee "$OUT"; else cat; fi
