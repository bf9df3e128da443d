#!/bin/bash
# Hang reports of programs that hang on purpose (hang_prog.c). Usage:
#   run_hang.sh SHOALRUN HANG_PROG CASE NPES HOW
# HOW: shoalrun  the job runs under shoalrun --timeout, which asks every PE
#                for its report before it ends the job (status 124);
#      env       SHOAL_HANG_TIMEOUT=2: the lowest PE of the host notices,
#                asks the others and ends the job (status 124);
#      signal    CASE busy or sleep (no hang): SIGUSR1 to shoalrun three
#                times while it runs; the program must still finish
#                correctly (sleep: each PE's sleep(2) not cut short).
# Checks that the reports name the PE, the call and the values, that the
# job ends, and that no process or /dev/shm file is left behind.
set -u
export LC_ALL=C

# shellcheck disable=SC2034  # used by test_lib.sh
SHOALRUN=$1
PROG=$2
CASE=$3
NP=$4
HOW=$5
# shellcheck source-path=SCRIPTDIR source=../launcher/test_lib.sh
. "$(dirname "$0")/../launcher/test_lib.sh"

# expect_some FILE REGEX: at least one whole line matches.
expect_some() {
    grep -qxE -- "$2" "$1" || fail "$(basename "$1") has no line matching /$2/"
}

# HOW shoalrun-hosts2: under shoalrun --timeout on two pretend hosts
# (SHOAL_NODE by tests/multihost/as_host.sh): the verdict comes from the
# lowest PE of the culprit's host.
LAUNCH=("$PROG")
LEADER=0
if [ "$HOW" = shoalrun-hosts2 ]; then
    export SHOAL_TEST_HOSTS=2
    LAUNCH=("$(dirname "$0")/../multihost/as_host.sh" "$PROG")
    LEADER=$(((NP - 1) % 2))
    HOW=shoalrun
fi
LAST=$((NP - 1))
H='shoal\[PE ([0-9]+)\] hang: '
# signal-skipped needs the flight recorder: PE SKIP never sends round 3's
# signal to PE WAITER.
if [ "$CASE" = signal-skipped ]; then
    export SHOAL_FLIGHT=1
    SKIP=$((NP > 5 ? 5 : LAST))
    WAITER=$(((SKIP + 1) % NP))
fi

case $HOW in
shoalrun)
    # 4 s: every PE (8 on 2 loaded CPUs) is in its hang by then; not under
    # a sanitizer, whose start-up is slower: scripts/test_sanitized.sh sets
    # SHOAL_TEST_HANG_AFTER (seconds) higher.
    after=${SHOAL_TEST_HANG_AFTER:-4}
    run -n "$NP" --timeout "$after" "${LAUNCH[@]}" "$CASE" "$MARK"
    expect_rc 124
    expect_line "$TMP/err" "shoalrun: timeout after $after s; asking the PEs for their hang reports"
    expect_some "$TMP/err" "shoalrun: timeout after $after s; PEs still running: .*"
    ;;
env)
    if [ "$CASE" = frozen ]; then
        # The last PE stopped (SIGSTOP) while the PEs run barriers in a loop.
        SHOAL_HANG_TIMEOUT=2 start_bg "$NP" '^PE [0-9]+ pid [0-9]+$' -n "$NP" --timeout 60 \
            "$PROG" "$CASE" "$MARK"
        FROZEN=$(sed -n "s/^PE $LAST pid \([0-9]*\)$/\1/p" "$TMP/out")
        kill -STOP "$FROZEN"
        wait_bg
    else
        SHOAL_HANG_TIMEOUT=2 run -n "$NP" --timeout 60 "$PROG" "$CASE" "$MARK"
    fi
    expect_rc 124
    expect_line "$TMP/err" "shoal\[PE 0\] hang: PE [0-9]+ has been blocked for more than SHOAL_HANG_TIMEOUT=2 s; ending the job \(status 124; SHOAL_HANG_ABORT=0 keeps it waiting\)"
    ;;
