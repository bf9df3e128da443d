#!/usr/bin/env bash
# compare.sh: runs Shoal's micro-benchmarks under Shoal and under Open MPI's
# OSHMEM side by side, next to probes of the machine's limits, and writes a
# Markdown comparison and PNG plots.
#
# Every SHMEM program in bench/programs/ is built twice from the same source, once
# with shoalcc and once with oshcc; which optional calls each implementation
# has is found by compiling the probes in probes.c first.  The two limit
# probes (limit_line.c, limit_memcpy.c) are plain C built with cc.  Each
# round runs the limit probes, then every configuration alternately under
# Shoal and OSHMEM (A B A B), K rounds in all, so that a burst of noise on
# this shared machine hits both sides alike; within a run each program
# already reports a median over several timed rounds, and the table shows the
# median of those over the K runs.  The whole-job wall time of a hello
# program (launch, init, barrier, finalize, exit) is measured here, around
# the launcher.
#
# Outputs: bench/results/latest.md (tables, targets, commands and machine at
# the top), latest.raw.txt (every output line, tagged) and latest-*.png.
# --quick builds and runs everything once at tiny sizes to prove it works;
# it makes no timing claims and writes bench/results/quick.* instead.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # bench/drivers
bench=$(dirname "$here")
repo=$(dirname "$bench")

usage() {
    cat <<EOF
usage: bench/drivers/compare.sh [options]
  --shoalcc PATH    Shoal compiler wrapper (env SHOALCC; default build/tools/shoalcc,
                    built with scripts/build.sh when it is missing)
  --shoalrun PATH   Shoal launcher (env SHOALRUN; default: shoalrun next to shoalcc)
  --oshcc PATH      OSHMEM compiler wrapper (env OSHCC; default oshcc)
  --oshrun PATH     OSHMEM launcher (env OSHRUN; default oshrun)
  -k K              runs per measurement and side (env K; default 5)
  --quick           build and run everything once at tiny sizes, no timing claims
  --only SIDE       run one side only: shoal or oshmem (the limits always run)
  --coll-npes LIST  PE counts for the collectives (env COLL_NPES; default "2 4")
  --progs LIST      run only these programs (comma-separated, e.g. pingpong,lat_barrier;
                    default all); the limit probes always run
  --timeout S       seconds before one run is killed (default 180)
  --out FILE        results file (default bench/results/latest.md, quick.md with --quick)
  --workdir DIR     keep binaries and raw outputs in DIR (default: a temporary folder)
  --shoal-launch L  how Shoal's PEs start: default (shoalrun as it is: one PE per
                    free CPU when they fit), core (shoalrun --bind-to core), none
                    (shoalrun --bind-to none), mpirun (Open MPI's mpirun, PMIx
                    bootstrap; it binds ranks to cores at 2 PEs)
  --no-install      do not install missing packages (openmpi-bin libopenmpi-dev gnuplot-nox)
  -h, --help        this text
EOF
}

DEFAULT_SHOALCC=$repo/build/tools/shoalcc
SHOALCC=${SHOALCC:-$DEFAULT_SHOALCC}
SHOALRUN=${SHOALRUN:-}
OSHCC=${OSHCC:-oshcc}
OSHRUN=${OSHRUN:-oshrun}
K=${K:-5}
COLL_NPES=${COLL_NPES:-2 4}
QUICK=0
PROGS=""
ONLY=""
RUN_TIMEOUT=180
OUT=""
WORK=""
INSTALL=1
SHOAL_LAUNCH=default

INVOCATION="bench/drivers/compare.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case "$1" in
    --shoalcc) SHOALCC=$2; shift 2 ;;
    --shoalrun) SHOALRUN=$2; shift 2 ;;
    --oshcc) OSHCC=$2; shift 2 ;;
    --oshrun) OSHRUN=$2; shift 2 ;;
    -k) K=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --only) ONLY=$2; shift 2 ;;
    --coll-npes) COLL_NPES=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    --shoal-launch) SHOAL_LAUNCH=$2; shift 2 ;;
    --progs) PROGS=$2; shift 2 ;;
    --shoal-bind) SHOAL_LAUNCH=core; shift ;; # the older spelling
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

