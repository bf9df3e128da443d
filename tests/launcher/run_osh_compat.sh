#!/bin/sh
# shoalrun as a drop-in for oshrun/mpirun lines on one host: --mca KEY VALUE
# (noted once, or mapped: plm_rsh_agent is --launch-agent), -N/--npernode
# (PEs per host; alone, the number of PEs), a program named without '/'
# found in PATH, then in the current folder, and bad values refused with a
# message naming the option.
# Usage: run_osh_compat.sh SHOALRUN
set -u
shoalrun=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out err=$tmp/err
failures=0
fail() { echo "FAIL: $*"; cat "$out" "$err"; failures=$((failures + 1)); }
# pes EXPECTED ARGS...: shoalrun ARGS... runs EXPECTED PEs and exits 0.
pes() {
    want=$1
    shift
    timeout 60 "$shoalrun" "$@" sh -c 'echo "pe $SHOAL_RANK of $SHOAL_NPES"' >"$out" 2>"$err" ||
        { fail "$* (exit status $?)"; return; }
    [ "$(grep -c "^pe [0-9]* of $want\$" "$out")" -eq "$want" ] || fail "$*: not $want PEs"
}
# refused MESSAGE ARGS...: shoalrun ARGS... exits 2 with the line MESSAGE.
refused() {
    msg=$1
    shift
    "$shoalrun" "$@" true >"$out" 2>"$err"
    rc=$?
    [ $rc -eq 2 ] || fail "$*: exit status $rc, expected 2"
    grep -qxF -- "shoalrun: $msg" "$err" || fail "$*: no message '$msg'"
}

# --mca: one note per setting without a counterpart; plm_rsh_agent is mapped.
pes 2 -n 2 --mca btl self,vader -mca plm_rsh_agent ssh --mca coll_tuned_use_dynamic_rules 1
[ "$(grep -c '^shoalrun: note: ' "$err")" -eq 2 ] || fail "--mca: not exactly 2 notes"
grep -qxF "shoalrun: note: --mca btl self,vader has no effect (Shoal has no MCA parameters; its settings are the SHOAL_* variables, see shoal-info)" "$err" ||
    fail "--mca btl: no note"
grep -q "plm_rsh_agent" "$err" && fail "--mca plm_rsh_agent was noted, not mapped"
echo "ok: --mca"

# -N / --npernode on one host.
pes 3 -N 3
pes 2 --npernode 2
pes 2 --npernode=2
pes 2 -n 2 -N 3
refused "-n 4 is more than -N 2 PEs on this one host; name more hosts with --host or --hostfile" \
    -n 4 -N 2
echo "ok: -N, --npernode"

# Bad values name the option.
refused "-N expects a number of PEs per host from 1 to 4096, got '0'" -N 0
refused "--npernode expects a number of PEs per host from 1 to 4096, got 'two'" --npernode two
"$shoalrun" --mca btl >"$out" 2>"$err" # (no VALUE: the words run out)
grep -qxF "shoalrun: --mca expects a KEY and a VALUE, got 'btl'" "$err" || fail "--mca btl: no message"
refused "--launch-agent expects a command such as ssh, got ''" --launch-agent ''
refused "--host expects a list of hosts such as node0,node1:2" --host ''
refused "--hostfile expects the name of a file" --hostfile ''
refused "--host and --hostfile cannot be combined: name the hosts in one of them" \
    --host a --hostfile "$tmp/none"
echo "ok: bad values refused"

# Program lookup: PATH first, then the current folder; 127 when nowhere.
mkdir "$tmp/bin" "$tmp/cwd"
name=shoal-compat-prog$$
printf '#!/bin/sh\necho "from-path $SHOAL_RANK"\n' >"$tmp/bin/$name"
printf '#!/bin/sh\necho "from-cwd $SHOAL_RANK"\n' >"$tmp/cwd/$name"
printf '#!/bin/sh\necho "cwd-only $SHOAL_RANK"\n' >"$tmp/cwd/$name-cwd"
chmod 755 "$tmp/bin/$name" "$tmp/cwd/$name" "$tmp/cwd/$name-cwd"
(cd "$tmp/cwd" && PATH=$tmp/bin:$PATH "$shoalrun" -n 2 "$name" >"$out" 2>"$err") ||
    fail "$name in PATH: exit status $?"
