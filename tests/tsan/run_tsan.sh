#!/bin/sh
# ThreadSanitizer check of the multithreaded API tests.
#
# Configures a separate build with -DSHOAL_SANITIZE=thread (Debug), builds
# only the library, shoalrun and the thread tests (tests/api/thread_*.c),
# and runs each at 2 and 4 PEs with TSAN_OPTIONS=halt_on_error=1, so the
# first data race TSan reports ends the job with a nonzero status.
#
# usage: tests/tsan/run_tsan.sh [source dir] [build dir]
#   defaults: the checkout this script is in, and <source>/build-tsan.
#   CMAKE_GENERATOR picks the generator (see tests/sanitized_build.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$(cd "$here/../.." && pwd)}
build=${2:-$src/build-tsan}
tests=$(cd "$src/tests/api" && ls thread_*.c 2>/dev/null | sed 's/\.c$//')
if [ -z "$tests" ]; then
  echo "run_tsan: no tests/api/thread_*.c"
  exit 1
fi
targets="shoal shoalrun"
for t in $tests; do
  targets="$targets api_$t"
done

# shellcheck disable=SC2086 # one target per word
"$src/tests/sanitized_build.sh" run_tsan thread "$src" "$build" $targets

# halt_on_error: the first report ends the PE (and so the job);
# second_deadlock_stack: full stacks for lock-order reports.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
status=0
for t in $tests; do
  for n in 2 4; do
    log="$build/run_tsan.$t.np$n.log"
    if "$build/tools/shoalrun" -n "$n" --timeout 150 "$build/tests/api/api_$t" >"$log" 2>&1 &&
       grep -q '^PASS' "$log" && ! grep -q 'ThreadSanitizer' "$log"; then
      echo "run_tsan: $t np=$n: clean"
    else
      echo "run_tsan: $t np=$n: FAILED (log: $log)"
      grep -m1 -A40 'WARNING: ThreadSanitizer' "$log" || tail -n 40 "$log"
      status=1
    fi
  done
done
exit $status
