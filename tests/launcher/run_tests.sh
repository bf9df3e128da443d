#!/bin/bash
# shellcheck disable=SC2016  # $SHOAL_* in single quotes are for the PEs' shells
# Tests of shoalrun on its own. Usage: run_tests.sh SHOALRUN PE_HELPER CASE [NPES]
#
# Each case runs shoalrun (mostly with pe_helper, a PE that uses the
# launcher bootstrap alone) and checks exit status, messages, output and timing.
set -u
export LC_ALL=C

# shellcheck disable=SC2034  # used by test_lib.sh
SHOALRUN=$1
HELPER=$2
CASE=$3
NP=${4:-2}
# shellcheck source-path=SCRIPTDIR source=test_lib.sh
. "$(dirname "$0")/test_lib.sh"

case $CASE in
kv)
    run -n "$NP" "$HELPER" kv "$MARK"
    expect_rc 0
    for ((r = 0; r < NP; r++)); do expect_line "$TMP/out" "PE $r kv ok"; done
    expect_shoalrun_lines 0
    expect_no_leftovers
    ;;
barrier)
    : >"$TMP/counters"
    run -n "$NP" "$HELPER" barrier 300 "$TMP/counters" "$MARK"
    expect_rc 0
    expect_line "$TMP/out" "PE [0-9]+ barrier ok" "$NP"
    expect_no_leftovers
    ;;
threads)
    run -n "$NP" "$HELPER" threads "$MARK"
    expect_rc 0
    expect_line "$TMP/out" "PE [0-9]+ threads ok" "$NP"
    expect_no_leftovers
    ;;
env)
    run -n "$NP" "$HELPER" env "$MARK"
    expect_rc 0
    expect_line "$TMP/out" "PE [0-9]+ of $NP job [0-9]+-[0-9a-f]{8} env ok" "$NP"
    [ "$(grep -oE 'job [^ ]+' "$TMP/out" | sort -u | wc -l)" -eq 1 ] || fail "PEs disagree on the job id"
    first=$(grep -oE 'job [^ ]+' "$TMP/out" | head -n 1)
    run -n "$NP" "$HELPER" env "$MARK"
    expect_rc 0
    second=$(grep -oE 'job [^ ]+' "$TMP/out" | head -n 1)
    [ "$first" != "$second" ] || fail "two jobs got the same id: $first"
    expect_no_leftovers
    ;;
exit-status)
    # PE 1 exits with 5 after finalizing; the others wait in a barrier.
    run -n "$NP" "$HELPER" exit 1 5 "$MARK"
    expect_rc 5
    expect_line "$TMP/err" "shoalrun: PE 1 \(pid [0-9]+\) exited with status 5; ending the job"
    expect_shoalrun_lines 1
    took_under "$ELAPSED" 4 || fail "the job took $ELAPSED s to end"
    expect_no_leftovers
    # The same for a program that knows nothing of SHMEM.
    run -n "$NP" sh -c 'exit $((SHOAL_RANK == 0 ? 3 : 0))' "$MARK"
    expect_rc 3
    expect_line "$TMP/err" "shoalrun: PE 0 \(pid [0-9]+\) exited with status 3(; ending the job)?"
    run -n "$NP" true
    expect_rc 0
    expect_shoalrun_lines 0
    ;;
signal)
    # PE NP-1 kills itself with SIGKILL; the others ignore SIGTERM and must be
    # ended with SIGKILL 0.3 s later: within 2.5 s on a loaded host (without
    # the escalation the job would last until ctest's timeout).
    victim=$((NP - 1))
    run -n "$NP" "$HELPER" signal "$victim" 9 "$MARK"
    expect_rc 137
    expect_line "$TMP/err" "shoalrun: PE $victim \(pid [0-9]+\) was killed by signal 9 \(Killed\)(; ending the job)?"
    expect_shoalrun_lines 1
    took=$(since_stamp)
    took_under "$took" 2.5 || fail "the job ended $took s after the PE was killed"
    expect_no_leftovers
    ;;
