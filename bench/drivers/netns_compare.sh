#!/usr/bin/env bash
# netns_compare.sh: Shoal against Open MPI's OSHMEM between two pretend hosts
# (network namespaces of this machine, made by tests/netns/netns_job.sh),
# both forced onto the same path: UCX over TCP through the veth `shoal0`.
#
# The same sources are built with shoalcc and with oshcc: examples/rdma_demo.c
# (put/get 8 B .. 1 MiB, fetch-add, compare-swap, put-with-signal ping-pong,
# every value checked) and, unless --no-bench, bench/programs/lat_rma.c, lat_amo.c and
# bw_rma.c.  Each of K rounds runs every program once under Shoal, then once
# under OSHMEM (interleaved, so a burst of load hits both sides), and the
# table shows the median over the K rounds of each program's own median.
#
#   Shoal:  tests/netns/netns_job.sh 2 1 PROG: one PE per namespace, config
#           store bootstrap, UCX_TLS=tcp UCX_NET_DEVICES=shoal0.
#   OSHMEM: a cluster made with netns_job.sh --up, oshrun started inside
#           host 0 with a hostfile of 10.77.0.1 and 10.77.0.2 (slots=1 each);
#           bench/drivers/rsh_netns.sh stands in for ssh and starts Open MPI's daemon
#           in host 1's namespace; OOB and the BTL are kept on shoal0, and
#           -x UCX_TLS=tcp -x UCX_NET_DEVICES=shoal0 with --mca spml ucx.
#
# Binding: each side of oshrun thinks it is alone on its "host", so its
# default binding puts both ranks on CPU 0 (each busy-polls and waits for the
# other's 4 ms time slice).  By default both run with each PE pinned to CPU
# rank % ncpu by taskset (OSHMEM with --bind-to none), as two real hosts
# would give each PE a CPU of its own.  Unpinned, the two "hosts" share this
# machine's scheduler: when a wake-up at the end of start-up puts both PEs
# on one CPU, both busy-poll, never sleep, and stay there until the load
# balancer moves one (tens of ms here), each message waiting for the other's
# time slice: Shoal's first rdma_demo row (put 8 B) took 62.7 us against
# 36-38 us for the next rows in bench/results/netns-20261202.md, and 2 runs
# in 8 of a put loop (load average ~3) stayed stacked for all of their 60 ms
# (75 us per put against 31-39).  Pinning a Shoal PE also pins its UCX progress thread to
# the same CPU (it sleeps while the PE itself progresses).  --pin oshmem
# (the old default) or none changes this.
#
# The floor: bench/programs/ucp_probe.c, plain UCP with no SHMEM library (8-byte put +
# worker flush, get, fetch-add, windows of 64 non-blocking 64 KiB gets;
# both sides busy-poll one worker), runs
# between the same two namespaces twice per round: with OSHMEM's worker
# settings (single thread, RMA and AMO64 only) and with Shoal's
# (--shoal-like: AM, AMO32 and WAKEUP too, workers shared, thread mode
# SERIALIZED, peer error handling: what its progress thread, active messages
# and failure reports need), and a second table
# sets each library against its own.
#
# Proof that OSHMEM's traffic crossed the namespaces over UCX TCP: one extra
# run with UCX_LOG_LEVEL=info (its `ep_cfg ... tcp/shoal0` lines) and the
# shoal0 byte counters of host 0 around every OSHMEM run, in the results.
#
# Outputs: bench/results/netns.md (table, commands, load averages, proof)
# and bench/results/netns.raw.txt (every output line, tagged).  The
# namespaces are removed on exit, whatever happens.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) # bench/drivers
bench=$(dirname "$here")
repo=$(dirname "$bench")
NETNS_JOB=$repo/tests/netns/netns_job.sh

