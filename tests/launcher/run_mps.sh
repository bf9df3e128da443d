#!/bin/bash
# shoalrun --mps: the MPS control daemon it starts and stops for a job,
# against stand-ins for nvidia-cuda-mps-control and nvidia-smi
# (tests/launcher/mps_standin, first on PATH) that record what they were
# asked, with the environment they saw. The PEs are shell scripts that
# write the CUDA_MPS_PIPE_DIRECTORY they got. Checked: one start with
# private folders under the job's TMPDIR, the PEs saw them, quit sent and
# the folders and the daemon gone after a normal run, a PE exiting 3,
# --timeout, SIGTERM and SIGINT to shoalrun and a program that cannot be
# run; no daemon with a GPU per PE, with --mps off, or when one serves
# already; --mps on without the control command fails naming the option;
# a daemon that does not start (auto goes on, on fails).
# Usage: run_mps.sh SHOALRUN
set -u
SHOALRUN=$1
HERE=$(cd "$(dirname "$0")" && pwd)
STANDIN=$HERE/mps_standin
T=$(mktemp -d)
DAEMONS=""
cleanup() {
    for pid in $DAEMONS; do kill "$pid" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
mkdir -p "$T/tmp" "$T/nompsbin"
ln -s "$STANDIN/nvidia-smi" "$T/nompsbin/nvidia-smi"
export FAKE_MPS_RECORD=$T/record
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY CUDA_VISIBLE_DEVICES
CASE=""

fail() {
    echo "FAIL [$CASE]: $*"
    echo "--- record:"
    cat "$T/record" 2>/dev/null
    echo "--- shoalrun stderr:"
    head -n 30 "$T/err"
    exit 1
}

# A PE: writes its rank and the pipe folder it got, then acts out $1
# (ok: exit 0; fail: rank 1 exits 3, the others sleep; sleep: sleep).
cat >"$T/pe.sh" <<'EOF'
#!/bin/sh
echo "${CUDA_MPS_PIPE_DIRECTORY:-none}" >"$1/pe.$SHOAL_RANK.tmp"
mv "$1/pe.$SHOAL_RANK.tmp" "$1/pe.$SHOAL_RANK"
case $2 in
ok) exit 0 ;;
fail) [ "$SHOAL_RANK" = 1 ] && exit 3; exec sleep 30 ;;
sleep) exec sleep 30 ;;
esac
EOF
chmod +x "$T/pe.sh"
: >"$T/not-a-program"

# start NAME GPUS ARGS...: one shoalrun run (in the background when NAME
# ends in "&"), PATH with the stand-ins first, FAKE_GPUS GPUs.
run() {
    CASE=$1
    local gpus=$2
    shift 2
    rm -rf "$T/pes" "$T/record"
    mkdir "$T/pes"
    : >"$T/record"
    FAKE_GPUS=$gpus PATH="$STANDIN:$PATH" TMPDIR=$T/tmp SHOAL_LOG_LEVEL=2 \
        "$SHOALRUN" "$@" >"$T/out" 2>"$T/err"
    RC=$?
}

# alive PID: the process runs (a zombie left to a slow reaper does not).
alive() {
    local st
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}