signal-segv)
    run -n "$NP" "$HELPER" signal 0 11 "$MARK"
    expect_rc 139
    expect_line "$TMP/err" "shoalrun: PE 0 \(pid [0-9]+\) was killed by signal 11 \(Segmentation fault\)(, core dumped)?(; ending the job)?"
    expect_no_leftovers
    ;;
nofinalize)
    run -n "$NP" "$HELPER" nofinalize 1 "$MARK"
    expect_rc 1
    expect_line "$TMP/err" "shoalrun: PE 1 \(pid [0-9]+\) exited with status 0 before calling shmem_finalize; ending the job"
    expect_shoalrun_lines 1
    took=$(since_stamp)
    took_under "$took" 2.5 || fail "the job ended $took s after the PE left"
    expect_no_leftovers
    ;;
abort)
    who=$((NP - 1))
    run -n "$NP" "$HELPER" abort "$who" 3 "fatal: out of widgets" "$MARK"
    expect_rc 3
    expect_line "$TMP/err" "fatal: out of widgets"
    expect_shoalrun_lines 0
    took_under "$ELAPSED" 4 || fail "the job took $ELAPSED s to end"
    expect_no_leftovers
    ;;
abort-zero)
    # shmem_global_exit(0) is a clean end, even though the others are killed.
    run -n "$NP" "$HELPER" abort 1 0 "" "$MARK"
    expect_rc 0
    [ ! -s "$TMP/err" ] || fail "stderr is not empty"
    expect_no_leftovers
    ;;
abort-all)
    # Every PE aborts at once: the message is still shown once.
    run -n "$NP" "$HELPER" abort -1 4 "everyone gives up" "$MARK"
    expect_rc 4
    expect_line "$TMP/err" "everyone gives up"
    expect_no_leftovers
    ;;
abort-silent)
    run -n "$NP" "$HELPER" abort 1 6 "" "$MARK"
    expect_rc 6
    expect_line "$TMP/err" "shoalrun: PE 1 \(pid [0-9]+\) ended the job with status 6"
    expect_no_leftovers
    # A status beyond 8 bits must not turn into success.
    run -n "$NP" "$HELPER" abort 1 256 "wrapped" "$MARK"
    expect_rc 1
    ;;
timeout)
    run --timeout 1 -n "$NP" "$HELPER" hang 0,2 "$MARK"
    expect_rc 124
    expect_line "$TMP/err" "shoalrun: timeout after 1 s; PEs still running: 0 2"
    expect_shoalrun_lines 1
    took_under "$ELAPSED" 4.5 || fail "the job took $ELAPSED s"
    less_than 0.99 "$ELAPSED" || fail "the job ended after $ELAPSED s, before its timeout"
    expect_no_leftovers
    # SHOAL_TIMEOUT is the default; fractions work (1.5 s: time for the
    # other PEs to start and finish on a loaded host).
    SHOAL_TIMEOUT=1.5 run -n "$NP" "$HELPER" hang 1 "$MARK"
    expect_rc 124
    expect_line "$TMP/err" "shoalrun: timeout after 1.5 s; PEs still running: 1"
    took_under "$ELAPSED" 5 || fail "the job took $ELAPSED s"
    less_than 1.49 "$ELAPSED" || fail "the job ended after $ELAPSED s, before its timeout"
    expect_no_leftovers
    ;;
