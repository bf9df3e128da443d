#!/bin/bash
# A Shoal job on a pretend cluster: each "host" is a network namespace of
# this machine with its own loopback and one veth device (named shoal0 in
# every host) plugged into a bridge in a switch namespace. Hosts get
# 10.77.0.1, 10.77.0.2, ... on shoal0. PEs start by hand with the config
# store bootstrap (TLS on, a fresh job secret), PE 0's host serving the
# store on 10.77.0.1:8666, and talk over UCX/TCP through the veths; PEs on
# one host share memory as usual. Only addresses inside the namespaces are
# used. The namespaces are made for this job and removed when it ends, so
# concurrent jobs do not see each other.
#
# Usage: netns_job.sh [options] HOSTS PES_PER_HOST PROGRAM [ARGS...]
#   --timeout S    end the job (exit 124) after S seconds (default 170)
#   --block        put ranks 0..k-1 on host 0, and so on (default: round robin,
#                  rank r on host r % HOSTS, so neighbours cross the network)
#   --kill R@S     SIGKILL rank R S seconds after the start (fault tests);
#                  the job must then end by itself with a message naming R
#   --env VAR=VAL  extra environment for every PE (repeatable)
#   --cut K[:del]  once every PE printed a line containing SHOAL-TEST-READY,
#                  cut host K off the switch (its switch-side veth set down;
#                  :del deletes the veth pair instead) and, when every PE has
#                  ended, say how long after the cut (partition tests)
#   --up NAME / --down NAME   only make / remove a cluster (for benchmarks:
#                  `ip netns exec NAME-hK cmd` then runs cmd on host K)
# Exit status: 0 when every PE exited 0; 77 (skipped) when namespaces cannot
# be made here (not root, no iproute2, no veth); otherwise the first PE's
# failing status, 124 on timeout.
set -u
export LC_ALL=C

TIMEOUT=170
PLACE=cyclic
KILL_SPEC=""
CUT_SPEC=""
EXTRA_ENV=()
while [ $# -gt 0 ]; do
    case $1 in
    --timeout) TIMEOUT=$2; shift 2 ;;
    --block) PLACE=block; shift ;;
    --kill) KILL_SPEC=$2; shift 2 ;;
    --env) EXTRA_ENV+=("$2"); shift 2 ;;
    --cut) CUT_SPEC=$2; shift 2 ;;
    --up) ONLY=up NAME=$2; shift 2 ;;
    --down) ONLY=down NAME=$2; shift 2 ;;
    *) break ;;
    esac
done

skip() { echo "netns_job: skipped: $*"; exit 77; }

# Namespace names carry the pid, so concurrent jobs never collide; link
# names live inside the namespaces, so they can be the same in every job.
NAME=${NAME:-shoal$$}
SW=$NAME-sw

ns_down() {
    local ns
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
        case $ns in "$1"-*) ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
                           ip netns del "$ns" 2>/dev/null ;; esac
    done
}

# ns_up HOSTS: the switch and the hosts, addresses 10.77.0.(k+1)/24.
ns_up() {
    local hosts=$1 k ns
    [ "$(id -u)" -eq 0 ] || skip "needs root to make network namespaces"
    command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
    ip netns add "$SW" 2>/dev/null || skip "ip netns add failed (no permission?)"
    ip -n "$SW" link add br0 type bridge || { ns_down "$NAME"; skip "no bridge support"; }
    ip -n "$SW" link set br0 up
    for ((k = 0; k < hosts; k++)); do
        ns=$NAME-h$k
        ip netns add "$ns" || { ns_down "$NAME"; echo "netns_job: cannot add $ns"; exit 1; }
        ip -n "$ns" link set lo up
        # Make the pair inside the host, then move the far end to the switch.
        ip -n "$ns" link add shoal0 type veth peer name p$k ||
            { ns_down "$NAME"; skip "no veth support"; }
        ip -n "$ns" link set p$k netns "$SW"
        ip -n "$SW" link set p$k master br0
        ip -n "$SW" link set p$k up
        ip -n "$ns" addr add 10.77.0.$((k + 1))/24 dev shoal0
        ip -n "$ns" link set shoal0 up
    done
    # UCX ignores a device until its carrier is up (a few ms after "up").
    for ((k = 0; k < hosts; k++)); do
        for _ in $(seq 50); do
            ip -n "$NAME-h$k" link show shoal0 | grep -q NO-CARRIER || break
            sleep 0.1
        done
    done
}

