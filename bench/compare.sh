#!/usr/bin/env bash
# compare.sh: runs Shoal's micro-benchmarks under Shoal and under Open MPI's
# OSHMEM side by side and writes a Markdown comparison.
#
# Every program in bench/ is built twice from the same source, once with
# shoalcc and once with oshcc.  Runs alternate A B A B (Shoal, OSHMEM) for K
# rounds so that a burst of noise on this shared machine hits both sides
# alike; within a run each program already reports a median over several
# timed rounds, and the table shows the median of those over the K runs.
# The whole-job wall time of a hello program (launch, init, barrier,
# finalize, exit) is measured here, around the launcher.
#
# Outputs: bench/results/latest.md (the tables, with the commands at the
# top) and bench/results/latest.raw.txt (every output line, tagged).
# --quick builds and runs everything once at tiny sizes to prove it works;
# it makes no timing claims and writes bench/results/quick.md instead.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")

usage() {
    cat <<EOF
usage: bench/compare.sh [options]
  --shoalcc PATH    Shoal compiler wrapper (env SHOALCC; default build/tools/shoalcc)
  --shoalrun PATH   Shoal launcher (env SHOALRUN; default: shoalrun next to shoalcc)
  --oshcc PATH      OSHMEM compiler wrapper (env OSHCC; default oshcc)
  --oshrun PATH     OSHMEM launcher (env OSHRUN; default oshrun)
  -k K              runs per measurement and side (env K; default 5)
  --quick           build and run everything once at tiny sizes, no timing claims
  --only SIDE       run one side only: shoal or oshmem
  --timeout S       seconds before one run is killed (default 180)
  --out FILE        results file (default bench/results/latest.md, quick.md with --quick)
  --workdir DIR     keep binaries and raw outputs in DIR (default: a temporary folder)
  -h, --help        this text
EOF
}

SHOALCC=${SHOALCC:-$repo/build/tools/shoalcc}
SHOALRUN=${SHOALRUN:-}
OSHCC=${OSHCC:-oshcc}
OSHRUN=${OSHRUN:-oshrun}
K=${K:-5}
QUICK=0
ONLY=""
RUN_TIMEOUT=180
OUT=""
WORK=""

INVOCATION="bench/compare.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case "$1" in
    --shoalcc) SHOALCC=$2; shift 2 ;;
    --shoalrun) SHOALRUN=$2; shift 2 ;;
    --oshcc) OSHCC=$2; shift 2 ;;
    --oshrun) OSHRUN=$2; shift 2 ;;
    -k) K=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

case "$ONLY" in ""|shoal|oshmem) ;; *) echo "compare.sh: --only takes shoal or oshmem" >&2; exit 2 ;; esac
case "$K" in ''|*[!0-9]*|0) echo "compare.sh: -k needs a positive integer" >&2; exit 2 ;; esac
command -v python3 >/dev/null || { echo "compare.sh: python3 is needed to summarize" >&2; exit 2; }

abspath() { case "$1" in /*) echo "$1" ;; */*) echo "$PWD/$1" ;; *) command -v "$1" || echo "$1" ;; esac; }
SHOALCC=$(abspath "$SHOALCC")
[ -n "$SHOALRUN" ] || SHOALRUN=$(dirname "$SHOALCC")/shoalrun
SHOALRUN=$(abspath "$SHOALRUN")
OSHCC=$(abspath "$OSHCC")
OSHRUN=$(abspath "$OSHRUN")

if [ "$QUICK" = 1 ]; then
    K=1
    OUT=${OUT:-$here/results/quick.md}
    PROG_ARGS=(--quick)
else
    OUT=${OUT:-$here/results/latest.md}
    PROG_ARGS=()
fi
mkdir -p "$(dirname "$OUT")"

