#!/bin/bash
# shoalrun --host/--hostfile across the two hosts of a netns_job.sh cluster,
# with tests/netns/rsh_agent.sh standing in for ssh:
#   - 2 hosts x 1 PE (--host) and 2 x 2 (--hostfile, slots=2): values cross
#     the hosts and are checked, PEs sit block-wise in two namespaces;
#   - while the job runs, the job key is in the PEs' environment but in no
#     process's command line;
#   - a PE on host 1 exiting with status 3 ends the job with status 3,
#     naming the PE and the host;
#   - SIGINT to shoalrun ends the job on both hosts with status 130, and
#     --timeout with 124 after each host's hang reports;
#   - afterwards no process of the job is left, in or out of the namespaces.
# Exit 77 (skipped) where namespaces cannot be made.
# Usage: run_hosts.sh SHOALRUN HOSTS_PROG
set -u
shoalrun=$1 prog=$2
here=$(cd "$(dirname "$0")" && pwd)
name=shoal$$
export SHOAL_NETNS_NAME=$name
mark="shoalhostsmark${RANDOM}x$$"
tmp=$(mktemp -d)
out=$tmp/out err=$tmp/err
cleanup() {
    pkill -KILL -f "$mark" 2>/dev/null
    "$here/netns_job.sh" --down "$name" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
"$here/netns_job.sh" --up "$name" 2 >"$tmp/up" 2>&1
case $? in
0) ;;
77) cat "$tmp/up"; exit 77 ;;
*) cat "$tmp/up"; echo "FAIL: cannot make the cluster"; exit 1 ;;
esac

failures=0
fail() {
    echo "FAIL: $*"
    echo "--- stdout"; head -n 40 "$out"
    echo "--- stderr"; head -n 40 "$err"
    failures=$((failures + 1))
}
common=(--launch-agent "$here/rsh_agent.sh" -x UCX_TLS=tcp -x UCX_NET_DEVICES=shoal0
    -x SHOAL_STORE_CONNECT_TIMEOUT=30 --timeout 120)