[ "$(grep -c '^from-path [01]$' "$out")" -eq 2 ] || fail "PATH was not searched first"
(cd "$tmp/cwd" && "$shoalrun" -n 2 "$name-cwd" >"$out" 2>"$err") ||
    fail "$name-cwd in the current folder: exit status $?"
[ "$(grep -c '^cwd-only [01]$' "$out")" -eq 2 ] || fail "the current folder was not searched"
(cd "$tmp" && "$shoalrun" -n 2 "$name-none" >"$out" 2>"$err")
rc=$?
[ $rc -eq 127 ] || fail "a program found nowhere: exit status $rc, expected 127"
grep -qxF "shoalrun: cannot run '$name-none': not found in PATH or in the current folder" "$err" ||
    fail "a program found nowhere: no message"
echo "ok: program lookup"

# --host/--hostfile without a cluster: a local stand-in agent runs each
# "host" here (the PEs are not Shoal programs, so no store is needed).
printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >"$tmp/agent"
chmod 755 "$tmp/agent"
show='echo "pe $SHOAL_RANK of $SHOAL_NPES at $SHOAL_STORE"'
timeout 60 "$shoalrun" -t --launch-agent "$tmp/agent" -H localhost:2,127.0.0.1 \
    sh -c "$show" >"$out" 2>"$err" || fail "-H localhost:2,127.0.0.1: exit status $?"
for r in 0 1 2; do
    grep -qE "^\[PE $r\] pe $r of 3 at localhost:[0-9]+\$" "$out" || fail "-H: no line of PE $r"
done
[ "$(sed 's/.* at //' "$out" | sort -u | wc -l)" -eq 1 ] || fail "-H: PEs got different stores"
printf 'localhost slots=2\n' >"$tmp/hosts"
timeout 60 "$shoalrun" --mca plm_rsh_agent "$tmp/agent" --hostfile "$tmp/hosts" \
    sh -c 'exit $((SHOAL_RANK == 1 ? 3 : 0))' >"$out" 2>"$err"
rc=$?
[ $rc -eq 3 ] || fail "--hostfile, PE 1 exits 3: exit status $rc"
grep -qE "^shoalrun@localhost: PE 1 \(pid [0-9]+\) exited with status 3" "$err" ||
    fail "--hostfile: PE 1 not named"
grep -qxF "shoalrun: host localhost (PEs 0-1) ended with status 3" "$err" ||
    fail "--hostfile: the host not named"
timeout 60 "$shoalrun" --launch-agent "$tmp/no-agent" -H localhost true >"$out" 2>"$err"
rc=$?
[ $rc -eq 127 ] || fail "a missing launch agent: exit status $rc, expected 127"
grep -qF "shoalrun: cannot run the launch agent '$tmp/no-agent': No such file or directory" \
    "$err" || fail "a missing launch agent: no message"
grep -qF "shoalrun: host localhost (PE 0) ended with status 127 before its shoalrun reported" \
    "$err" || fail "a missing launch agent: the host not named"
echo "ok: --host and --hostfile through a local agent"

# Placement and host lists refused with the option named.
refused "--host expects HOST[:SLOTS],... (SLOTS from 1 to 4096), got 'b:0' in 'a,b:0'" \
    --host a,b:0
refused "-n 3 is more than the 2 slots of the 2 hosts; name more slots (HOST:SLOTS, slots=N) or give --oversubscribe" \
    -n 3 --host a,b
refused "-n 5 is more than -N 2 PEs on each of 2 hosts" -n 5 -N 2 --host a,b
printf 'a slots=2\nb slot=2\n' >"$tmp/bad"
refused "--hostfile $tmp/bad line 2: expected 'HOST [slots=N]' (N from 1 to 4096)" \
    --hostfile "$tmp/bad"
refused "--hostfile $tmp/none: cannot open it: No such file or directory" --hostfile "$tmp/none"
echo "ok: host lists refused"

[ $failures -eq 0 ] || exit 1
echo "all oshrun/mpirun compatibility checks passed"