tag-output)
    run --tag-output -n "$NP" sh -c 'echo "a $SHOAL_RANK"; echo "b $SHOAL_RANK" >&2; printf "partial $SHOAL_RANK"'
    expect_rc 0
    for ((r = 0; r < NP; r++)); do
        expect_line "$TMP/out" "\[PE $r\] a $r"
        expect_line "$TMP/out" "\[PE $r\] partial $r"
        expect_line "$TMP/err" "\[PE $r\] b $r"
    done
    [ "$(wc -l <"$TMP/out")" -eq $((2 * NP)) ] || fail "stdout has $(wc -l <"$TMP/out") lines"
    # -t is the short form; without it nothing is added.
    run -t -n 1 echo x
    expect_line "$TMP/out" "\[PE 0\] x"
    run -n 1 echo x
    expect_line "$TMP/out" "x"
    ;;
echo)
    run -n 3 /bin/echo hi
    expect_rc 0
    [ "$(cat "$TMP/out")" = "$(printf 'hi\nhi\nhi')" ] || fail "stdout is not three lines 'hi'"
    [ ! -s "$TMP/err" ] || fail "stderr is not empty"
    # An unfinished last line passes unchanged.
    run -n 2 printf x
    [ "$(cat "$TMP/out")" = "xx" ] || fail "stdout is '$(cat "$TMP/out")', expected 'xx'"
    ;;
output)
    # Lots of output on both streams, and one 200000-byte line per PE: every
    # line arrives whole and in order, nothing is lost, nothing deadlocks.
    run -n "$NP" "$HELPER" output 3000 "$MARK"
    expect_rc 0
    for s in out err; do
        awk -v np="$NP" -v s="$s" '
            length($0) == 200000 && $0 ~ /^L+$/ { big++; next }
            {
                if (!($1 == s && $2 == "PE" && $4 == "line" && length($6) == 200 && $7 == "end")) {
                    print "bad line: " substr($0, 1, 80); exit 1
                }
                if ($5 != next_line[$3] + 0) { print "PE " $3 " line " $5 " out of order"; exit 1 }
                next_line[$3] = $5 + 1
            }
            END {
                for (r = 0; r < np; r++)
                    if (next_line[r] != 3000) { print "PE " r " has " next_line[r] " lines"; exit 1 }
                if (s == "out" && big != np) { print big " long lines"; exit 1 }
            }' "$TMP/$s" || fail "the $s stream is not intact"
    done
    expect_no_leftovers
    ;;
stdin)
    printf 'one\ntwo\n' >"$TMP/in"
    STDIN="$TMP/in" run -n "$NP" "$HELPER" stdin "$MARK"
    expect_rc 0
    expect_line "$TMP/out" "PE 0 read one"
    expect_line "$TMP/out" "PE 0 read two"
    expect_line "$TMP/out" "PE [0-9]+ stdin eof" "$NP"
    expect_line "$TMP/out" "PE [1-9][0-9]* read .*" 0
    ;;
options)
    run -n 0 true
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: -n expects a number of PEs from 1 to 4096, got '0'"
    run -np 4097 true
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: -np expects a number of PEs from 1 to 4096, got '4097'"
    run --npes abc true
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: --npes expects a number of PEs from 1 to 4096, got 'abc'"
    run -n
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: -n expects a number of PEs from 1 to 4096, got ''"
    run --timeout -1 true
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: --timeout expects a number of seconds \(0 for no limit\), got '-1'"
    SHOAL_TIMEOUT=soon run true
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: SHOAL_TIMEOUT expects a number of seconds \(0 for no limit\), got 'soon'"
    run --bogus true
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: unknown option '--bogus'; see shoalrun --help"
    run -n 2
    expect_rc 2
    expect_line "$TMP/err" "shoalrun: no program given; usage: .*"
    run --help
    expect_rc 0
    grep -q '^Usage: shoalrun' "$TMP/out" || fail "--help shows no usage"
    run --version
    expect_rc 0
    expect_line "$TMP/out" "shoalrun \(Shoal\) .+"
    # The accepted spellings; -- ends the options, the program's own options pass.
    for spelling in "-n 2" "-np 2" "--npes 2" "--npes=2"; do
        # shellcheck disable=SC2086
        run $spelling sh -c 'echo $SHOAL_NPES'
        expect_rc 0
        expect_line "$TMP/out" "2" 2
    done
    run -n 2 -- echo -n x
    [ "$(cat "$TMP/out")" = "xx" ] || fail "'-- echo -n x' printed '$(cat "$TMP/out")'"
    run --timeout=0 -n 1 true
    expect_rc 0
    ;;
