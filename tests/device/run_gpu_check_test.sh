#!/bin/sh
# run_gpu_check_test.sh REPO BUILD_DIR PROBE: scripts/gpu-check.sh on this
# machine without a GPU, against the ready build: it must finish in under a
# minute with status 0, every GPU step SKIP (none PASS, none FAIL), and with
# OUT set leave its log and a tarball of the test logs there. Skipped (77)
# where there is a GPU: there the script is run for real, by hand.
set -u
repo=$1 build=$2 probe=$3
if "$probe" >/dev/null 2>&1; then
    echo "skipped: this machine has a GPU; run scripts/gpu-check.sh itself"
    exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
mkdir "$out/OUT"
start=$(date +%s)
OUT=$out/OUT SHOAL_GPU_CHECK_BUILD=no timeout 120 bash "$repo/scripts/gpu-check.sh" "$build" \
    >"$out/stdout" 2>&1
rc=$?
took=$(($(date +%s) - start))
fail() {
    echo "FAIL: $*"
    cat "$out/stdout"
    exit 1
}
[ "$rc" -eq 0 ] || fail "gpu-check.sh exited $rc"
[ "$took" -lt 60 ] || fail "gpu-check.sh took $took s (the limit is 60)"
[ -s "$out/OUT/gpu-check.log" ] || fail "no log at \$OUT/gpu-check.log"
tar tzf "$out/OUT/gpu-check-logs.tar.gz" >"$out/list" 2>&1 || fail "no readable tarball in \$OUT"
grep -q "gpu-check.log" "$out/list" || fail "the tarball lacks gpu-check.log"
if grep -E " s  (PASS|FAIL)" "$out/stdout"; then
    fail "a GPU step passed or failed on a machine without a GPU"
fi
grep -q "every GPU step SKIP" "$out/stdout" || fail "the summary does not say every GPU step was skipped"
steps=$(grep -c "SKIP" "$out/stdout")
echo "ok: gpu-check.sh without a GPU: $steps steps SKIP, status 0, $took s, log and tarball in \$OUT"