# The record says: started once in private folders under $T/tmp, quit
# once with the same folders, the daemon is gone and the folders too.
expect_started_and_stopped() {
    local starts quits pipe log daemon
    starts=$(grep -c '^start ' "$T/record")
    quits=$(grep -c '^quit ' "$T/record")
    [ "$starts" -eq 1 ] || fail "$starts daemon starts, expected 1"
    [ "$quits" -eq 1 ] || fail "$quits quits, expected 1"
    pipe=$(sed -n 's/^start pipe=\([^ ]*\) .*/\1/p' "$T/record")
    log=$(sed -n 's/^start .* log=\([^ ]*\) .*/\1/p' "$T/record")
    daemon=$(sed -n 's/^start .* daemon=\([0-9]*\)$/\1/p' "$T/record")
    DAEMONS="$DAEMONS $daemon"
    [[ $pipe == "$T"/tmp/shoalrun-mps-*/pipe ]] || fail "pipe folder $pipe not under the job's TMPDIR"
    [[ $log == "${pipe%/pipe}/log" ]] || fail "log folder $log is not next to $pipe"
    grep -qx "quit pipe=$pipe log=$log daemon=$daemon" "$T/record" ||
        fail "quit went to another daemon: $(grep '^quit' "$T/record")"
    [ ! -e "${pipe%/pipe}" ] || fail "${pipe%/pipe} is still there: $(ls -R "${pipe%/pipe}")"
    alive "$daemon" && fail "the stand-in daemon (pid $daemon) still runs"
    PIPE=$pipe
}

# expect_pes N DIR: N PEs ran, each saw CUDA_MPS_PIPE_DIRECTORY=DIR.
expect_pes() {
    local n=$1 want=$2 r
    for ((r = 0; r < n; r++)); do
        [ -f "$T/pes/pe.$r" ] || fail "PE $r did not run"
        [ "$(cat "$T/pes/pe.$r")" = "$want" ] ||
            fail "PE $r saw CUDA_MPS_PIPE_DIRECTORY=$(cat "$T/pes/pe.$r"), expected $want"
    done
}

expect_not_started() {
    grep -q '^start ' "$T/record" && fail "a daemon was started: $(cat "$T/record")"
    [ -z "$(ls -A "$T/tmp")" ] || fail "folders left in the job's TMPDIR: $(ls "$T/tmp")"
}

# 1. A normal run: 4 PEs, 1 GPU.
run normal 1 -n 4 "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_started_and_stopped
expect_pes 4 "$PIPE"
grep -q "shoalrun: MPS: --mps auto: 4 PEs share 1 GPU on this host" "$T/err" ||
    fail "no level-2 line saying why a daemon was started"
grep -q "shoalrun: MPS: started a daemon for the job: CUDA_MPS_PIPE_DIRECTORY=$PIPE" "$T/err" ||
    fail "no level-2 line naming the daemon's folders"

# 2. A PE exits with status 3.
run pe-exit-3 1 -n 3 "$T/pe.sh" "$T/pes" fail
[ "$RC" -eq 3 ] || fail "exit status $RC, expected 3"
expect_started_and_stopped

# 3. --timeout.
run timeout 1 -n 2 --timeout 1 "$T/pe.sh" "$T/pes" sleep
[ "$RC" -eq 124 ] || fail "exit status $RC, expected 124"
expect_started_and_stopped
expect_pes 2 "$PIPE"

# 4. SIGTERM, and SIGINT, to shoalrun once every PE runs.
for sig in TERM INT; do
    CASE=sig$sig
    rm -rf "$T/pes" "$T/record"
    mkdir "$T/pes"
    : >"$T/record"
    FAKE_GPUS=1 PATH="$STANDIN:$PATH" TMPDIR=$T/tmp "$SHOALRUN" -n 2 "$T/pe.sh" "$T/pes" sleep \
        >"$T/out" 2>"$T/err" &
    SR=$!
    for ((i = 0; i < 300; i++)); do
        [ -f "$T/pes/pe.0" ] && [ -f "$T/pes/pe.1" ] && break
        sleep 0.1
    done
    [ -f "$T/pes/pe.1" ] || { kill -KILL "$SR"; fail "the PEs did not start in 30 s"; }
    kill -"$sig" "$SR"
    wait "$SR"
    RC=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$RC" -eq "$want" ] || fail "exit status $RC, expected $want"
    expect_started_and_stopped
done

# 5. A program that cannot be run (exec fails after the daemon started).
run exec-fail 1 -n 2 "$T/not-a-program"
[ "$RC" -eq 126 ] || fail "exit status $RC, expected 126"
expect_started_and_stopped

