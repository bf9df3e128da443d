# shellcheck shell=bash disable=SC2034  # RC, ELAPSED, T_END are for the caller
# Shell helpers shared by the launcher and fault tests; sourced after
# SHOALRUN, CASE and NP are set. Every PE gets the unique $MARK as an
# argument, so that `pgrep -f` finds any process left behind once shoalrun
# has returned.

MARK="shoaltestmark${RANDOM}x$$"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
: >"$TMP/out"
: >"$TMP/err"

fail() {
    echo "FAIL [$CASE np$NP]: $*"
    echo "--- shoalrun stdout (first 40 lines):"
    head -n 40 "$TMP/out" | cut -c1-300
    echo "--- shoalrun stderr (first 40 lines):"
    head -n 40 "$TMP/err" | cut -c1-300
    pkill -KILL -f "$MARK" 2>/dev/null
    exit 1
}

# run ARGS...: runs shoalrun with stdin from $STDIN (default /dev/null);
# sets RC and ELAPSED (seconds) and leaves the output in $TMP/out, $TMP/err.
run() {
    local t0=$EPOCHREALTIME
    "$SHOALRUN" "$@" <"${STDIN:-/dev/null}" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    T_END=$EPOCHREALTIME
    ELAPSED=$(awk -v a="$t0" -v b="$T_END" 'BEGIN { printf "%.3f", b - a }')
}

expect_rc() {
    [ "$RC" -eq "$1" ] || fail "exit status $RC, expected $1"
}

# expect_line FILE REGEX [COUNT]: COUNT (default 1) whole lines match.
expect_line() {
    local n
    n=$(grep -cxE -- "$2" "$1")
    [ "$n" -eq "${3:-1}" ] || fail "$(basename "$1") has $n lines matching /$2/, expected ${3:-1}"
}

# expect_shoalrun_lines N: shoalrun printed exactly N lines of its own.
expect_shoalrun_lines() {
    local n
    n=$(grep -c '^shoalrun: ' "$TMP/err")
    [ "$n" -eq "$1" ] || fail "shoalrun printed $n messages, expected $1"
}

less_than() { # less_than A B: A < B as decimals
    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'
}

# took_under SECONDS LIMIT: a time bound, scaled by SHOAL_TEST_TIME_SCALE
# (scripts/test_sanitized.sh sets it: a sanitized process runs several
# times slower, and the bound is the main suite's to check).
took_under() {
    awk -v a="$1" -v b="$2" -v k="${SHOAL_TEST_TIME_SCALE:-1}" 'BEGIN { exit !(a < b * k) }'
}

expect_no_leftovers() {
    if pgrep -f "$MARK" >/dev/null; then
        pgrep -af "$MARK"
        fail "processes left behind after shoalrun returned"
    fi
}

# Seconds from the time stamp a PE printed ("... at T") to shoalrun's end.
since_stamp() {
    local stamp
    stamp=$(grep -oE ' at [0-9]+\.[0-9]+' "$TMP/out" | head -n 1 | cut -c5-)
    [ -n "$stamp" ] || fail "no time stamp in the output"
    awk -v a="$stamp" -v b="$T_END" 'BEGIN { printf "%.3f", b - a }'
}

# Waits up to 10 s until COUNT lines of FILE match REGEX; status 1 if not.
wait_lines() { # wait_lines FILE COUNT REGEX
    local i
    for ((i = 0; i < 200; i++)); do
        [ "$(grep -cE -- "$3" "$1")" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

# Starts shoalrun in the background (job control on, so SIGINT is not
# ignored in it) and waits until COUNT lines of its stdout match REGEX.
start_bg() { # start_bg COUNT REGEX ARGS...
    local count=$1 regex=$2
    shift 2
    : >"$TMP/out" # now, so that the wait below cannot see an earlier job's lines
    : >"$TMP/err"
    set -m
    "$SHOALRUN" "$@" </dev/null >"$TMP/out" 2>"$TMP/err" &
    BG=$!
    set +m
    wait_lines "$TMP/out" "$count" "$regex" ||
        fail "the PEs did not start (waited for $count lines matching /$regex/)"
}

wait_bg() {
    wait "$BG"
    RC=$?
    T_END=$EPOCHREALTIME
}

# /dev/shm as it was when the script started, and a failure for anything the
# job left there (tests that end jobs abnormally call it last). Open MPI's
# shared-memory files are ignored: the project runs oshrun side by side for
# comparison, possibly at the same time as these tests. So is a new entry
# that a live process still has open or mapped: it belongs to a job that is
# still running (ctest runs tests in parallel), not to this one, whose
# processes expect_no_leftovers has seen gone.
FOREIGN_SHM='^vader_segment\.'
find /dev/shm -mindepth 1 -maxdepth 1 -printf '%f\n' | sort >"$TMP/shm.before"
shm_held() { # NAME: some live process has /dev/shm/NAME open or mapped
    [ -n "$(find /proc/[0-9]*/fd -lname "/dev/shm/$1" -print -quit 2>/dev/null)" ] ||
        grep -qsF " /dev/shm/$1" /proc/[0-9]*/maps
}
expect_no_new_shm() {
    find /dev/shm -mindepth 1 -maxdepth 1 -printf '%f\n' | sort >"$TMP/shm.after"
    local new name left=
    new=$(comm -13 "$TMP/shm.before" "$TMP/shm.after" | grep -vE "$FOREIGN_SHM")
    for name in $new; do
        shm_held "$name" || left="$left $name"
    done
    [ -z "$left" ] || fail "left behind in /dev/shm:$left"
}
