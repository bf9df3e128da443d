# sanitizer_verdict.sh: sourced by the sanitizer runners (tests/asan/run_asan_api.sh,
# tests/netns/run_asan.sh): the options every sanitized run uses, and the one
# rule for reading a run's result.

# Leaks on; the first report of any sanitizer ends the PE with a nonzero
# status (and so the job).
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0 ${ASAN_OPTIONS:-}"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1 ${UBSAN_OPTIONS:-}"
export ASAN_OPTIONS UBSAN_OPTIONS

# sanitizer_verdict TOOL WHAT RC LOG: a run is clean when it exited 0, its
# program said PASS and no sanitizer spoke; else prints the first report (or
# the log's tail). Prints one line either way; returns 0 when clean.
sanitizer_verdict() {
    if [ "$3" -eq 0 ] && grep -q 'PASS' "$4" && ! grep -q -E 'Sanitizer|runtime error' "$4"; then
        echo "$1: $2: clean"
        return 0
    fi
    echo "$1: $2: FAILED (status $3, log: $4)"
    grep -m1 -A40 -E 'ERROR: (Address|Leak)Sanitizer|runtime error' "$4" || tail -n 40 "$4"
    return 1
}