exec-fail)
    run -n "$NP" "/nonexistent/prog-$MARK"
    expect_rc 127
    expect_line "$TMP/err" "shoalrun: cannot run '/nonexistent/prog-$MARK': No such file or directory"
    expect_shoalrun_lines 1
    run -n "$NP" "no-such-program-$MARK"
    expect_rc 127
    expect_line "$TMP/err" "shoalrun: cannot run 'no-such-program-$MARK': not found in PATH or in the current folder"
    printf '#!/bin/sh\n' >"$TMP/notexec"
    chmod 644 "$TMP/notexec"
    if [ "$(id -u)" -ne 0 ] || ! "$TMP/notexec" 2>/dev/null; then
        run -n "$NP" "$TMP/notexec"
        expect_rc 126
        expect_line "$TMP/err" "shoalrun: cannot run '$TMP/notexec': Permission denied"
    fi
    # A name without a slash is looked up in PATH.
    run -n "$NP" true
    expect_rc 0
    expect_no_leftovers
    ;;
launcher-killed)
    # kill -9 of shoalrun must take the PEs with it (PR_SET_PDEATHSIG).
    start_bg "$NP" '^pid ' -n "$NP" "$HELPER" sleep "$MARK"
    kill -KILL "$BG"
    wait "$BG" 2>/dev/null
    for ((i = 0; i < 20; i++)); do
        pgrep -f "$MARK" >/dev/null || break
        sleep 0.05
    done
    expect_no_leftovers
    ;;
forward-INT | forward-TERM | forward-HUP)
    sig=${CASE#forward-}
    num=$(kill -l "$sig")
    start_bg "$NP" 'ready' -n "$NP" "$HELPER" catch "$num" "$MARK"
    kill -"$sig" "$BG"
    wait_bg
    expect_rc $((128 + num))
    expect_line "$TMP/out" "PE [0-9]+ got signal $num" "$NP"
    expect_line "$TMP/err" "shoalrun: received SIG$sig; ending the job"
    expect_no_leftovers
    ;;
signal-escalate)
    # PEs that ignore the forwarded signal are killed about a second later.
    start_bg "$NP" 'ready' -n "$NP" "$HELPER" catch ignore "$MARK"
    t0=$EPOCHREALTIME
    kill -TERM "$BG"
    wait_bg
    took=$(awk -v a="$t0" -v b="$T_END" 'BEGIN { printf "%.3f", b - a }')
    expect_rc 143
    less_than 0.9 "$took" || fail "the PEs were killed after $took s, before their second"
    took_under "$took" 2.0 || fail "the PEs were killed only after $took s"
    expect_no_leftovers
    # A second signal does not wait.
    start_bg "$NP" 'ready' -n "$NP" "$HELPER" catch ignore "$MARK"
    kill -INT "$BG"
    # Two signals sent before shoalrun reads the first merge into one: the
    # second goes once it says it took the first.
    wait_lines "$TMP/err" 1 "received SIGINT; ending the job" ||
        fail "shoalrun did not report the first SIGINT"
    t0=$EPOCHREALTIME
    kill -INT "$BG"
    wait_bg
    took=$(awk -v a="$t0" -v b="$T_END" 'BEGIN { printf "%.3f", b - a }')
    expect_rc 130
    took_under "$took" 0.7 || fail "after the second SIGINT the job took $took s to end"
    expect_line "$TMP/err" "shoalrun: received SIGINT while ending the job; killing the PEs now"
    expect_no_leftovers
    ;;