usage() {
    cat <<EOF
usage: bench/drivers/netns_compare.sh [options]
  --shoalcc PATH   Shoal compiler wrapper (env SHOALCC; default build/tools/shoalcc)
  --oshcc PATH     OSHMEM compiler wrapper (env OSHCC; default oshcc)
  --oshrun PATH    OSHMEM launcher (env OSHRUN; default oshrun)
  -k K             rounds, each side once per round (env K; default 3)
  -n REPS          rdma_demo repetitions per row (default 100)
  --no-bench       rdma_demo only (skip lat_rma, lat_amo, bw_rma)
  --progs LIST     these programs instead (comma list of rdma_demo and bench/programs/ programs,
                   e.g. rdma_demo,lat_barrier)
  --quick          rdma_demo -q and the bench programs --quick, K=1 (proves it works)
  --pin SIDES      pin PEs to CPU rank % ncpu: both (default), oshmem, none
  --timeout S      seconds before one job is killed (default 240)
  --out FILE       results file (default bench/results/netns.md; raw next to it)
  --workdir DIR    keep binaries and outputs in DIR (default: a temporary folder)
  --no-install     do not apt-get install openmpi-bin libopenmpi-dev when oshcc is missing
  -h, --help       this text
EOF
}

SHOALCC=${SHOALCC:-$repo/build/tools/shoalcc}
OSHCC=${OSHCC:-oshcc}
OSHRUN=${OSHRUN:-oshrun}
K=${K:-3}
REPS=100
BENCH=1
PROGS_LIST=""
QUICK=0
PIN=both
RUN_TIMEOUT=240
OUT=$bench/results/netns.md
WORK=""
INSTALL=1
INVOCATION="bench/drivers/netns_compare.sh${*:+ $*}"
while [ $# -gt 0 ]; do
    case $1 in
    --shoalcc) SHOALCC=$2; shift 2 ;;
    --oshcc) OSHCC=$2; shift 2 ;;
    --oshrun) OSHRUN=$2; shift 2 ;;
    -k) K=$2; shift 2 ;;
    -n) REPS=$2; shift 2 ;;
    --no-bench) BENCH=0; shift ;;
    --progs) PROGS_LIST=$2; shift 2 ;;
    --quick) QUICK=1; K=1; shift ;;
    --pin) PIN=$2; shift 2 ;;
    --timeout) RUN_TIMEOUT=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --workdir) WORK=$2; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "netns_compare.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
case $PIN in oshmem | both | none) ;; *) echo "netns_compare.sh: --pin oshmem|both|none" >&2; exit 2 ;; esac
[ "$(id -u)" -eq 0 ] || { echo "netns_compare.sh: needs root (network namespaces)" >&2; exit 77; }
SHOALCC=$(realpath "$SHOALCC" 2>/dev/null) || { echo "netns_compare.sh: no shoalcc (build Shoal, or --shoalcc)" >&2; exit 2; }
[ -x "$SHOALCC" ] || { echo "netns_compare.sh: $SHOALCC is not executable" >&2; exit 2; }
# oshcc comes with openmpi-bin, shmem.h only with libopenmpi-dev.
if ! printf '#include <shmem.h>\n' | "$OSHCC" -E -x c - >/dev/null 2>&1 && [ "$INSTALL" = 1 ]; then
    echo "netns_compare.sh: installing openmpi-bin libopenmpi-dev" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openmpi-bin libopenmpi-dev >/dev/null
fi
command -v "$OSHCC" >/dev/null || { echo "netns_compare.sh: no $OSHCC" >&2; exit 2; }
OSHRUN=$(command -v "$OSHRUN") || { echo "netns_compare.sh: no oshrun" >&2; exit 2; }

NAME=ncmp$$
KEEP_WORK=1
if [ -z "$WORK" ]; then WORK=$(mktemp -d); KEEP_WORK=0; fi
mkdir -p "$WORK/shoal" "$WORK/oshmem" "$WORK/out"
WORK=$(realpath "$WORK")
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    "$NETNS_JOB" --down "$NAME" 2>/dev/null || true
    [ "$KEEP_WORK" = 1 ] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- build -------------------------------------------------------------------
