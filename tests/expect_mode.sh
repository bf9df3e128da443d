# Sourced by the scripts that run one program in many modes and check each
# job's end (tests/errors/run_bad_input.sh, tests/check/run_check.sh).
# The caller defines run_mode MODE (runs the job, its output on stdout and
# stderr) and sets $out (a temporary file); failures counts what failed.
#
# expect MODE STATUS(nonzero|zero) PATTERN...: the job ends (no hang), with
# a zero or non-zero status as asked, its output holds every PATTERN, and no
# line says "FAIL:" (the program's own checks).
failures=0
expect() {
    mode=$1 want=$2
    shift 2
    run_mode "$mode" >"$out" 2>&1
    rc=$?
    if [ $rc -eq 124 ] || grep -q "did not end within\|still running" "$out"; then
        echo "FAIL $mode: the job hung"; cat "$out"; failures=$((failures + 1)); return
    fi
    if { [ "$want" = nonzero ] && [ $rc -eq 0 ]; } || { [ "$want" = zero ] && [ $rc -ne 0 ]; }; then
        echo "FAIL $mode: exit status $rc, expected $want"; cat "$out"
        failures=$((failures + 1)); return
    fi
    for pattern in "$@"; do
        if ! grep -q -- "$pattern" "$out"; then
            echo "FAIL $mode: output lacks '$pattern':"; cat "$out"
            failures=$((failures + 1)); return
        fi
    done
    if grep -q "FAIL:" "$out"; then
        echo "FAIL $mode:"; cat "$out"; failures=$((failures + 1)); return
    fi
    echo "ok $mode (status $rc)"
}