stuck)
    run -n "$NP" "$HELPER" stuck "$MARK"
    expect_rc 1
    expect_line "$TMP/err" "shoalrun: PE [02] waits in a barrier that cannot complete: PE 1 \(pid [0-9]+\) has exited; ending the job"
    expect_no_leftovers
    ;;
allgather)
    run -n "$NP" "$HELPER" allgather "$MARK"
    expect_rc 0
    expect_no_leftovers
    ;;
request-count) # requests per PE stay O(1): allgathers, not npes gets each
    SHOAL_LOG_LEVEL=2 run -n "$NP" "$HELPER" allgather "$MARK"
    expect_rc 0
    total=$((7 * NP))
    expect_line "$TMP/err" "shoal\[.*\] INFO\(bootstrap\): config store at shoalrun: served $total requests from $NP PEs \([0-9.]+ per PE, at most 7 from one\): put 1, get $((NP - 1)), allgather $((3 * NP)), barrier $NP, event $((2 * NP))"
    expect_no_leftovers
    ;;
claim-rank)
    # A PE cannot take another PE's rank on its own socketpair.
    run -n "$NP" "$HELPER" claim "$MARK"
    expect_rc 10
    expect_line "$TMP/err" "shoal\[.*\] ERROR: the config store at shoalrun refused this PE \(rank 0 of $NP\): this PE says it is rank 0, but the launcher started it as PE 1 \(SHOAL_RANK=1\); a PE cannot claim another PE's rank"
    expect_line "$TMP/err" "shoalrun: PE 1 \(pid [0-9]+\) exited with status 10; ending the job"
    expect_no_leftovers
    ;;
stuck-allgather)
    run -n "$NP" "$HELPER" stuck-allgather "$MARK"
    expect_rc 1
    expect_line "$TMP/err" "shoalrun: PE [02] waits in a bootstrap allgather that cannot complete: PE 1 \(pid [0-9]+\) has exited; ending the job"
    expect_no_leftovers
    ;;
allgather-mismatch)
    run -n "$NP" "$HELPER" allgather-mismatch "$MARK"
    expect_rc 1
    # PE 0 usually arrives first (the others sleep 50 ms), but a loaded host
    # may start it later: then it is the one named, for the other key.
    expect_line "$TMP/err" "shoalrun: PE ([1-9][0-9]* entered the bootstrap allgather 'second' while other PEs are in 'first'|0 entered the bootstrap allgather 'first' while other PEs are in 'second'): every PE must make the same bootstrap collectives in the same order; ending the job"
    expect_no_leftovers
    ;;
stuck-get)
    run -n "$NP" "$HELPER" stuck-get "$MARK"
    expect_rc 1
    expect_line "$TMP/err" "shoalrun: PE 0 waits for key 'never' of PE 1 \(pid [0-9]+\), which exited without publishing it; ending the job"
    expect_no_leftovers
    ;;
garbage)
    run -n "$NP" "$HELPER" garbage "$MARK"
    expect_rc 1
    expect_line "$TMP/err" "shoalrun: PE [0-9]+ \(pid [0-9]+\) broke the bootstrap protocol \(unknown message type\); ending the job"
    expect_shoalrun_lines 1
    expect_no_leftovers
    ;;
idle)
    # While PEs sleep, shoalrun sleeps too: little CPU over a 2 s job.
    TIMEFORMAT='%U %S'
    { time run --timeout 2 -n "$NP" "$HELPER" hang "$(seq -s, 0 $((NP - 1)))" "$MARK"; } 2>"$TMP/cpu"
    cpu=$(cat "$TMP/cpu")
    expect_rc 124
    less_than "$(echo "$cpu" | awk '{ print $1 + $2 }')" 0.5 || fail "the job used $cpu s of CPU (user, sys) while idle"
    expect_no_leftovers
    ;;
*)
    echo "unknown case $CASE"
    exit 2
    ;;
esac
echo "PASS [$CASE np$NP]"