# 6. One GPU per PE: no daemon; nor with two GPUs for two PEs.
run gpu-per-pe 2 -n 2 "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_not_started
expect_pes 2 none
grep -q "MPS: --mps auto: 2 PEs on this host and enough GPUs: no daemon needed" "$T/err" ||
    fail "no level-2 line saying why no daemon was started"

# 7. CUDA_VISIBLE_DEVICES narrows 4 GPUs to 1: a daemon for 2 PEs.
CUDA_VISIBLE_DEVICES=2 run visible-devices 4 -n 2 "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_started_and_stopped

# 8. --mps off.
run mps-off 1 -n 4 --mps off "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_not_started
expect_pes 4 none

# 9. A daemon serves already (CUDA_MPS_PIPE_DIRECTORY set): the PEs use it,
# also with --mps on.
mkdir -p "$T/theirs"
CUDA_MPS_PIPE_DIRECTORY=$T/theirs run already-there 1 -n 4 "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_not_started
expect_pes 4 "$T/theirs"
CUDA_MPS_PIPE_DIRECTORY=$T/theirs run already-there-on 1 -n 4 --mps on "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_not_started

# 10. --mps on starts one even with a GPU per PE.
run mps-on 2 -n 2 --mps=on "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
expect_started_and_stopped
expect_pes 2 "$PIPE"

# 11. --mps on without the control command in PATH: a clear error, no PE.
CASE=mps-on-missing
if PATH="$T/nompsbin:/usr/bin:/bin" command -v nvidia-cuda-mps-control >/dev/null; then
    echo "note: [$CASE] skipped: this machine has its own nvidia-cuda-mps-control in /usr/bin"
else
    rm -rf "$T/pes" "$T/record"
    mkdir "$T/pes"
    : >"$T/record"
    FAKE_GPUS=1 PATH="$T/nompsbin:/usr/bin:/bin" TMPDIR=$T/tmp "$SHOALRUN" -n 2 --mps on \
        "$T/pe.sh" "$T/pes" ok >"$T/out" 2>"$T/err"
    RC=$?
    [ "$RC" -eq 1 ] || fail "exit status $RC, expected 1"
    grep -q "^shoalrun: --mps on: nvidia-cuda-mps-control is not in PATH" "$T/err" ||
        fail "the error does not name --mps on and the command"
    [ -z "$(ls -A "$T/pes")" ] || fail "PEs ran: $(ls "$T/pes")"
    # auto without it: the job runs without a daemon.
    FAKE_GPUS=1 PATH="$T/nompsbin:/usr/bin:/bin" TMPDIR=$T/tmp "$SHOALRUN" -n 2 \
        "$T/pe.sh" "$T/pes" ok >"$T/out" 2>"$T/err"
    RC=$?
    [ "$RC" -eq 0 ] || fail "auto without the command: exit status $RC"
    expect_pes 2 none
fi

# 12. The daemon does not start: auto goes on without it, on fails; no
# folders left either way.
FAKE_MPS_FAIL_START=1 run start-fails-auto 1 -n 2 "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 0 ] || fail "exit status $RC"
grep -q "nvidia-cuda-mps-control -d' failed (non-zero status): stand-in: cannot start the daemon; the PEs run without MPS" "$T/err" ||
    fail "no message saying the start failed"
expect_not_started
expect_pes 2 none
FAKE_MPS_FAIL_START=1 run start-fails-on 1 -n 2 --mps on "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 1 ] || fail "exit status $RC, expected 1"
expect_not_started

# 13. A wrong value.
run bad-value 1 -n 2 --mps maybe "$T/pe.sh" "$T/pes" ok
[ "$RC" -eq 2 ] || fail "exit status $RC, expected 2"
grep -q "^shoalrun: --mps expects auto, on or off, got 'maybe'" "$T/err" || fail "no clear error"

echo "PASS launcher.mps"
