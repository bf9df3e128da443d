#!/bin/bash
# startup.sh: how long a job takes to start, by job size.
#
# Runs build/bench/hello (init, one reduction, barrier, finalize) K times per job
# size and reports, as medians over the runs:
#   init_ms  launch to the last PE leaving shmem_init (hello prints it, from
#            SHOAL_BENCH_T0_NS = the realtime clock just before the launch)
#   exit_ms  launch to the launcher's exit (the whole job's wall clock)
# under shoalrun for each -n (default 2 8 64 256 1024), then for a pretend
# cluster of 16 network-namespace hosts x 2 PEs (tests/netns/netns_job.sh,
# config store bootstrap with TLS, UCX over TCP between hosts). The netns
# exit time includes making and removing the namespaces; the "netns setup"
# row (the same script running /bin/true) shows that part alone.
#
# Usage: bench/drivers/startup.sh [--build DIR] [--runs K] [--timeout S]
#                         [--npes "2 8 64"] [--no-netns] [--log DIR] [--info]
#   --info   run with SHOAL_LOG_LEVEL=2 and keep PE 0's init timing line
#            and the store's request counter in the log
# Output: a markdown table on stdout; raw output of every run under --log
# (default /tmp/shoal-startup.XXXX, outside the repository).
set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$(dirname "$HERE")")
BUILD=$ROOT/build-dev
RUNS=3
TIMEOUT=300
NPES_LIST="2 8 64 256 1024"
NETNS=1
LOG=""
INFO=0
while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --npes) NPES_LIST=$2; shift 2 ;;
    --no-netns) NETNS=0; shift ;;
    --log) LOG=$2; shift 2 ;;
    --info) INFO=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "startup.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
SHOALRUN=$BUILD/tools/shoalrun
HELLO=$BUILD/bench/hello
for f in "$SHOALRUN" "$HELLO"; do
    [ -x "$f" ] || { echo "startup.sh: $f is missing; build first (or give --build DIR)" >&2; exit 2; }
done
[ -n "$LOG" ] || LOG=$(mktemp -d /tmp/shoal-startup.XXXX)
mkdir -p "$LOG"
ENVS=()
[ "$INFO" = 1 ] && ENVS=(SHOAL_LOG_LEVEL=2)

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run LABEL CMD...: K runs; prints "init_ms exit_ms failures" medians.
run() {
    local label=$1; shift
    local inits=() exits=() fails=0
    for k in $(seq 1 "$RUNS"); do
        local out=$LOG/$label.run$k.log
        local t0 t1 rc
        t0=$(date +%s%N)
        env SHOAL_BENCH_T0_NS="$t0" "${ENVS[@]}" "$@" >"$out" 2>&1
        rc=$?
        t1=$(date +%s%N)
        echo "# rc=$rc wall_ns=$((t1 - t0))" >>"$out"
        if [ "$rc" != 0 ]; then
            fails=$((fails + 1))
            continue
        fi
        exits+=("$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.1f", d / 1e6 }')")
        local i
        i=$(awk '/# init_done_ms/ { print $NF }' "$out")
        [ -n "$i" ] && inits+=("$i")
    done
    printf '%s %s %s\n' "$(printf '%s\n' "${inits[@]}" | grep . | median)" \
        "$(printf '%s\n' "${exits[@]}" | grep . | median)" "$fails"
}

echo "| job | runs | init_ms (median) | exit_ms (median) | failed runs |"
echo "|---|---|---|---|---|"
for n in $NPES_LIST; do
    read -r i e f < <(run "shoalrun-n$n" timeout "$TIMEOUT" "$SHOALRUN" -n "$n" --timeout "$TIMEOUT" "$HELLO")
    echo "| shoalrun -n $n | $RUNS | $i | $e | $f |"
done
if [ "$NETNS" = 1 ]; then
    NJ=$ROOT/tests/netns/netns_job.sh
    NENV=()
    [ "$INFO" = 1 ] && NENV=(--env SHOAL_LOG_LEVEL=2)
    read -r i e f < <(run netns-16x2 "$NJ" --timeout "$TIMEOUT" "${NENV[@]}" 16 2 "$HELLO")
    echo "| netns 16 hosts x 2 PEs | $RUNS | $i | $e | $f |"
    read -r i e f < <(run netns-setup "$NJ" --timeout "$TIMEOUT" 16 2 /bin/true)
    echo "| netns setup only (/bin/true) | $RUNS | - | $e | $f |"
fi
echo
echo "raw logs: $LOG"