case "$SHOAL_LAUNCH" in default|core|none|mpirun) ;; *) echo "compare.sh: --shoal-launch takes default, core, none or mpirun" >&2; exit 2 ;; esac
case "$ONLY" in ""|shoal|oshmem) ;; *) echo "compare.sh: --only takes shoal or oshmem" >&2; exit 2 ;; esac
case "$K" in ''|*[!0-9]*|0) echo "compare.sh: -k needs a positive integer" >&2; exit 2 ;; esac
for n in $COLL_NPES; do
    case "$n" in *[!0-9]*|0) echo "compare.sh: --coll-npes takes PE counts" >&2; exit 2 ;; esac
done

# ---- what this needs ----------------------------------------------------------
# OSHMEM (openmpi-bin, libopenmpi-dev) and gnuplot are installed through the
# project's setup script when missing, as on a fresh machine.
want=()
if [ "$ONLY" != shoal ]; then
    command -v "$OSHCC" >/dev/null || want+=(openmpi-bin libopenmpi-dev)
    command -v "$OSHRUN" >/dev/null || want+=(openmpi-bin)
fi
command -v gnuplot >/dev/null || want+=(gnuplot-nox)
command -v python3 >/dev/null || want+=(python3)
if [ ${#want[@]} -gt 0 ]; then
    if [ "$INSTALL" = 1 ] && command -v dpkg >/dev/null; then
        echo "compare.sh: installing ${want[*]}"
        "$repo/scripts/setup.sh" "${want[@]}"
    else
        echo "compare.sh: missing ${want[*]}; carrying on without" >&2
    fi
fi
command -v python3 >/dev/null || { echo "compare.sh: python3 is needed to summarize" >&2; exit 2; }

if [ "$ONLY" != oshmem ] && [ ! -x "$SHOALCC" ] && [ "$SHOALCC" = "$DEFAULT_SHOALCC" ]; then
    echo "compare.sh: no $SHOALCC yet; building Shoal with scripts/build.sh"
    "$repo/scripts/setup.sh"
    "$repo/scripts/build.sh"
fi

abspath() { case "$1" in /*) echo "$1" ;; */*) echo "$PWD/$1" ;; *) command -v "$1" || echo "$1" ;; esac; }
SHOALCC=$(abspath "$SHOALCC")
[ -n "$SHOALRUN" ] || SHOALRUN=$(dirname "$SHOALCC")/shoalrun
SHOALRUN=$(abspath "$SHOALRUN")
OSHCC=$(abspath "$OSHCC")
OSHRUN=$(abspath "$OSHRUN")
CC=${CC:-cc}

if [ "$QUICK" = 1 ]; then
    K=1
    OUT=${OUT:-$bench/results/quick.md}
    PROG_ARGS=(--quick)
else
    OUT=${OUT:-$bench/results/latest.md}
    PROG_ARGS=()
fi
mkdir -p "$(dirname "$OUT")"
OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")

if [ -z "$WORK" ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/shoal-bench.XXXXXX")
    trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)

SIDES=()
[ "$ONLY" = oshmem ] || SIDES+=(shoal)
[ "$ONLY" = shoal ] || SIDES+=(oshmem)

PROGRAMS=(lat_rma lat_amo pingpong bw_rma lat_barrier lat_coll hello)
LIMITS=(limit_line limit_memcpy)
CFLAGS=(-O2)
mapfile -t PROBES < <(sed -n 's/^#ifdef PROBE_\([A-Z0-9_]*\).*/\1/p' "$bench/programs/probes.c")

# Open MPI 4.1.4's one-sided MPI component osc/rdma crashes in MPI_Finalize
# here (every OSHMEM job ends in SIGSEGV); OSHMEM does not use it, so it is
# switched off.  As root, Open MPI refuses to start without the first flag,
# and with more PEs than cores without the second.
OSHRUN_FLAGS=(--allow-run-as-root --oversubscribe --mca osc ^rdma)

compiler_of() { if [ "$1" = shoal ]; then echo "$SHOALCC"; else echo "$OSHCC"; fi; }

