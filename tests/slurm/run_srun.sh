#!/bin/bash
# Runs a Shoal program with `srun --mpi=pmix` on a private, throwaway Slurm
# cluster, so the PEs use the PMIx bootstrap as they would on a real Slurm
# system. Usage: run_srun.sh NPES HOSTS PROGRAM [ARGS...]
#
# Each run starts its own slurmctld and slurmd (as children of this script,
# in the foreground) from a slurm.conf written into a fresh temporary
# directory, which also holds every state, spool, log and pid file. The
# cluster talks over loopback only, with authentication and credentials
# turned off, on two free ports away from Slurm's defaults (6817/6818). The
# daemons are stopped and the directory removed however the script ends.
#
# HOSTS > 1 places the PEs round-robin on pretend hosts (as_host.sh), so the
# UCX transport carries the traffic between them (TCP over loopback).
# Exit status: srun's; 77 (skipped) when Slurm, its PMIx plugin or a working
# cluster is not available here.
#
# Pitfalls met on the way, kept here so they are not met again:
# - `srun --version` (and every Slurm client) fails without a configuration
#   source, so presence is checked with `command -v`, never by running them.
# - Debian's mpi/pmix plugin (slurm-wlm-basic-plugins) dlopens
#   .../pmix2/lib/libpmix.so, the unversioned name, which only libpmix-dev
#   ships: without libpmix-dev every `--mpi=pmix` step fails.
# - Configuring more CPUs than the machine has makes slurmd register as
#   invalid and the node drains; so the node gets nproc CPUs and the jobs run
#   more tasks than CPUs with --overcommit.
# - slurmstepd is not a child of slurmd (it is double-forked), so killing the
#   daemons, or ctest killing this script's process tree, can leave a step
#   behind. srun runs under `timeout` (below ctest's limit); at exit, jobs
#   are cancelled and the steps awaited before the daemons are stopped, and
#   whatever of this cluster is still alive (found by the files it holds in
#   the temporary directory, or by SLURM_CONF in its environment) is killed.
# - bash runs no trap while it waits for a foreground command, so srun runs
#   in the background and the script `wait`s for it: INT/TERM then clean up
#   at once instead of after the job.
# - A daemon that cannot bind its port exits, but a client asking that port
#   waits MessageTimeout (10 s) if whatever holds it never answers: the
#   readiness poll runs sinfo under `timeout 2`.
# - The PMIx plugin puts per-job client directories under TmpFS (default
#   /tmp) named by job id only; two clusters both count job ids from 1, so
#   TmpFS must point into the temporary directory too.
# - Node and step state of a cluster started by someone else must not leak
#   in: SLURM_* and PMIX_* variables from an outer job are dropped, and
#   SLURM_CONF points every client at this cluster's slurm.conf.
# The functions that only the EXIT trap calls look unreachable to shellcheck.
# shellcheck disable=SC2317
set -u

