#!/usr/bin/env bash
# gpu-check.sh [BUILD_DIR]: the device side on this machine's GPU, as one
# staged run that fits a 10-minute command and says what it saw even when
# something hangs:
#   stage 0  facts, no kernels: uname, nvidia-smi (compute and persistence
#            mode), whether MPS is installed; persistence mode on, or a
#            holder process keeping the GPU initialized between the short
#            PE processes; cuobjdump -sass counts of the fences in the kernels
#   stage 1  a smoke test of at most ~60 s: the device heap at 1 and 2 PEs,
#            a kernel into a peer, the device API test at 1 PE -- any failure
#            stops the run here
#   stage 2  the numbers at 2 PEs, each printed as soon as measured
#   stage 3  4 PEs, and the failure paths (a kernel's report ends the job)
#   stage 4  only if time remains and MPS is installed: stage 2's numbers
#            under an MPS daemon of the job's own (shoalrun --mps on: pipe
#            and log folders in the job's temporary folder, stopped on every
#            path); stages 1-3 run with --mps off, so that their numbers are
#            the time-sliced ones
# A global deadline (SHOAL_GPU_CHECK_DEADLINE, 420 s after the start) skips
# whatever is left; each test gets SHOAL_GPU_TEST_TIMEOUT (40) s. Runs with
# SHMEM_SYMMETRIC_SIZE=64M and SHOAL_DEVICE_WAIT_TIMEOUT=15; matmul checks a
# 512^3 product except one timed 1024^3 run. When OUT is set, the log
# ($OUT/gpu-check.log) and a tarball of every test's log
# ($OUT/gpu-check-logs.tar.gz) are written there by an exit trap, whatever
# happened. A compact summary is printed last.
#
# Without a GPU it still runs (CI does, device_gpu_check_nogpu): every GPU
# step is SKIP, exit status 0, well under a minute with a ready build.
# Uses BUILD_DIR (default build-gpu) when it holds the device tests (a build
# carried from another machine works); SHOAL_GPU_CHECK_BUILD=no uses it as
# it is; otherwise it is configured (-DSHOAL_WITH_CUDA=ON where nvcc is)
# and only what the tests need is built.
set -u
t0=$(date +%s)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$repo/build-gpu}
case $build in /*) ;; *) build=$PWD/$build ;; esac
per_test=${SHOAL_GPU_TEST_TIMEOUT:-40}
deadline=${SHOAL_GPU_CHECK_DEADLINE:-420}
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-64M}
export SHOAL_DEVICE_WAIT_TIMEOUT=${SHOAL_DEVICE_WAIT_TIMEOUT:-15}
logs=$(mktemp -d "${TMPDIR:-/tmp}/shoal-gpu-check.XXXXXX")
holder_pid=""

# What the run saw is kept on every path (the parent shell's trap); the
# holder it started stops on every path (main's own trap: main runs in the
# pipeline's subshell, where it is known). shoalrun --mps stops its daemons.
stop_children() {
    [ -n "$holder_pid" ] && kill "$holder_pid" 2>/dev/null
    holder_pid=""
    return 0
}
finish() {
    if [ -n "${OUT:-}" ]; then
        mkdir -p "$OUT"
        cp "$logs/gpu-check.log" "$OUT/gpu-check.log" 2>/dev/null
        tar czf "$OUT/gpu-check-logs.tar.gz" -C "$logs" . 2>/dev/null
    fi
    rm -rf "$logs"
}
trap finish EXIT
trap 'exit 130' INT TERM

results=()
pass=0 fail=0 skip=0 stopped=""
record() { # record NAME SECONDS_TENTHS VERDICT
    results+=("$(printf '%-28s %4d.%d s  %s' "$1" $(($2 / 10)) $(($2 % 10)) "$3")")
}
# run NAME COMMAND...: one test; SKIP without a GPU, after a failed smoke
# stage, or past the deadline.
run() {
    local name=$1
    shift
    if [ "$have_gpu" != 1 ]; then
        record "$name" 0 "SKIP (no GPU)"; skip=$((skip + 1)); return 0
    elif [ -n "$stopped" ]; then
        record "$name" 0 "SKIP ($stopped)"; skip=$((skip + 1)); return 0
    elif [ $(($(date +%s) - t0)) -ge "$deadline" ]; then
        record "$name" 0 "SKIP (past the ${deadline} s deadline)"; skip=$((skip + 1)); return 0
    fi
    local s e rc verdict
    s=$(date +%s%N)
    timeout -k 5 "$per_test" "$@" >"$logs/$name.log" 2>&1
    rc=$?
    e=$(date +%s%N)
    case $rc in
    0) verdict=PASS; pass=$((pass + 1)) ;;
    77) verdict=SKIP; skip=$((skip + 1)) ;;
    124 | 137) verdict="FAIL (timed out after ${per_test} s)"; fail=$((fail + 1)) ;;
    *) verdict="FAIL (status $rc)"; fail=$((fail + 1)) ;;
    esac
    record "$name" $(((e - s) / 100000000)) "$verdict"
    if [ "${verdict%% *}" = FAIL ]; then
        echo "---- $name: $verdict; last lines:"
        tail -25 "$logs/$name.log"
        return 1
    fi
    return 0
}
# show NAME PATTERN: the lines of a test's log that hold its numbers, now.
show() {
    [ -f "$logs/$1.log" ] && grep -E "$2" "$logs/$1.log" | sed "s/^/  $1: /"
    return 0
}

main() {
trap stop_children EXIT
echo "== build ($build)"
need="tools/shoalrun tests/device/device_heap tests/device/device_bw tests/device/device_nogpu
      tests/device/device_misuse tests/device/dev_api_emul tests/device/device_stream
      tests/device/gpu_probe tests/device/device_grow"
have=1
for f in $need; do [ -x "$build/$f" ] || have=0; done
if [ "$have" = 1 ] && ldd "$build/libshoal.so" 2>/dev/null | grep -q "not found"; then
    echo "the build in $build lacks libraries here:"
    ldd "$build/libshoal.so" | grep "not found"
    build=$build-here
    echo "building anew in $build"
    have=0
fi
cached_src=$(sed -n 's/^Shoal_SOURCE_DIR:STATIC=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
targets=(shoal shoalrun shoal-info device_heap device_bw device_misuse device_nogpu gpu_probe
    shoal_fake_cuda dev_api_emul device_stream device_grow stream_barrier)
grep -q "^SHOAL_CUDA_TESTS\|CMAKE_CUDA_COMPILER:" "$build/CMakeCache.txt" 2>/dev/null &&
    [ -e "$build/tests/device/device_kernel" ] && targets+=(device_kernel cuda_abi_check dev_api_gpu matmul_allreduce_cuda device_perf)
if [ "$have" = 1 ] && [ "${SHOAL_GPU_CHECK_BUILD:-yes}" = no ]; then
    echo "using the build in $build as it is (SHOAL_GPU_CHECK_BUILD=no)"
elif [ "$have" = 1 ] && [ "$cached_src" = "$repo" ] && command -v cmake >/dev/null; then
    # This tree's own build: bring it up to date (a carried one is used as is).
    echo "updating the build in $build"
    if ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >"$logs/build.log" 2>&1; then
        grep -E "error|Error" "$logs/build.log" | head -30
        echo "gpu-check: building failed"
        return 1
    fi
elif [ "$have" = 1 ]; then
    echo "using the build already in $build (made from $cached_src)"
else
    nvcc=""
    for c in "${CUDACXX:-}" "$(command -v nvcc 2>/dev/null)" /usr/local/cuda/bin/nvcc; do
        [ -n "$c" ] && [ -x "$c" ] && { nvcc=$c; break; }
    done
    mode=AUTO
    extra=()
    if [ -n "$nvcc" ]; then
        mode=ON
        extra=(-DCMAKE_CUDA_COMPILER="$nvcc")
    fi
    echo "configuring with SHOAL_WITH_CUDA=$mode${nvcc:+ (nvcc: $nvcc)}"
    # Without UCX and PMIx: the device tests need neither, and a build carried
    # to a GPU machine then needs only libc, libssl and the CUDA driver there.
    if ! cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSHOAL_WITH_CUDA=$mode \
        -DSHOAL_WITH_UCX=OFF -DSHOAL_WITH_PMIX=OFF -DSHOAL_BUILD_BENCH=OFF "${extra[@]}" \
        >"$logs/configure.log" 2>&1; then
        tail -30 "$logs/configure.log"
        echo "gpu-check: configuring failed"
        return 1
    fi
    grep -E "CUDA device heap" "$logs/configure.log"
    [ -n "$nvcc" ] && targets+=(device_kernel cuda_abi_check dev_api_gpu matmul_allreduce_cuda device_perf)
    if ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >"$logs/build.log" 2>&1; then
        grep -E "error|Error" "$logs/build.log" | head -30
        echo "gpu-check: building failed"
        return 1
    fi
fi
tb=$(date +%s)
echo "build ready after $((tb - t0)) s"
# The build's RPATH may name another machine's directories.
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
dev=$build/tests/device
src=$repo/tests/device
# shoalrun with an MPS setting, as run_gpu.sh passes it the PE count first.
for m in off on; do
    printf '#!/bin/sh\nexec "%s" --mps %s "$@"\n' "$build/tools/shoalrun" "$m" >"$logs/shoalrun-mps-$m"
    chmod +x "$logs/shoalrun-mps-$m"
done
shoalrun=$logs/shoalrun-mps-off
"$build/tools/shoal-info" 2>/dev/null | grep -E "^Build|CUDA:" || true

echo "== stage 0: facts"
uname -a
have_gpu=0
if "$dev/gpu_probe"; then have_gpu=1; fi
if command -v nvidia-smi >/dev/null 2>&1; then
    timeout 20 nvidia-smi --query-gpu=name,pci.bus_id,compute_mode,persistence_mode,memory.total,driver_version \
        --format=csv 2>&1 | head -5
else
    echo "nvidia-smi: not found (no NVIDIA driver on this machine)"
fi
if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
    echo "MPS: $(command -v nvidia-cuda-mps-control)"
else
    echo "MPS: nvidia-cuda-mps-control not found (stage 4 will be skipped)"
fi
if [ "$have_gpu" = 1 ]; then
    # Each PE process would otherwise initialize the GPU anew (1-3 s).
    if timeout 20 nvidia-smi -pm 1 >/dev/null 2>&1; then
        echo "persistence mode: on"
    else
        "$dev/gpu_probe" hold >"$logs/holder.log" 2>&1 &
        holder_pid=$!
        echo "persistence mode: cannot be set; a holder process ($holder_pid) keeps the GPU initialized"
    fi
fi
if [ -x "$dev/dev_api_gpu" ] && command -v cuobjdump >/dev/null 2>&1; then
    cuobjdump -sass "$dev/dev_api_gpu" >"$logs/dev_api_gpu.sass" 2>&1
    echo "fences in dev_api_gpu's kernels (cuobjdump -sass):" \
        "MEMBAR.SYS $(grep -c 'MEMBAR.*SYS' "$logs/dev_api_gpu.sass")," \
        "FENCE $(grep -c 'FENCE' "$logs/dev_api_gpu.sass")," \
        "ERRBAR $(grep -c 'ERRBAR' "$logs/dev_api_gpu.sass")"
else
    echo "cuobjdump -sass: SKIP (no cuobjdump or no dev_api_gpu)"
fi
kernels=1
[ -x "$dev/device_kernel" ] || { kernels=0; echo "the kernel tests are not built (no nvcc): their steps are SKIP"; }
gpu() { run "$@"; } # a GPU step

echo "== stage 1: smoke (stops the run on a failure)"
for step in "gpu_device_heap.np1 1 device_heap" "gpu_device_heap.np2 2 device_heap" \
    "gpu_device_kernel.np2 2 device_kernel" "gpu_device_api.np1 1 dev_api_gpu"; do
    set -- $step
    [ -x "$dev/$3" ] || { record "$1" 0 "SKIP (not built)"; skip=$((skip + 1)); continue; }
    gpu "$1" "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$2" 30 "$dev/$3" ||
        stopped="the smoke stage failed"
done

echo "== stage 2: the numbers at 2 PEs"
if [ -x "$dev/device_perf" ]; then
    gpu gpu_device_perf.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 "$dev/device_perf"
    show gpu_device_perf.np2 "device_perf|GPU|MPS|put\+signal|putmem|barrier|in-process|skipped"
fi
gpu gpu_device_bw.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 "$dev/device_bw"
show gpu_device_bw.np2 "^host ->|skipped"
if [ -x "$dev/matmul_allreduce_cuda" ]; then
    gpu gpu_matmul_allreduce.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 \
        "$dev/matmul_allreduce_cuda" -m 512 -n 512 -k 512 -t 64 -r 5
    show gpu_matmul_allreduce.np2 "fused|unfused|matches|skipped"
    gpu gpu_matmul_1024.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 35 \
        "$dev/matmul_allreduce_cuda" -m 1024 -n 1024 -k 1024 -t 64 -r 5
    show gpu_matmul_1024.np2 "fused|unfused|matches|skipped"
fi
[ -x "$dev/dev_api_gpu" ] &&
    gpu gpu_device_api.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 "$dev/dev_api_gpu"
gpu gpu_device_stream.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 "$dev/device_stream"
# Two PEs on one GPU without MPS: the stream barrier through host memory.
[ -x "$dev/stream_barrier" ] &&
    gpu gpu_stream_barrier.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 \
        "$dev/stream_barrier" any
# The device heap growing (VMM: one reservation, pieces mapped as it grows).
gpu gpu_device_grow.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 "$dev/device_grow"

echo "== stage 3: 4 PEs, and the failure paths"
gpu gpu_device_heap.np4 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 4 30 "$dev/device_heap"
[ -x "$dev/dev_api_gpu" ] &&
    gpu gpu_device_api.np4 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 4 30 "$dev/dev_api_gpu"
[ -x "$dev/matmul_allreduce_cuda" ] &&
    gpu gpu_matmul_allreduce.np4 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 4 30 \
        "$dev/matmul_allreduce_cuda" -m 512 -n 512 -k 512 -t 64 -r 5
show gpu_matmul_allreduce.np4 "fused|unfused|matches|skipped"
gpu gpu_device_bw.np4 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 4 30 "$dev/device_bw"
if [ -x "$dev/dev_api_gpu" ]; then
    for mode in timeout badptr range multi; do
        gpu "gpu_device_api_$mode.np2" "$src/run_dev_api_fail.sh" "$shoalrun" 2 "$dev/dev_api_gpu" \
            "$mode" "$dev/gpu_probe"
    done
fi

echo "== stage 4: the numbers under MPS"
if [ "$have_gpu" = 1 ] && [ -z "$stopped" ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1 &&
    [ $(($(date +%s) - t0)) -lt $((deadline - 60)) ]; then
    shoalrun=$logs/shoalrun-mps-on # each job starts and stops its own daemon
    [ -x "$dev/device_perf" ] &&
        gpu gpu_device_perf_mps.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 \
            "$dev/device_perf"
    show gpu_device_perf_mps.np2 "device_perf|GPU|MPS|put\+signal|putmem|barrier|in-process"
    [ -x "$dev/matmul_allreduce_cuda" ] &&
        gpu gpu_matmul_allreduce_mps.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 \
            "$dev/matmul_allreduce_cuda" -m 512 -n 512 -k 512 -t 64 -r 5
    show gpu_matmul_allreduce_mps.np2 "fused|unfused|matches"
    [ -x "$dev/stream_barrier" ] &&
        gpu gpu_stream_barrier_mps.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 30 \
            "$dev/stream_barrier" any
else
    record "stage 4 (MPS)" 0 "SKIP (no GPU, no MPS, a failed smoke stage or no time left)"
    skip=$((skip + 1))
fi

echo "== summary"
printf '%s\n' "${results[@]}"
t1=$(date +%s)
echo "gpu-check: $pass passed, $skip skipped, $fail failed; $((t1 - t0)) s in all (build $((tb - t0)) s)"
[ "$have_gpu" = 1 ] || echo "gpu-check: no GPU here (gpu_probe above says why): every GPU step SKIP"
[ -n "$stopped" ] && echo "gpu-check: stopped after stage 1: $stopped"
[ "$fail" -eq 0 ]
}

main "$@" 2>&1 | tee "$logs/gpu-check.log"
exit "${PIPESTATUS[0]}"