# launch_cmd SIDE NPES: the launcher prefix, one word per line.
launch_cmd() {
    case "$1" in
    shoal)
        case "$SHOAL_LAUNCH" in
        default) printf '%s\n' "$SHOALRUN" -n "$2" --timeout "$RUN_TIMEOUT" ;;
        core | none) printf '%s\n' "$SHOALRUN" -n "$2" --bind-to "$SHOAL_LAUNCH" --timeout "$RUN_TIMEOUT" ;;
        mpirun) printf '%s\n' mpirun --allow-run-as-root --oversubscribe -np "$2" ;;
        esac
        ;;
    oshmem) printf '%s\n' "$OSHRUN" "${OSHRUN_FLAGS[@]}" -np "$2" ;;
    limit) ;; # plain programs run as they are
    esac
}

printf 'invocation: %s\n' "$INVOCATION" >"$WORK/commands.txt"

# What is measured, noted before anything runs (others may commit meanwhile).
# The library is the one shoalcc was configured from.
src=$(sed -n 's/^Shoal_SOURCE_DIR:STATIC=//p' "$(dirname "$SHOALCC")/../CMakeCache.txt" 2>/dev/null || true)
src=${src:-$repo}
dirty=""
[ -z "$(git -C "$src" status --porcelain -- src include 2>/dev/null)" ] ||
    dirty=" + uncommitted changes in src/ or include/"
bdirty=""
[ -z "$(git -C "$repo" status --porcelain -- bench ':!bench/results' 2>/dev/null)" ] ||
    bdirty=" + uncommitted changes in bench/"
{
    echo "shoal: $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo 'no commit')$dirty (source $src, $SHOALCC)"
    echo "bench: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo 'no commit')$bdirty"
} >"$WORK/versions.txt"
note_cmd() { printf '%s\n' "$*" >>"$WORK/commands.txt"; }

# ---- build -----------------------------------------------------------------
# probe_flags CC: -DBENCH_HAVE_<NAME>=0|1 for every probe in probes.c.
probe_flags() {
    local cc=$1 p
    for p in "${PROBES[@]}"; do
        if "$cc" -O0 -Werror=implicit-function-declaration "-DPROBE_$p" \
                -o "$WORK/probe" "$bench/programs/probes.c" >/dev/null 2>&1; then
            printf -- '-DBENCH_HAVE_%s=1\n' "$p"
        else
            printf -- '-DBENCH_HAVE_%s=0\n' "$p"
        fi
    done
}

# build SIDE CC PROG EXTRA_FLAGS...: one program, status in bin/SIDE/PROG.build.
build() {
    local side=$1 cc=$2 prog=$3
    shift 3
    local status="$WORK/bin/$side/$prog.build"
    if ! command -v "$cc" >/dev/null; then
        echo "compiler not found: $cc" >"$status"
    elif "$cc" "${CFLAGS[@]}" "$@" -o "$WORK/bin/$side/$prog" "$bench/programs/$prog.c" \
            >"$WORK/bin/$side/$prog.buildlog" 2>&1; then
        echo ok >"$status"
    else
        echo "build failed (rc=$?)" >"$status"
        sed 's/^/  /' "$WORK/bin/$side/$prog.buildlog" | head -20 >&2
    fi
}

for side in limit "${SIDES[@]}"; do
    mkdir -p "$WORK/bin/$side" "$WORK/raw/$side"
done
note_cmd "build (limits): $CC ${CFLAGS[*]} -o limit/PROG bench/programs/PROG.c"
for prog in "${LIMITS[@]}"; do build limit "$CC" "$prog"; done
for side in "${SIDES[@]}"; do
    cc=$(compiler_of "$side")
    flags=()
    if [ -x "$cc" ]; then
        mapfile -t flags < <(probe_flags "$cc")
    fi
    have=$(printf '%s\n' "${flags[@]}" | sed -n 's/^-DBENCH_HAVE_\(.*\)=1$/\1/p' | tr '\n' ' ')
    note_cmd "build ($side): $cc ${CFLAGS[*]} -DBENCH_HAVE_...=0|1 -o $side/PROG bench/programs/PROG.c"
    note_cmd "  probes.c found ($side): ${have:-none}"
    for prog in "${PROGRAMS[@]}"; do build "$side" "$cc" "$prog" "${flags[@]}"; done
done

for side in "${SIDES[@]}"; do
    note_cmd "run ($side): $(launch_cmd "$side" N | tr '\n' ' ')PROG${PROG_ARGS[*]:+ ${PROG_ARGS[*]}}"