PROGS=(rdma_demo)
[ "$BENCH" = 1 ] && PROGS+=(lat_rma lat_amo bw_rma)
[ -n "$PROGS_LIST" ] && IFS=, read -ra PROGS <<<"$PROGS_LIST"
src_of() { if [ "$1" = rdma_demo ]; then echo "$repo/examples/rdma_demo.c"; else echo "$bench/programs/$1.c"; fi; }
CFLAGS=(-O2)
BUILD=("${PROGS[@]}")
[[ " ${PROGS[*]} " == *" rdma_demo "* ]] || BUILD+=(rdma_demo) # the proof run uses it
for p in "${BUILD[@]}"; do
    "$SHOALCC" "${CFLAGS[@]}" -o "$WORK/shoal/$p" "$(src_of "$p")"
    "$OSHCC" "${CFLAGS[@]}" -o "$WORK/oshmem/$p" "$(src_of "$p")"
done
# shellcheck disable=SC2046  # pkg-config prints several words
cc "${CFLAGS[@]}" -o "$WORK/ucp_probe" "$bench/programs/ucp_probe.c" $(pkg-config --cflags --libs ucx)

# Arguments per program: rdma_demo's repetitions; the bench programs up to 1 MiB.
args_of() {
    case $1 in
    rdma_demo) if [ "$QUICK" = 1 ]; then printf '%s\n' -q; else printf '%s\n' "-n $REPS"; fi ;;
    *) if [ "$QUICK" = 1 ]; then printf '%s\n' --quick; else printf '%s\n' "-m 1M"; fi ;;
    esac
}

# Each PE pinned to CPU (its rank) % ncpu by bench/drivers/pin_rank.sh, the rank from either implementation.
SHOAL_WRAP=()
OSH_WRAP=()
[ "$PIN" = both ] && SHOAL_WRAP=("$here/pin_rank.sh")
[ "$PIN" != none ] && OSH_WRAP=("$here/pin_rank.sh")

# ---- the OSHMEM cluster ------------------------------------------------------
"$NETNS_JOB" --up "$NAME" 2 >/dev/null
printf '10.77.0.1 slots=1\n10.77.0.2 slots=1\n' >"$WORK/hostfile"
# shellcheck disable=SC2054  # "self,tcp" is one argument
OSHRUN_FLAGS=(--allow-run-as-root --oversubscribe -np 2 --hostfile "$WORK/hostfile" --map-by node
    --bind-to none --mca plm_rsh_agent "$here/rsh_netns.sh"
    --mca oob_tcp_if_include shoal0 --mca btl self,tcp --mca btl_tcp_if_include shoal0
    --mca spml ucx --mca osc ^rdma -x UCX_TLS=tcp -x UCX_NET_DEVICES=shoal0)
osh_run() { # osh_run PROG ARGS...: oshrun inside host 0
    SHOAL_NETNS_NAME=$NAME timeout -k 5 "$RUN_TIMEOUT" ip netns exec "$NAME-h0" \
        "$OSHRUN" "${OSHRUN_FLAGS[@]}" "$@"
}
shoal_run() { # shoal_run PROG ARGS...: a fresh cluster per job
    "$NETNS_JOB" --timeout "$RUN_TIMEOUT" 2 1 "$@"
}
shoal0_bytes() { # RX+TX bytes on host 0's shoal0
    # shellcheck disable=SC2016  # expanded by the inner shell
    ip netns exec "$NAME-h0" sh -c \
        'echo $(($(cat /sys/class/net/shoal0/statistics/rx_bytes) + $(cat /sys/class/net/shoal0/statistics/tx_bytes)))'
}