# While the job waits: the key went to the PEs through the environment, in no
# command line. With SHOAL_JOB_KEY_INHERIT=1 (KEY_INHERIT=1 here) the PE keeps
# it there, so the test can read it; by default init takes it out.
check_key() {
    local pid key p hits=0
    for ((i = 0; i < 200; i++)); do
        [ "$(grep -c 'ready PE' "$out")" -ge "$1" ] && break
        sleep 0.05
    done
    pid=$(pgrep -f "^$prog ring" | head -n 1)
    [ -n "$pid" ] || { fail "no PE process found"; return; }
    key=$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^SHOAL_JOB_KEY=//p')
    if [ -z "${KEY_INHERIT:-}" ]; then
        [ -z "$key" ] || fail "the job key is still in a PE's environment after init"
        return
    fi
    [ ${#key} -eq 64 ] || { fail "no 64-digit SHOAL_JOB_KEY in a PE's environment"; return; }
    for p in /proc/[0-9]*; do
        { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF "$key" && {
            hits=$((hits + 1))
            echo "key in the command line of ${p#/proc/}: $(tr '\0' ' ' <"$p/cmdline")"
        }
    done
    [ $hits -eq 0 ] || fail "the job key is in $hits command lines"
}

# ring_job NPES HOSTS_OPTION...: a ring across both hosts, block-wise.
ring_job() {
    local np=$1
    shift
    "$shoalrun" "$@" "${common[@]}" ${KEY_INHERIT:+-x SHOAL_JOB_KEY_INHERIT=1} -t "$prog" ring 3 \
        "$mark" >"$out" 2>"$err" &
    local pid=$!
    check_key "$np"
    wait $pid
    local rc=$?
    [ $rc -eq 0 ] || { fail "$*: exit status $rc"; return; }
    [ "$(grep -c "^\[PE [0-9]*\] PE [0-9]* of $np: .* ok$" "$out")" -eq "$np" ] ||
        fail "$*: not every PE checked its values"
    local ns0 nslast
    ns0=$(sed -n 's/^\[PE 0\] PE 0 of .*netns \([0-9]*\).*/\1/p' "$out")
    nslast=$(sed -n "s/^\[PE $((np - 1))\] PE $((np - 1)) of .*netns \([0-9]*\).*/\1/p" "$out")
    [ -n "$ns0" ] && [ -n "$nslast" ] && [ "$ns0" != "$nslast" ] ||
        fail "$*: PE 0 and PE $((np - 1)) are not on different hosts"
    if [ "$np" -eq 4 ]; then
        grep -q "^\[PE 1\] PE 1 of 4: netns $ns0 " "$out" || fail "$*: PE 1 not on PE 0's host"
    fi
    if pgrep -af "$mark"; then fail "$*: processes left behind"; fi
}

KEY_INHERIT=1 ring_job 2 --host 10.77.0.1,10.77.0.2 && echo "ok: --host 10.77.0.1,10.77.0.2 (2 x 1)"
printf '# the two hosts\n10.77.0.1 slots=2\n\n10.77.0.2   slots=2 # second\n' >"$tmp/hosts"
ring_job 4 --hostfile "$tmp/hosts" && echo "ok: --hostfile, slots=2 (2 x 2)"
ring_job 4 -N 2 -H 10.77.0.1,10.77.0.2 && echo "ok: -N 2 -H (2 x 2)"

# A PE of host 1 exits with status 3: the job's status, PE and host named.
"$shoalrun" -n 2 --mca plm_rsh_agent "$here/rsh_agent.sh" --host 10.77.0.1,10.77.0.2 \
    "${common[@]:2}" "$prog" exit3 30 "$mark" >"$out" 2>"$err"
rc=$?
[ $rc -eq 3 ] || fail "exit3: exit status $rc, expected 3"
grep -qE "^shoalrun@10\.77\.0\.2: PE 1 \(pid [0-9]+\) exited with status 3" "$err" ||
    fail "exit3: PE 1's status not named"
grep -qE "^shoalrun: host 10\.77\.0\.2 \(PE 1\) ended with status 3" "$err" ||
    grep -qE "^shoalrun: host 10\.77\.0\.2 \(PE 1\) ended with status 3, the likely cause" "$err" ||
    fail "exit3: host 10.77.0.2 not named with status 3"
if pgrep -af "$mark"; then fail "exit3: processes left behind"; fi
echo "ok: a remote PE's status 3 ends the job with 3"

# SIGINT to shoalrun ends both hosts.
"$shoalrun" "${common[@]}" --host 10.77.0.1,10.77.0.2 "$prog" ring 60 "$mark" >"$out" 2>"$err" &
pid=$!
for ((i = 0; i < 200; i++)); do
    [ "$(grep -c '^ready PE' "$out")" -ge 2 ] && break
    sleep 0.05
done
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || fail "SIGINT: exit status $rc, expected 130"
grep -q "^shoalrun: received SIGINT; ending the job on every host" "$err" || fail "SIGINT: no message"
if pgrep -af "$mark"; then fail "SIGINT: processes left behind"; fi
echo "ok: SIGINT ends every host"

# --timeout: every host asked for hang reports, then status 124.
"$shoalrun" "${common[@]:0:8}" --timeout 4 --host 10.77.0.1,10.77.0.2 "$prog" ring 60 "$mark" \
    >"$out" 2>"$err"
rc=$?
[ $rc -eq 124 ] || fail "--timeout 4: exit status $rc, expected 124"
[ "$(grep -c '^shoalrun@10\.77\.0\.[12]: timeout after 4 s; PEs still running' "$err")" -eq 2 ] ||
    fail "--timeout 4: not both hosts ended by the timeout"
if pgrep -af "$mark"; then fail "--timeout: processes left behind"; fi
echo "ok: --timeout ends every host with 124"

for k in 0 1; do
    [ -z "$(ip netns pids "$name-h$k")" ] || fail "processes left in $name-h$k"
done
[ $failures -eq 0 ] || exit 1
echo "all shoalrun --host checks passed"