signal)
    # CASE busy: the requests come while the PEs work; CASE sleep: while
    # every PE is in sleep(2), which must not be cut short.
    ready='^PE [0-9]+ started$' gap=0.3
    [ "$CASE" = sleep ] && ready='^PE [0-9]+ sleeping$' gap=0.15
    start_bg "$NP" "$ready" -n "$NP" --timeout 90 "$PROG" "$CASE" "$MARK" "$TMP/stop"
    for i in 1 2 3; do
        sleep "$gap"
        kill -USR1 "$BG"
        # Two SIGUSR1 that reach shoalrun before it took the first merge into
        # one (a busy machine can hold it off longer than the gap): the next
        # request waits until shoalrun has said it took this one (~10 s at most).
        for _ in $(seq 100); do
            [ "$(grep -c '^shoalrun: received SIGUSR1' "$TMP/err")" -ge "$i" ] && break
            sleep 0.1
        done
    done
    # The program runs until $TMP/stop exists: stop it once shoalrun has taken
    # the three requests, every PE has answered one and every report begun
    # has ended (at most ~20 s).
    for _ in $(seq 200); do
        [ "$(grep -c '^shoalrun: received SIGUSR1' "$TMP/err")" -ge 3 ] &&
            [ "$(grep -cE "^${H}end of hang report of PE" "$TMP/err")" -ge "$NP" ] &&
            [ "$(grep -cE "^${H}report of PE" "$TMP/err")" -eq \
                "$(grep -cE "^${H}end of hang report of PE" "$TMP/err")" ] && break
        sleep 0.1
    done
    sleep 0.5 # a PE's report still on its way
    touch "$TMP/stop"
    wait_bg
    expect_rc 0
    if [ "$CASE" = sleep ]; then
        expect_line "$TMP/out" "PE [0-9]+ slept the full 2 s, [0-9]+ times" "$NP"
    else
        expect_line "$TMP/out" "PE [0-9]+ ok after [0-9]+ rounds" "$NP"
    fi
    expect_line "$TMP/err" "shoalrun: received SIGUSR1; asking the PEs for their hang reports \([0-9]+ processes\)" 3
    # Every report is complete, and each PE made some (the first request may
    # come before a PE's library is up; from then on each one answers).
    for ((pe = 0; pe < NP; pe++)); do
        expect_some "$TMP/err" "shoal\[PE $pe\] hang: end of hang report of PE $pe"
    done
    n_begin=$(grep -cE "^${H}report of PE" "$TMP/err")
    n_end=$(grep -cE "^${H}end of hang report of PE" "$TMP/err")
    [ "$n_begin" -eq "$n_end" ] || fail "$n_begin reports began, $n_end ended"
    expect_no_leftovers
    expect_no_new_shm
    echo "PASS [$CASE np$NP $HOW]"
    exit 0
    ;;
*)
    echo "unknown HOW $HOW"
    exit 2
    ;;
esac

# Every PE reported, completely (but a stopped one).
REPORTERS=$NP
[ "$CASE" = frozen ] && REPORTERS=$LAST
for ((pe = 0; pe < REPORTERS; pe++)); do
    expect_line "$TMP/err" "shoal\[PE $pe\] hang: report of PE $pe of $NP \(host .*, pid [0-9]+\), .*"
    expect_line "$TMP/err" "shoal\[PE $pe\] hang: end of hang report of PE $pe"
done

WORLD="SHMEM_TEAM_WORLD \[PEs 0\.\.$LAST\]"
case $CASE in
barrier-missing)
    expect_line "$TMP/err" "shoal\[PE $LEADER\] hang: verdict: PE $LAST has not entered shmem_barrier_all on $WORLD; it is in shmem_long_wait_until\(&hang_flag, SHMEM_CMP_EQ, 1\) with hang_flag = 0"
    for ((pe = 0; pe < LAST; pe++)); do
        expect_line "$TMP/err" "shoal\[PE $pe\] hang:   thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_barrier_all on $WORLD"
        if [ "${#LAUNCH[@]}" -eq 1 ] || [ $((pe % 2)) -eq $((LAST % 2)) ]; then
            expect_line "$TMP/err" "shoal\[PE $pe\] hang:     PE $LAST has not arrived: in shmem_long_wait_until\(&hang_flag, SHMEM_CMP_EQ, 1\) with hang_flag = 0"
        else
            expect_line "$TMP/err" "shoal\[PE $pe\] hang:     on other hosts, not visible here: PEs .*"
        fi
    done
    expect_line "$TMP/err" "shoal\[PE $LAST\] hang:   thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_long_wait_until\(&hang_flag, SHMEM_CMP_EQ, 1\) with hang_flag = 0"
    expect_line "$TMP/err" "shoal\[PE $LAST\] hang:     address 0x[0-9a-f]+: global 'hang_flag'; 8-byte signed"
    ;;