RAW=$WORK/raw.txt
: >"$RAW"
LOADS=()
{
    echo "invocation: $INVOCATION"
    echo "shoal: $SHOALCC ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')$(
        [ -z "$(git -C "$repo" status --porcelain -- src include 2>/dev/null)" ] || echo ' + uncommitted changes in src/ or include/'))"
    echo "floor: cc ${CFLAGS[*]} -o ucp_probe bench/programs/ucp_probe.c \$(pkg-config --cflags --libs ucx); bench/drivers/ucp_probe.sh ucp_probe --netns $NAME -n 10000 [--shoal-like]"
    echo "build: SHOALCC ${CFLAGS[*]} -o shoal/PROG SRC; $OSHCC ${CFLAGS[*]} -o oshmem/PROG SRC (SRC: examples/rdma_demo.c, bench/programs/PROG.c)"
    echo "run (shoal): tests/netns/netns_job.sh --timeout $RUN_TIMEOUT 2 1 ${SHOAL_WRAP[*]:+bench/drivers/pin_rank.sh }shoal/PROG ARGS"
    echo "run (oshmem): tests/netns/netns_job.sh --up $NAME 2; SHOAL_NETNS_NAME=$NAME ip netns exec $NAME-h0 oshrun ${OSHRUN_FLAGS[*]} ${OSH_WRAP[*]:+bench/drivers/pin_rank.sh }oshmem/PROG ARGS"
    echo "hostfile: 10.77.0.1 slots=1, 10.77.0.2 slots=1; bench/drivers/pin_rank.sh: taskset -c (rank % nproc)"
    for p in "${PROGS[@]}"; do echo "ARGS ($p): $(args_of "$p")"; done
} | sed "s|$WORK/||g; s|$repo/||g" >"$WORK/commands.txt"

# ---- proof: OSHMEM's endpoints use UCX tcp on shoal0, across namespaces --------
before=$(shoal0_bytes)
osh_run -x UCX_LOG_LEVEL=info "${OSH_WRAP[@]}" "$WORK/oshmem/rdma_demo" -q \
    >"$WORK/out/proof.txt" 2>&1 || echo "netns_compare.sh: the OSHMEM proof run failed" >&2
after=$(shoal0_bytes)
# shellcheck disable=SC2016  # expanded by each rank's shell
osh_run sh -c 'echo "rank $OMPI_COMM_WORLD_RANK: net ns $(readlink /proc/self/ns/net), shoal0 $(ip -o -4 addr show shoal0 | awk "{print \$4}")"' \
    >"$WORK/out/where.txt" 2>&1 || true
{
    echo "PROOF where each oshrun rank runs (this script: $(readlink /proc/self/ns/net)):"
    sed 's/^/  /' "$WORK/out/where.txt"
    echo "PROOF UCX_LOG_LEVEL=info lines naming the transport (rdma_demo -q):"
    grep -E 'ep_cfg|UCX_\* env' "$WORK/out/proof.txt" | sed 's/^\[[0-9.]*\] /  /' | sort -u
    echo "PROOF shoal0 bytes (rx+tx) on host 0 during that run: $((after - before))" \
         "(rdma_demo -q moves 2 x 5 x 1747624 = 17476240 bytes of put/get payload)"
} >>"$WORK/proof.md"
sed 's/^/proof| /' "$WORK/out/proof.txt" >>"$RAW"