if [ $# -lt 3 ]; then
    echo "usage: $0 NPES HOSTS PROGRAM [ARGS...]" >&2
    exit 2
fi
np=$1 hosts=$2
shift 2

skip() {
    echo "run_srun: $*: skipped"
    exit 77
}

# The daemons live in sbin, which a user's PATH (or ctest's) may lack.
PATH=$PATH:/usr/sbin:/sbin
for cmd in slurmctld slurmd srun sinfo scontrol scancel; do
    command -v "$cmd" >/dev/null 2>&1 || skip "$cmd not found (apt-get install slurmctld slurmd slurm-client)"
done

here=$(cd "$(dirname "$0")" && pwd)
node=$(hostname -s)
cpus=$(nproc)
dir=$(mktemp -d "${TMPDIR:-/tmp}/shoal-slurm.XXXXXX") || exit 1
ctld_pid="" slurmd_pid="" srun_pid=""

# Processes of this cluster other than this script: those holding a file
# of $dir (matching the glob $1, default any) open, as the daemons and
# slurmctld's helper slurmscriptd do and every slurmstepd does with the
# slurmd log, and the tasks, which have SLURM_CONF=$dir/slurm.conf in their
# environment (so do this script's own children, which is why cleanup drops
# SLURM_CONF before it looks).
ours() {
    {
        find /proc/[0-9]*/fd -lname "${1:-$dir/*}" 2>/dev/null
        grep -lszx "SLURM_CONF=$dir/slurm.conf" /proc/[0-9]*/environ 2>/dev/null
    } | sed -n 's|^/proc/\([0-9]*\)/.*|\1|p' | sort -u | grep -vx "$$"
}

# Waits up to $1 tenths of a second for the pids in $2... to exit.
await() {
    local n=$1 p alive
    shift
    while [ "$n" -gt 0 ]; do
        alive=""
        for p in "$@"; do
            kill -0 "$p" 2>/dev/null && alive=1
        done
        [ -z "$alive" ] && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

# Ends whatever is left of this cluster: the job, its steps and tasks, the
# daemons; then removes $dir. Gracefully first, with SIGKILL after ~11 s.
cleanup() {
    local rc=$? pid
    trap - EXIT HUP INT PIPE TERM
    if [ -n "$srun_pid" ]; then
        kill -TERM "$srun_pid" 2>/dev/null
    fi
    if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
        timeout 5 scancel --quiet --user="$(id -un)" >/dev/null 2>&1
    fi
    [ -n "$srun_pid" ] && { await 50 "$srun_pid" || kill -KILL "$srun_pid" 2>/dev/null; }
    unset SLURM_CONF
    # Let slurmstepd finish the step while slurmd and slurmctld still listen.
    # shellcheck disable=SC2046 # one word per pid
    await 30 $(ours "$dir/slurmd.log" | grep -vx "${slurmd_pid:-x}")
    for pid in $slurmd_pid $ctld_pid; do
        kill -TERM "$pid" 2>/dev/null
    done
    # shellcheck disable=SC2086 # one word per pid
    await 30 $slurmd_pid $ctld_pid
    for pid in $slurmd_pid $ctld_pid $(ours); do
        kill -KILL "$pid" 2>/dev/null
    done
    for pid in $slurmd_pid $ctld_pid; do
        wait "$pid" 2>/dev/null
    done
    rm -rf "$dir"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 141' PIPE
trap 'exit 143' TERM

# A port nobody listens on, between 20000 and 32767: off Slurm's defaults
# and below the kernel's ephemeral range, so no outgoing connection takes it
# while the daemons start.
free_port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 12768))
        [ "$p" = "${1:-}" ] && continue
        if command -v ss >/dev/null 2>&1; then
            [ -n "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] && continue
        fi
        echo "$p"
        return
    done
}

write_conf() {
    mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
    cat >"$dir/slurm.conf" <<EOF
ClusterName=shoal$$
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
KillWait=2
InactiveLimit=0
MinJobAge=5
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=$node CPUs=$cpus State=UNKNOWN
PartitionName=shoal Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
}

# Starts both daemons and waits up to 20 s for the node to be idle.
# Returns 1 when a port was taken (a daemon that cannot bind retries for
# ~10 s before it exits, so its log is watched instead), 2 when a daemon
# died or the node is not idle in time.
start_cluster() {
    local state
    # Without SLURM_CONF in their environment, so that cleanup's search by
    # environment finds tasks only.
    env -u SLURM_CONF slurmctld -D -f "$dir/slurm.conf" >>"$dir/slurmctld.out" 2>&1 &
    ctld_pid=$!
    env -u SLURM_CONF slurmd -D -f "$dir/slurm.conf" -N "$node" >>"$dir/slurmd.out" 2>&1 &
    slurmd_pid=$!
    for _ in $(seq 200); do
        grep -qs "Address already in use" "$dir"/*.log "$dir"/*.out && return 1
        kill -0 "$ctld_pid" 2>/dev/null && kill -0 "$slurmd_pid" 2>/dev/null || return 2
        # A port taken by something else may accept and never answer.
        state=$(timeout 2 sinfo -h -N -n "$node" -o %T 2>/dev/null)
        case $state in
        idle*) return 0 ;;
        esac
        sleep 0.1
    done
    return 2
}

stop_cluster() {
    local pid
    for pid in $slurmd_pid $ctld_pid; do
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    ctld_pid="" slurmd_pid=""
    rm -rf "${dir:?}"/*
}

export SLURM_CONF=$dir/slurm.conf
# A port found free can be taken before the daemon binds it (by a
# concurrent run); the daemon then exits, and the next try takes new ports.
for try in 1 2 3; do
    ctld_port=$(free_port)
    slurmd_port=$(free_port "$ctld_port")
    write_conf
    start_cluster
    up=$?
    if [ "$up" -ne 1 ] || [ "$try" -eq 3 ]; then
        break
    fi
    stop_cluster
done
if [ "$up" -ne 0 ]; then
    # A daemon that failed before opening its log said why on stdout.
    for d in slurmctld slurmd; do
        f=$dir/$d.log
        [ -s "$f" ] || f=$dir/$d.out
        [ -s "$f" ] && { echo "--- tail of $d's log"; tail -n 15 "$f"; }
    done
    skip "the Slurm daemons did not come up within 20 s"
fi
# The controller answering must be this run's, not another cluster's that
# took the port in between.
scontrol show config 2>/dev/null | grep -q "^ClusterName *= *shoal$$\$" ||
    skip "the controller on port $ctld_port is not this run's"
srun --mpi=list 2>&1 | grep -qw pmix || skip "Slurm's mpi/pmix plugin is missing"

# Only this job's own launcher variables may reach the PEs: leftovers from
# shoalrun, a config-store job or an outer Slurm/PMIx job would send Shoal's
# bootstrap (or srun) the wrong way.
for v in $(compgen -e); do
    case $v in
    SLURM_CONF) ;;
    SLURM_* | PMIX_* | PMI_* | SHOAL_RANK | SHOAL_NPES | SHOAL_STORE | SHOAL_LAUNCHER_FD | SHOAL_NODE)
        unset "$v" ;;
    esac
done

wrap=()
if [ "$hosts" -gt 1 ]; then
    # Loopback only, TCP only: the pretend hosts share one network stack.
    export UCX_TLS=tcp UCX_NET_DEVICES=lo SHOAL_TEST_HOSTS=$hosts
    wrap=("$here/../multihost/as_host.sh")
fi

# srun gets a time limit of its own (SHOAL_SRUN_TIMEOUT seconds, below
# ctest's 180), so a hung job is ended by srun tearing the step down rather
# than by ctest killing this script with SIGKILL, which no trap survives.
# It runs in the background so that INT or TERM interrupt `wait` and reach
# cleanup at once instead of after srun returns.
timeout --signal=TERM --kill-after=10 "${SHOAL_SRUN_TIMEOUT:-150}" \
    srun --mpi=pmix -N 1 -n "$np" --overcommit --kill-on-bad-exit=1 \
    "${wrap[@]}" "$@" &
srun_pid=$!
wait "$srun_pid"
rc=$?
srun_pid=""
exit "$rc"