signal-skipped)
    # The verdict names the PE that never sent, where it is now, and what
    # the waiting PE's own lines show of the signal's history.
    expect_line "$TMP/err" "shoal\[PE $LEADER\] hang: verdict: PE $WAITER waits for hang_sig >= 3 and sees 2: a signal that only PE $SKIP sends; PE $SKIP last sent one [0-9.]+ ms ago \(shmem_long_put_signal, value 2\) and is now in shmem_barrier_all on $WORLD"
    expect_line "$TMP/err" "shoal\[PE $WAITER\] hang:   thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_signal_wait_until\(&hang_sig, SHMEM_CMP_GE, 3\) with hang_sig = 2"
    expect_line "$TMP/err" "shoal\[PE $WAITER\] hang:     flight record: the last writes to it:"
    # (in the writes, and in the sender's last events when its own waits left no events after it)
    expect_some "$TMP/err" "shoal\[PE $WAITER\] hang:       PE $SKIP shmem_long_put_signal: signal to PE $WAITER at hang_sig, SHMEM_SIGNAL_SET 2 after 8 bytes of data, [0-9.]+ ms ago"
    expect_some "$TMP/err" "shoal\[PE $WAITER\] hang:       PE $SKIP shmem_signal_set: signal to PE $WAITER at hang_sig, SHMEM_SIGNAL_SET 1, [0-9.]+ ms ago"
    expect_line "$TMP/err" "shoal\[PE $WAITER\] hang:     flight record: the last events of PE $SKIP \(which writes it\):"
    expect_line "$TMP/err" "shoal\[PE $WAITER\] hang:       PE $SKIP shmem_barrier_all: entered barrier #[0-9]+ of this PE \($NP PEs\), [0-9.]+ ms ago"
    ;;
frozen)
    expect_line "$TMP/err" "shoal\[PE 0\] hang: verdict: PE $LAST is not running: it is stopped \(SIGSTOP, a debugger or job control\); the PEs that wait for it go on only once it is continued \(kill -CONT $FROZEN\); when stopped it was .*"
    [ -z "$(grep -E "^shoal\[PE $LAST\] hang: report of" "$TMP/err")" ] ||
        fail "the stopped PE $LAST made a report"
    ;;
wait-global)
    expect_line "$TMP/err" "shoal\[PE 0\] hang: verdict: PE 0 has not entered shmem_finalize; it is in shmem_long_wait_until\(&hang_flag, SHMEM_CMP_EQ, 1\) with hang_flag = 0"
    expect_line "$TMP/err" "shoal\[PE 0\] hang:     address 0x[0-9a-f]+: global 'hang_flag'; 8-byte signed"
    expect_line "$TMP/err" "${H}  thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_finalize, in its barrier: waiting for every PE to call shmem_finalize" "$LAST"
    ;;
wait-heap)
    expect_line "$TMP/err" "shoal\[PE 0\] hang: verdict: PE 0 has not entered shmem_finalize; it is in shmem_long_wait_until\(&ivar, SHMEM_CMP_NE, 0\) with \*ivar = 0"
    expect_line "$TMP/err" "shoal\[PE 0\] hang:     address 0x[0-9a-f]+: symmetric heap offset 24, in the allocation of 64 bytes at heap offset 0; 8-byte signed"
    ;;
bcast-root)
    expect_line "$TMP/err" "shoal\[PE 0\] hang: verdict: the PEs disagree on the root of shmem_long_broadcast on $WORLD: PE 0 passes root 0, PE 1 passes root 1"
    expect_line "$TMP/err" "shoal\[PE 1\] hang:   thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_long_broadcast on $WORLD with root 1"
    expect_line "$TMP/err" "${H}  thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_long_broadcast on $WORLD with root 0" "$LAST"
    ;;
lock-held)
    expect_line "$TMP/err" "shoal\[PE 0\] hang: verdict: PEs? [0-9, ]+ waits? in shmem_set_lock for hang_lock; PE 0 holds it and is in shmem_long_wait_until\(&hang_flag, SHMEM_CMP_EQ, 1\) with hang_flag = 0"
    expect_line "$TMP/err" "shoal\[PE 0\] hang:   thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_long_wait_until\(&hang_flag, SHMEM_CMP_EQ, 1\) with hang_flag = 0"
    for ((pe = 1; pe < NP; pe++)); do
        expect_line "$TMP/err" "shoal\[PE $pe\] hang:   thread [0-9]+ \(main\) blocked for [0-9.]+ s in shmem_set_lock\(&hang_lock\) waiting for ticket [1-9][0-9]*, ticket 0 served now \($NP handed out\)"
        expect_line "$TMP/err" "shoal\[PE $pe\] hang:     address 0x[0-9a-f]+: global 'hang_lock'"
    done
    ;;
*)
    echo "unknown case $CASE"
    exit 2
    ;;
esac
expect_no_leftovers
expect_no_new_shm
echo "PASS [$CASE np$NP $HOW]"