# ---- rounds ------------------------------------------------------------------
for ((round = 1; round <= K; round++)); do
    LOADS+=("round $round: $(cut -d' ' -f1-3 /proc/loadavg)")
    echo "netns_compare.sh: round $round/$K (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    for p in "${PROGS[@]}"; do
        read -ra args <<<"$(args_of "$p")"
        rc=0
        shoal_run "${SHOAL_WRAP[@]}" "$WORK/shoal/$p" "${args[@]}" >"$WORK/out/s.txt" 2>&1 || rc=$?
        # Only PE 0 prints results; netns_job.sh tags its lines [0@h0].
        sed -n 's/^\[0@h0\] //p' "$WORK/out/s.txt" | sed "s/^/shoal $round $p| /" >>"$RAW"
        grep -v '^\[0@h0\] ' "$WORK/out/s.txt" | sed "s/^/shoal $round $p|! /" >>"$RAW" || true
        echo "shoal $round $p| exit=$rc" >>"$RAW"
        before=$(shoal0_bytes)
        rc=0
        osh_run "${OSH_WRAP[@]}" "$WORK/oshmem/$p" "${args[@]}" >"$WORK/out/o.txt" 2>&1 || rc=$?
        after=$(shoal0_bytes)
        sed "s/^/oshmem $round $p| /" "$WORK/out/o.txt" >>"$RAW"
        echo "oshmem $round $p| exit=$rc shoal0_bytes=$((after - before))" >>"$RAW"
    done
    rc=0
    "$here/ucp_probe.sh" "$WORK/ucp_probe" --netns "$NAME" -n 10000 >"$WORK/out/u.txt" 2>&1 || rc=$?
    sed "s/^/ucp $round probe| /" "$WORK/out/u.txt" >>"$RAW"
    echo "ucp $round probe| exit=$rc" >>"$RAW"
    rc=0
    "$here/ucp_probe.sh" "$WORK/ucp_probe" --netns "$NAME" -n 10000 --shoal-like \
        >"$WORK/out/u.txt" 2>&1 || rc=$?
    sed "s/^/ucpx $round probe| /" "$WORK/out/u.txt" >>"$RAW"
    echo "ucpx $round probe| exit=$rc" >>"$RAW"
done