if [ "${ONLY:-}" = up ]; then
    ns_up "${1:-2}"
    echo "netns_job: cluster $NAME up: hosts $NAME-h0..h$((${1:-2} - 1)), 10.77.0.1.."
    exit 0
elif [ "${ONLY:-}" = down ]; then
    ns_down "$NAME"
    exit 0
fi

[ $# -ge 3 ] || { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2; }
HOSTS=$1 PPH=$2
shift 2
NPES=$((HOSTS * PPH))
PROG=$(command -v "$1") || { echo "netns_job: no program $1"; exit 2; }
PROG=$(realpath "$PROG")
shift

TMP=$(mktemp -d)
PIDS=()
TIMER=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
    { # (bash's notices of what it killed, printed when it next looks: not news)
        for p in "${PIDS[@]}" $TIMER $CUTTER; do kill -KILL "$p"; done
        wait
        ns_down "$NAME"
    } 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ns_up "$HOSTS"

# Keep the caller's bootstrap settings out of the PEs' way.
unset SHOAL_LAUNCHER_FD SHOAL_RANK SHOAL_NPES SHOAL_STORE SHOAL_JOB_KEY SHOAL_JOB_KEY_FILE \
    SHOAL_STORE_TLS SHOAL_STORE_TLS_INFO SHOAL_NODE PMIX_RANK PMIX_NAMESPACE
KEY=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')

host_of() {
    if [ "$PLACE" = block ]; then echo $(($1 / PPH)); else echo $(($1 % HOSTS)); fi
}

# Tests read the round-robin placement from SHOAL_TEST_HOSTS (tests/api/check.h).
TEST_HOSTS=$HOSTS
[ "$PLACE" = block ] && TEST_HOSTS=""
# The store is served by rank 0, on its host's veth address.
STORE=10.77.0.$(($(host_of 0) + 1)):8666
: > "$TMP/out" # the PEs' output, with --cut
START=$SECONDS
for ((r = 0; r < NPES; r++)); do
    h=$(host_of "$r")
    ip netns exec "$NAME-h$h" env SHOAL_RANK=$r SHOAL_NPES=$NPES SHOAL_STORE=$STORE \
        SHOAL_JOB_KEY="$KEY" SHOAL_STORE_CONNECT_TIMEOUT=30 SHOAL_STORE_JOIN_TIMEOUT=60 \
        UCX_TLS=tcp UCX_NET_DEVICES=shoal0 SHOAL_TEST_HOSTS="$TEST_HOSTS" "${EXTRA_ENV[@]}" \
        "$PROG" "$@" > >(sed -u "s/^/[$r@h$h] /" | { if [ -n "$CUT_SPEC" ]; then tee -a "$TMP/out"; else cat; fi; }) \
        2> >(sed -u "s/^/[$r@h$h] /" >&2) &
    PIDS+=($!)
done

# The cut: after every PE said it is ready (so it comes mid-job, however
# loaded the machine), the host's veth goes down at the switch (or the pair
# is deleted); the time goes to $TMP/cut_at for the report at the end.
CUTTER=""
if [ -n "$CUT_SPEC" ]; then
    (
        cut_host=${CUT_SPEC%%:*} how=down
        [ "$CUT_SPEC" = "$cut_host:del" ] && how=del
        while [ "$(grep -c SHOAL-TEST-READY "$TMP/out")" -lt "$NPES" ]; do
            sleep 0.1
        done
        if [ "$how" = del ]; then
            ip -n "$SW" link del "p$cut_host"
        else
            ip -n "$SW" link set "p$cut_host" down
        fi
        date +%s.%N > "$TMP/cut_at"
        echo "netns_job: cut host $cut_host's link ($how) after $((SECONDS - START)) s"
    ) &
    CUTTER=$!
fi

if [ -n "$KILL_SPEC" ]; then
    (sleep "${KILL_SPEC#*@}"; kill -KILL "${PIDS[${KILL_SPEC%@*}]}" 2>/dev/null) &
fi

# Wait for every PE; the first failure decides the status. After a failure
# the others get 20 s to end by themselves (the library's own job teardown
# is under test), then they are killed and the job is reported hung.
# `wait -n` blocks until a PE or a one-second tick ends, so the script forks
# one `sleep` a second while the job runs (a poll every 0.1 s running date
# and sleep took ~1 ms of a pinned PE's CPU each time, 3% of a benchmark's
# time). The tick is not only for the deadlines: `wait -n` can miss an
# exit (bash reaps a job in the background and, once another `wait`
# reported on its status, no longer counts it as new), and the sweep after
# every wake-up finds those.
status=0
left=$NPES
deadline=$((START + TIMEOUT)) grace_end=""
declare -A rank_of=() done_rank=()
for ((r = 0; r < NPES; r++)); do rank_of[${PIDS[$r]}]=$r; done
still_running() { # still_running SUFFIX: one line per PE that has not ended
    for ((r = 0; r < NPES; r++)); do
        [ -z "${done_rank[$r]:-}" ] && echo "  rank $r (pid ${PIDS[$r]})$1"
    done
}
# Asks the PEs still running for Shoal's hang report (SIGUSR1, as shoalrun
# --timeout does; only a process that catches it: Shoal's handler is
# installed at shmem_init) and gives them 3 s to print it.
hang_reports() {
    local asked=0 r caught
    for ((r = 0; r < NPES; r++)); do
        [ -n "${done_rank[$r]:-}" ] && continue
        caught=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/${PIDS[$r]}/status" 2>/dev/null)
        [ -n "$caught" ] && (((0x$caught >> 9) & 1)) || continue
        kill -USR1 "${PIDS[$r]}" 2>/dev/null && asked=1
    done
    [ "$asked" = 1 ] && sleep 3
}
finish() { # finish RANK RC: rank RANK has ended with status RC
    done_rank[$1]=1
    left=$((left - 1))
    [ "$2" -eq 0 ] && return
    echo "netns_job: rank $1 on host $(host_of "$1") exited with status $2 after" \
         "$((SECONDS - START)) s"
    if [ "$status" -eq 0 ]; then
        status=$2
        grace_end=$((SECONDS + 20))
    fi
}
sleep 1 &
TIMER=$!
while [ "$left" -gt 0 ]; do
    alive=()
    for ((r = 0; r < NPES; r++)); do [ -z "${done_rank[$r]:-}" ] && alive+=("${PIDS[$r]}"); done
    who=""
    wait -n -p who "${alive[@]}" "$TIMER" 2>/dev/null
    rc=$?
    if [ "$who" = "$TIMER" ] || ! kill -0 "$TIMER" 2>/dev/null; then
        wait "$TIMER" 2>/dev/null
        sleep 1 &
        TIMER=$!
    fi
    [ -n "$who" ] && [ -n "${rank_of[$who]:-}" ] && finish "${rank_of[$who]}" "$rc"
    # A PE whose exit `wait -n` did not report (see above); plain
    # `wait PID` still has its status.
    for ((r = 0; r < NPES; r++)); do
        [ -n "${done_rank[$r]:-}" ] && continue
        kill -0 "${PIDS[$r]}" 2>/dev/null && continue
        wait "${PIDS[$r]}" 2>/dev/null
        finish "$r" $?
    done
    [ "$left" -gt 0 ] || break
    if [ "$SECONDS" -ge "$deadline" ]; then
        echo "netns_job: timeout after ${TIMEOUT} s; PEs still running:"
        still_running ""
        hang_reports
        exit 124
    elif [ -n "$grace_end" ] && [ "$SECONDS" -ge "$grace_end" ]; then
        echo "netns_job: a PE failed and the others did not end within 20 s:"
        still_running " still running"
        hang_reports
        exit 1
    fi
done
if [ -n "$CUT_SPEC" ]; then
    if [ -s "$TMP/cut_at" ]; then
        echo "netns_job: every PE ended $(echo "$(date +%s.%N) $(cat "$TMP/cut_at")" |
            awk '{printf "%.1f", $1 - $2}') s after the cut"
    else
        echo "netns_job: every PE ended before the cut"
    fi
fi
exit "$status"
