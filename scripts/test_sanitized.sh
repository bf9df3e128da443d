#!/bin/sh
# The failure paths under sanitizers: ctest runs whole groups of the suite,
# chosen by label, in sanitized build trees of their own (a sanitizer must
# cover the whole library, so it cannot share the main build):
#   asan    errors, fault, hang, check, trace, log, store (the refusal and
#           attack tests included) and device (the stand-in driver) against
#           an AddressSanitizer + UBSan + LeakSanitizer build of the tree;
#   python  the Python suites against the same build, libasan preloaded into
#           the interpreter (Debian's python3 is not sanitized) and leak
#           checks off (CPython keeps its memory to the end on purpose);
#   tsan    store and hang (the store thread, the hang watchdog and the
#           signal-report thread) against a ThreadSanitizer build.
# A test joins a group by its label, so a test added to one of those folders
# is covered without an edit here. Tests at 8 PEs are left out (see
# SKIP_NAMES). Excluded, by label, with the reason:
#   fuzz      store.fuzz builds its own ASan+UBSan libFuzzer target; the main
#             run runs it;
#   gpu       needs a GPU, and nvcc takes none of the sanitizer flags;
#   bench     (python) prints timings, which mean nothing under a sanitizer;
#   install   (python) python_pip_venv.*: their first step, `python3 -m
#             venv`, never ends with the python group's libasan preloaded
#             (procps' pgrep hangs there too, in glibc's textdomain()); they
#             test packaging, and the program they then run is
#             python_doc_example's, which runs here;
#   multihost (tsan) pretend hosts load UCX, whose libucm interposes mmap and
#             madvise under ThreadSanitizer (docs/architecture.md); the UCX
#             paths run under ASan in the asan group and in netns_asan.
# and by name (python): python_mypy_examples, which type-checks the examples
# with mypy and runs no Shoal code (under the preloaded libasan mypy alone
# ran past the test's 240 s).
# Every sanitized process writes its report, if any, to a file of its own
# (log_path, named after the program and its pid) under the tree's
# sanitizer-reports/GROUP: any such file fails the run, also where its test
# expected the job to fail (the bad-input and fault tests do) and where a
# script kept the PE's output to itself. The first report ends the process
# (halt_on_error). UBSan's reports reach those files too only through
# tests/sanitizer_ubsan_log.c, which tests/sanitized_build.sh links into
# every program and library of the ASan+UBSan tree (gcc's libubsan would
# otherwise write them to stderr).
#
# usage: scripts/test_sanitized.sh [BUILD_DIR [GROUP...]]
#   BUILD_DIR: the main build (default ./build); the trees are
#   BUILD_DIR/asan-build and BUILD_DIR/tsan-build, the ones ctest's asan_api
#   and tsan_threads build (so only what those did not build is compiled).
#   GROUP: asan, python, tsan (default: all three). Extra ctest options may
#   be given in SHOAL_SANITIZED_CTEST (e.g. "-R store").
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
[ $# -gt 0 ] && shift
groups=${*:-asan python tsan}
case $build in /*) ;; *) build=$(pwd)/$build ;; esac
jobs=$(nproc)

# shellcheck source=tests/sanitizer_verdict.sh
. "$repo/tests/sanitizer_verdict.sh"
base_asan=$ASAN_OPTIONS
base_ubsan=$UBSAN_OPTIONS
base_tsan="halt_on_error=1:second_deadlock_stack=1 ${TSAN_OPTIONS:-}"

# build_tree NAME SANITIZERS DIR: configures and builds every target in DIR.
build_tree() {
    t0=$(date +%s)
    "$repo/tests/sanitized_build.sh" "test_sanitized_$1" "$2" "$repo" "$3" all
    echo "test_sanitized: $1 tree built in $(($(date +%s) - t0)) s"
}

# run_group GROUP TREE INCLUDE EXCLUDE: ctest over the tests whose labels
# match INCLUDE and none match EXCLUDE, then the verdict on the reports.
run_group() {
    group=$1 tree=$2 include=$3 exclude=$4
    reports=$tree/sanitizer-reports/$group
    rm -rf "$reports"
    mkdir -p "$reports"
    ASAN_OPTIONS="$base_asan:log_path=$reports/asan:log_exe_name=1$extra_asan"
    UBSAN_OPTIONS="$base_ubsan:log_path=$reports/ubsan:log_exe_name=1"
    TSAN_OPTIONS="$base_tsan:log_path=$reports/tsan:log_exe_name=1"
    export ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS
    skip=$SKIP_NAMES${skip_extra:+|$skip_extra}
    count=$(ctest --test-dir "$tree" -N -L "$include" -LE "$exclude" -E "$skip" |
        sed -n 's/^Total Tests: //p')
    echo "test_sanitized: $group: $count tests (labels $include, not $exclude)"
    t0=$(date +%s)
    rc=0
    # shellcheck disable=SC2086 # extra ctest options, one per word
    env ${preload:+LD_PRELOAD="$preload"} ctest --test-dir "$tree" --output-on-failure -j "$jobs" -L "$include" -LE "$exclude" \
        -E "$skip" ${SHOAL_SANITIZED_CTEST:-} || rc=$?
    echo "test_sanitized: $group: ctest status $rc in $(($(date +%s) - t0)) s"
    found=$(find "$reports" -type f | sort)
    if [ -n "$found" ]; then
        echo "test_sanitized: $group: sanitizer reports (each file is one process):"
        for f in $found; do
            echo "==== $f"
            head -n 60 "$f"
        done
        rc=1
    fi
    [ "$rc" -eq 0 ] && echo "test_sanitized: $group: clean"
    return "$rc"
}

# Eight sanitized PEs on two CPUs start too slowly for the bootstrap's
# timeouts; the same paths run here at 1 to 4 PEs (4 is already more PEs
# than this machine's cores) and at 8 in the main suite.
SKIP_NAMES='[.]np8$|[.]h2x4$|8pe'

# A hang test's shoalrun --timeout: every PE must be in its hang by then,
# and a sanitized PE starts several times slower.
SHOAL_TEST_HANG_AFTER=${SHOAL_TEST_HANG_AFTER:-15}
# The tests' time bounds (how fast a job ends after a fault) are the main
# suite's to check; here they only must not fail a slower sanitized run.
SHOAL_TEST_TIME_SCALE=${SHOAL_TEST_TIME_SCALE:-5}
export SHOAL_TEST_HANG_AFTER SHOAL_TEST_TIME_SCALE

status=0
asan_tree=$build/asan-build
tsan_tree=$build/tsan-build
case " $groups " in *" asan "* | *" python "*) build_tree asan address,undefined "$asan_tree" ;; esac
case " $groups " in *" tsan "*) build_tree tsan thread "$tsan_tree" ;; esac
for group in $groups; do
    extra_asan='' preload='' skip_extra=''
    case $group in
    asan)
        run_group asan "$asan_tree" '^(errors|fault|hang|check|trace|log|store|device)$' \
            '^(fuzz|gpu|python)$' || status=1
        ;;
    python)
        # The libasan the sanitized library was linked with (the one gcc uses).
        libasan=$(ldd "$asan_tree/libshoal.so" | awk '/libasan/ { print $3 }')
        if [ -z "$libasan" ] || [ ! -f "$libasan" ]; then
            echo "test_sanitized: python: no libasan in ldd $asan_tree/libshoal.so"
            status=1
            continue
        fi
        extra_asan=:detect_leaks=0 preload=$libasan skip_extra='^python_mypy_examples$'
        run_group python "$asan_tree" '^python$' '^(bench|gpu|install)$' || status=1
        ;;
    tsan)
        run_group tsan "$tsan_tree" '^(store|hang)$' '^(fuzz|gpu|multihost)$' || status=1
        ;;
    *)
        echo "test_sanitized: unknown group $group (asan, python or tsan)"
        status=1
        ;;
    esac
done
exit "$status"