# ---- the table ---------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
RAW_OUT=${OUT%.md}.raw.txt
cp "$RAW" "$RAW_OUT"
{
    echo "# Shoal vs OSHMEM across two network namespaces (UCX over TCP on a veth)"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, K=$K rounds (median of per-run medians)," \
         "pinning: $PIN. Ratio = OSHMEM time / Shoal time (>1: Shoal faster)."
    echo "Load average (1, 5, 15 min) at the start of each round: $(IFS=';'; echo "${LOADS[*]}")."
    echo
    echo '```'
    cat "$WORK/commands.txt"
    echo '```'
    echo
    python3 - "$RAW" <<'EOF'
import re, statistics, sys
from collections import defaultdict
vals = defaultdict(list)          # (side, key, size) -> [(usec, mbps)]
order = []
fails = []
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(shoal|oshmem|ucpx|ucp) (\d+) (\w+)\| (.*)", line.rstrip("\n"))
    if not m:
        continue
    side, rnd, prog, text = m.groups()
    key = size = None
    if text.startswith("exit="):
        if not text.startswith("exit=0"):
            fails.append(f"{side} round {rnd} {prog}: {text}")
        continue
    f = text.split()
    if prog == "rdma_demo" and len(f) == 4 and re.fullmatch(r"[a-z_]+", f[0]) and f[1].isdigit():
        key, size = f"rdma_demo {f[0]}", int(f[1])
        us = float(f[2]); mb = None if f[3] == "-" else float(f[3])
    elif text.startswith("bench="):
        kv = dict(x.split("=", 1) for x in f if "=" in x)
        key, size = f"{kv['bench']} {kv['op']} {kv.get('mem', '')}".strip(), int(kv.get("size", 0))
        if "error" in kv:
            fails.append(f"{side} round {rnd} {key} {size}: error={kv['error']}")
            vals.setdefault((side, key, size), [])
            if (key, size) not in order: order.append((key, size))
            continue
        us = float(kv["usec"]); mb = float(kv["mbps"]) if "mbps" in kv else None
    else:
        continue
    if side not in ("ucp", "ucpx") and (key, size) not in order:
        order.append((key, size))
    vals[(side, key, size)].append((us, mb))

def cell(side, key, size):
    v = vals.get((side, key, size))
    if not v:
        return None, None, "no result" if v is None else "error"
    us = statistics.median(x[0] for x in v)
    mbs = [x[1] for x in v if x[1] is not None]
    mb = statistics.median(mbs) if mbs else None
    return us, mb, None

def fmt(us, mb, err):
    if err: return err
    s = f"{us:.2f} µs"
    return s + (f" / {mb:.1f} MB/s" if mb is not None else "")

print("| op | bytes | Shoal | OSHMEM | ratio |")
print("|---|---:|---:|---:|---:|")
for key, size in order:
    s = cell("shoal", key, size); o = cell("oshmem", key, size)
    ratio = f"{o[0] / s[0]:.3g}" if s[0] and o[0] else "-"
    print(f"| {key} | {size} | {fmt(*s)} | {fmt(*o)} | {ratio} |")
# The floor: the same operation in plain UCP between the same namespaces.
floor = [("put 8 B + quiet (probe: put + worker flush)", "rdma_demo put", 8, "ucp_probe put_flush"),
         ("get 8 B", "rdma_demo get", 8, "ucp_probe get"),
         ("fetch-add", "rdma_demo fetch_add", 8, "ucp_probe fetch_add"),
         ("64 KiB gets, windows of 64 (probe: worker flush, as OSHMEM's quiet)",
          "bw_rma getmem_nbi heap", 65536, "ucp_probe get_win_flush"),
         ("64 KiB gets, windows of 64 (probe: each get's request, as Shoal's quiet)",
          "bw_rma getmem_nbi heap", 65536, "ucp_probe get_win_req")]
if any(vals.get(("ucp", k, 0)) for _, _, _, k in floor):
    print("\nAgainst the floor, plain UCP (bench/programs/ucp_probe.c) on the same path; "
          "ratio = floor time / library time (1: at the floor). The probe with "
          "OSHMEM's worker settings (single thread, RMA and AMO64 only), and with "
          "Shoal's (--shoal-like: AM, AMO32 and WAKEUP too, thread mode SERIALIZED, "
          "peer error handling, for its progress thread, active messages and "
          "failure reports); each probe reports "
          "a median, the libraries a mean, so 1.0 is out of reach:\n")
    print("| op | Shoal | OSHMEM | probe, OSHMEM's settings | probe, Shoal's settings "
          "| Shoal vs its floor | OSHMEM vs its floor |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, key, size, pkey in floor:
        s, o = cell("shoal", key, size), cell("oshmem", key, size)
        u, ux = cell("ucp", pkey, 0), cell("ucpx", pkey, 0)
        r = lambda f, x: f"{f[0] / x[0]:.3g}" if x[0] and f[0] else "-"
        print(f"| {label} | {fmt(*s)} | {fmt(*o)} | {fmt(*u)} | {fmt(*ux)} | {r(ux, s)} "
              f"| {r(u, o)} |")
if fails:
    print("\nFailures and wrong results:\n")
    for x in fails:
        print(f"- {x}")
EOF
    echo
    echo "## Did OSHMEM really cross the namespaces over UCX TCP?"
    echo
    echo '```'
    cat "$WORK/proof.md"
    if [ "$QUICK" = 0 ]; then
        echo "PROOF shoal0 bytes (rx+tx) on host 0 per timed OSHMEM rdma_demo run:" \
             "$(sed -n 's/^oshmem [0-9]* rdma_demo| exit=.* shoal0_bytes=//p' "$RAW" | tr '\n' ' ')" \
             "(payload: 2 x $REPS x 1747624 = $((2 * REPS * 1747624)) bytes)"
    fi
    echo "Every OSHMEM run's count: 'shoal0_bytes=' in $(basename "$RAW_OUT")."
    echo "Shoal's PE 0 (rdma_demo): $(sed -n 's/^shoal 1 rdma_demo| \(rdma_demo: PE 0 <->.*\)/\1/p' "$RAW")"
    echo '```'
} >"$OUT"
cat "$OUT"
echo "netns_compare.sh: wrote $OUT and $RAW_OUT" >&2