done
note_cmd "run (limits): limit/PROG${PROG_ARGS[*]:+ ${PROG_ARGS[*]}}"
note_cmd "job wall time: date +%s%N around the same launcher running bench/programs/hello.c"

# ---- run -------------------------------------------------------------------
# run_one SIDE PROG NPES REP: one job; stdout, stderr and exit status kept.
run_one() {
    local side=$1 prog=$2 npes=$3 rep=$4
    local bin="$WORK/bin/$side/$prog" base="$WORK/raw/$side/$prog.np$npes.rep$rep"
    local -a cmd args=()
    mapfile -t cmd < <(launch_cmd "$side" "$npes")
    [ "$(cat "$WORK/bin/$side/$prog.build")" = ok ] || return 0
    [ "$prog" = hello ] || args=("${PROG_ARGS[@]}")
    local rc=0 t0 t1
    t0=$(date +%s%N)
    timeout -k 10 "$((RUN_TIMEOUT + 15))" "${cmd[@]}" "$bin" "${args[@]}" \
        >"$base.out" 2>"$base.err" || rc=$?
    t1=$(date +%s%N)
    echo "$rc" >"$base.rc"
    if [ "$prog" = hello ] && [ "$rc" = 0 ]; then
        awk -v n="$npes" -v us="$(( (t1 - t0) / 1000 ))" \
            'BEGIN { printf "bench=job_wall op=hello size=0 npes=%d usec=%d\n", n, us }' >>"$base.out"
    fi
    printf '  %-6s %-12s np=%-2s rep=%s rc=%s %6.2fs\n' "$side" "$prog" "$npes" "$rep" "$rc" \
        "$(awk -v d="$(( t1 - t0 ))" 'BEGIN { print d / 1e9 }')"
}

# The configurations: every program at 2 PEs; the collectives also at the
# other --coll-npes counts; the barriers and hello at 2, 4 and 8 (more PEs
# than cores here, which is part of what they measure).
CONFIGS=()
for prog in lat_rma lat_amo pingpong bw_rma; do CONFIGS+=("$prog 2"); done
for n in 2 4 8; do CONFIGS+=("lat_barrier $n"); done
for n in $COLL_NPES; do CONFIGS+=("lat_coll $n"); done
for n in 2 4 8; do CONFIGS+=("hello $n"); done
if [ -n "$PROGS" ]; then
    kept=()
    for cfg in "${CONFIGS[@]}"; do
        case ",$PROGS," in *",${cfg%% *},"*) kept+=("$cfg") ;; esac
    done
    [ ${#kept[@]} -gt 0 ] || { echo "compare.sh: --progs $PROGS names no program" >&2; exit 2; }
    CONFIGS=("${kept[@]}")
fi

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
echo "load before: $(loadavg)" >"$WORK/load.txt"
start=$(date +%s)
for rep in $(seq 1 "$K"); do
    echo "round $rep of $K (load $(loadavg))"
    echo "load at round $rep: $(loadavg)" >>"$WORK/load.txt"
    for prog in "${LIMITS[@]}"; do run_one limit "$prog" 1 "$rep"; done
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
    echo "host: $(uname -srm), $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
    cat "$WORK/versions.txt"
    echo "oshmem: $("$OSHRUN" --version 2>/dev/null | head -1 || true)"
    echo "ucx (Debian libucx0): $(dpkg-query -W -f '${Version}' libucx0 2>/dev/null || true)"
    cat "$WORK/load.txt"
} >"$WORK/env.txt"

quick_flag=()
[ "$QUICK" = 1 ] && quick_flag=(--quick)
status=0
python3 "$bench/tools/summarize.py" --work "$WORK" --k "$K" --out "$OUT" \
    --sides "${SIDES[*]}" "${quick_flag[@]}" || status=$?
echo "wrote $OUT and ${OUT%.md}.raw.txt"
if command -v gnuplot >/dev/null; then
    python3 "$bench/tools/plot.py" --raw "${OUT%.md}.raw.txt" --prefix "${OUT%.md}" || status=1
else
    echo "compare.sh: gnuplot not found, no plots" >&2
fi
exit $status