if [ -z "$WORK" ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/shoal-bench.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

SIDES=()
[ "$ONLY" = oshmem ] || SIDES+=(shoal)
[ "$ONLY" = shoal ] || SIDES+=(oshmem)

PROGRAMS=(lat_rma lat_amo pingpong bw_put lat_barrier hello)
CFLAGS=(-O2)

# Open MPI 4.1.4's one-sided MPI component osc/rdma crashes in MPI_Finalize
# here (every OSHMEM job ends in SIGSEGV); OSHMEM does not use it, so it is
# switched off.  As root, Open MPI refuses to start without the first flag,
# and with more PEs than cores without the second.
OSHRUN_FLAGS=(--allow-run-as-root --oversubscribe --mca osc ^rdma)

compiler_of() { if [ "$1" = shoal ]; then echo "$SHOALCC"; else echo "$OSHCC"; fi; }

# launch_cmd SIDE NPES: the launcher prefix, one word per line.
launch_cmd() {
    if [ "$1" = shoal ]; then
        printf '%s\n' "$SHOALRUN" -n "$2" --timeout "$RUN_TIMEOUT"
    else
        printf '%s\n' "$OSHRUN" "${OSHRUN_FLAGS[@]}" -np "$2"
    fi
}

printf 'invocation: %s\n' "$INVOCATION" >"$WORK/commands.txt"
note_cmd() { printf '%s\n' "$*" >>"$WORK/commands.txt"; }

# ---- build -----------------------------------------------------------------
for side in "${SIDES[@]}"; do
    cc=$(compiler_of "$side")
    mkdir -p "$WORK/bin/$side" "$WORK/raw/$side"
    note_cmd "build ($side): $cc ${CFLAGS[*]} -o $side/PROG bench/PROG.c"
    for prog in "${PROGRAMS[@]}"; do
        status="$WORK/bin/$side/$prog.build"
        if [ ! -x "$cc" ]; then
            echo "compiler not found: $cc" >"$status"
            continue
        fi
        if "$cc" "${CFLAGS[@]}" -o "$WORK/bin/$side/$prog" "$here/$prog.c" \
                >"$WORK/bin/$side/$prog.buildlog" 2>&1; then
            echo ok >"$status"
        else
            echo "build failed (rc=$?)" >"$status"
            sed 's/^/  /' "$WORK/bin/$side/$prog.buildlog" | head -20 >&2
        fi
    done
done

for side in "${SIDES[@]}"; do
    note_cmd "run ($side): $(launch_cmd "$side" N | tr '\n' ' ')PROG${PROG_ARGS[*]:+ ${PROG_ARGS[*]}}"
done
note_cmd "job wall time: date +%s%N around the same launcher running bench/hello.c"

# ---- run -------------------------------------------------------------------
# run_one SIDE PROG NPES REP: one job; stdout, stderr and exit status kept.
run_one() {
    local side=$1 prog=$2 npes=$3 rep=$4
    local bin="$WORK/bin/$side/$prog" base="$WORK/raw/$side/$prog.np$npes.rep$rep"
    local -a cmd
    mapfile -t cmd < <(launch_cmd "$side" "$npes")
    [ "$(cat "$WORK/bin/$side/$prog.build")" = ok ] || return 0
    local rc=0 t0 t1
    t0=$(date +%s%N)
    if [ "$prog" = hello ]; then
        timeout -k 10 "$((RUN_TIMEOUT + 15))" "${cmd[@]}" "$bin" >"$base.out" 2>"$base.err" || rc=$?
    else
        timeout -k 10 "$((RUN_TIMEOUT + 15))" "${cmd[@]}" "$bin" "${PROG_ARGS[@]}" \
            >"$base.out" 2>"$base.err" || rc=$?
    fi
    t1=$(date +%s%N)
    echo "$rc" >"$base.rc"
    if [ "$prog" = hello ] && [ "$rc" = 0 ]; then
        awk -v n="$npes" -v us="$(( (t1 - t0) / 1000 ))" \
            'BEGIN { printf "bench=job_wall op=hello size=0 npes=%d usec=%d\n", n, us }' >>"$base.out"
    fi
    printf '  %-6s %-11s np=%-2s rep=%s rc=%s %6.2fs\n' "$side" "$prog" "$npes" "$rep" "$rc" \
        "$(awk -v d="$(( t1 - t0 ))" 'BEGIN { print d / 1e9 }')"
}

# The configurations: every program at 2 PEs; the barrier and hello also
# at 4 and 8 (more PEs than cores here, which is part of what they measure).
CONFIGS=()
for prog in lat_rma lat_amo pingpong bw_put; do CONFIGS+=("$prog 2"); done
for n in 2 4 8; do CONFIGS+=("lat_barrier $n"); done
for n in 2 4 8; do CONFIGS+=("hello $n"); done

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load before: $(loadavg)" >"$WORK/load.txt"
start=$(date +%s)
for rep in $(seq 1 "$K"); do
    echo "round $rep of $K"
    for cfg in "${CONFIGS[@]}"; do
        read -r prog npes <<<"$cfg"
        for side in "${SIDES[@]}"; do
            run_one "$side" "$prog" "$npes" "$rep"
        done
    done
done
echo "load after: $(loadavg)" >>"$WORK/load.txt"
echo "elapsed: $(( $(date +%s) - start )) s" >>"$WORK/load.txt"

# ---- summarize ---------------------------------------------------------------
{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "host: $(uname -srm), $(nproc) cores"
    echo "shoal: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 'no commit') ($SHOALCC)"
    echo "oshmem: $("$OSHRUN" --version 2>/dev/null | head -1 || true)"
    echo "ucx (Debian libucx0): $(dpkg-query -W -f '${Version}' libucx0 2>/dev/null || true)"
    cat "$WORK/load.txt"
} >"$WORK/env.txt"

quick_flag=()
[ "$QUICK" = 1 ] && quick_flag=(--quick)
status=0
python3 "$here/summarize.py" --work "$WORK" --k "$K" --out "$OUT" \
    --sides "${SIDES[*]}" "${quick_flag[@]}" || status=$?
echo "wrote $OUT and ${OUT%.md}.raw.txt"
exit $status
