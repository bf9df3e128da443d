#!/bin/bash
# shoalrun's default placement and the PEs' wait policy (tools/shoalrun/bind.c,
# src/core/backoff.c), in a network namespace of its own so that CPU claims of
# jobs run by other tests at the same time are not seen (claims are abstract
# unix sockets, which belong to a network namespace):
#  - PEs that fit on the CPUs are pinned one per CPU by default, and
#    --report-bindings says so; more PEs than CPUs are not pinned, with the
#    reason; concurrent jobs take different CPUs, and a job that finds every
#    CPU held runs unpinned;
#  - bound PEs keep spinning in waits (the policy counts the CPUs of all of the
#    host's PEs, not one PE's own mask); PEs outnumbering CPUs do not spin;
#  - PEs that share a CPU although their masks allow more (placed there as
#    the scheduler sometimes does) stop spinning once one saw the other wait
#    on its CPU, and bound PEs on CPUs of their own never do.
# Usage: run_bind_default.sh SHOALRUN BIND_CHECK SHARE_CPU
set -u
SHOALRUN=$1 BIND_CHECK=$2 SHARE_CPU=$3
CASE=bind-default NP=-
if [ "${SHOAL_BIND_NETNS:-}" != 1 ]; then
    # Re-run in a new network namespace, or skip where none can be made.
    if ! unshare -n true 2>/dev/null; then
        echo "run_bind_default: skipped: unshare -n fails here (needs root)"
        exit 77
    fi
    exec env SHOAL_BIND_NETNS=1 unshare -n "$0" "$@"
fi
# shellcheck source=tests/launcher/test_lib.sh
. "$(dirname "$0")/test_lib.sh"

cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
ncpus=$(nproc)
echo "CPUs $cpus ($ncpus)"

# 1. PEs that fit are pinned, PE i to the i-th CPU; bind_check verifies
# each PE's mask from inside and PE 0 gathers them.
for ((np = 1; np <= ncpus && np <= 4; np++)); do
    NP=$np
    run -n "$np" --report-bindings -x SHT_X_VAR=x --timeout 50 "$BIND_CHECK" core "$cpus" x
    expect_rc 0
    expect_line "$TMP/err" "shoalrun: PE [0-9]+ bound to CPU [0-9]+ \(of $cpus\)" "$np"
    [ "$(grep -oE 'bound to CPU [0-9]+' "$TMP/err" | sort -u | wc -l)" -eq "$np" ] ||
        fail "two PEs were pinned to one CPU"
    echo "ok: $np PEs pinned one per CPU by default"
done

# 2. More PEs than CPUs: none pinned, and --report-bindings says why.
NP=$((ncpus + 1))
run -n "$NP" --report-bindings -x SHT_X_VAR=x --timeout 50 "$BIND_CHECK" none "$cpus" x
expect_rc 0
expect_line "$TMP/err" "shoalrun: PE [0-9]+ not bound: may run on CPUs $cpus \($NP PEs do not fit on the $ncpus CPUs shoalrun may use\)" "$NP"
echo "ok: $NP PEs on $ncpus CPUs run unpinned"

# 3. Jobs at once: each 1-PE job takes a CPU no other job holds; once every
# CPU is held, the next job runs unpinned and says which jobs hold them.
NP=1
if [ "$ncpus" -le 8 ]; then
    pids=()
    for ((k = 0; k < ncpus; k++)); do
        "$SHOALRUN" -n 1 --report-bindings sh -c 'sleep 30' "$MARK" 2>"$TMP/job$k" &
        pids+=($!)
        wait_lines "$TMP/job$k" 1 "^shoalrun: PE 0 bound to CPU" ||
            fail "job $k was not pinned: $(cat "$TMP/job$k")"
    done
    taken=$(cat "$TMP"/job* | grep -oE 'bound to CPU [0-9]+' | sort -u | wc -l)
    [ "$taken" -eq "$ncpus" ] || fail "$ncpus jobs took $taken distinct CPUs"
    run -n 1 --report-bindings -x SHT_X_VAR=x "$BIND_CHECK" none "$cpus" x
    expect_rc 0
    expect_line "$TMP/err" "shoalrun: PE 0 not bound: may run on CPUs $cpus \(other jobs on this host hold $ncpus of the $ncpus CPUs shoalrun may use, leaving 0 for 1 PEs\)"
    kill "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
    echo "ok: $ncpus concurrent jobs took distinct CPUs; the next one ran unpinned"
fi

# 4. The wait policy from the CPUs of all the host's PEs.
if [ "$ncpus" -ge 2 ]; then
    NP=2
    SHOAL_LOG_LEVEL=3 run -n 2 --bind-to core --timeout 50 "$SHARE_CPU" nopin 2000
    expect_rc 0
    expect_line "$TMP/err" "shoal\[.*\] DEBUG\(core\): 2 PEs of this host, [0-9]+ CPUs for them: waits spin [0-9]+ polls, unless another PE waited on the same CPU" 2
    grep -q "waited on CPU" "$TMP/err" && fail "PEs on CPUs of their own stopped spinning"
    echo "ok: 2 PEs bound one per CPU keep spinning ($(cat "$TMP/out"))"
fi
NP=$((ncpus * 2))
SHOAL_LOG_LEVEL=3 run -n "$NP" --bind-to core --timeout 50 "$SHARE_CPU" nopin 200
expect_rc 0
expect_line "$TMP/err" "shoal\[.*\] DEBUG\(core\): $NP PEs of this host share $ncpus CPUs: waits yield without spinning" "$NP"
echo "ok: $NP PEs bound to $ncpus CPUs do not spin"

# 5. Unbound PEs the scheduler put on one CPU: both see the other there.
if [ "$ncpus" -ge 2 ]; then
    NP=2
    SHOAL_LOG_LEVEL=3 run -n 2 --bind-to none --timeout 50 "$SHARE_CPU" pin 3000
    expect_rc 0
    expect_line "$TMP/err" "shoal\[.*\] DEBUG\(core\): PE [01] waited on CPU [0-9]+ too: this wait yields at once .*" 2
    echo "ok: 2 PEs on one CPU stop spinning ($(cat "$TMP/out"))"
fi
expect_no_leftovers
echo "all default-binding and wait-policy checks passed"
