#!/usr/bin/env bash
# gpu-check.sh [BUILD_DIR]: every device test on this machine's GPU(s), at
# 1, 2 and 4 PEs sharing them, with a timeout each, and a compact summary.
#
# Uses BUILD_DIR (default build-gpu) when it already holds the device tests
# (a build carried from another machine works: nothing depends on its old
# paths here); otherwise configures it with -DSHOAL_WITH_CUDA=ON (AUTO
# when there is no nvcc, and then the kernel tests are missing) and builds
# only what the tests need. Prints nvidia-smi first. On a machine without a
# GPU it still runs: the GPU tests report SKIP, never PASS. Exit status 0
# when nothing failed. Meant to finish well within 8 minutes on one H200.
set -u
t0=$(date +%s)
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$repo/build-gpu}
case $build in /*) ;; *) build=$PWD/$build ;; esac
per_test=${SHOAL_GPU_TEST_TIMEOUT:-90}
logs=$(mktemp -d "${TMPDIR:-/tmp}/shoal-gpu-check.XXXXXX")

echo "== nvidia-smi"
if command -v nvidia-smi >/dev/null 2>&1; then
    timeout 30 nvidia-smi 2>&1 | head -30
    timeout 30 nvidia-smi --query-gpu=name,compute_mode,memory.total,driver_version \
        --format=csv 2>&1 | head -5
else
    echo "nvidia-smi: not found (no NVIDIA driver on this machine)"
fi

echo "== build ($build)"
need="tools/shoalrun tests/device/device_heap tests/device/device_bw tests/device/device_nogpu
      tests/device/device_misuse tests/device/dev_api_emul tests/device/device_stream
      tests/device/gpu_probe"
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
    shoal_fake_cuda dev_api_emul device_stream)
grep -q "^SHOAL_CUDA_TESTS\|CMAKE_CUDA_COMPILER:" "$build/CMakeCache.txt" 2>/dev/null &&
    [ -e "$build/tests/device/device_kernel" ] && targets+=(device_kernel cuda_abi_check dev_api_gpu matmul_allreduce_cuda device_perf)
if [ "$have" = 1 ] && [ "$cached_src" = "$repo" ] && command -v cmake >/dev/null; then
    # This tree's own build: bring it up to date (a carried one is used as is).
    echo "updating the build in $build"
    if ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >"$logs/build.log" 2>&1; then
        grep -E "error|Error" "$logs/build.log" | head -30
        echo "gpu-check: building failed"
        exit 1
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
        exit 1
    fi
    grep -E "CUDA device heap" "$logs/configure.log"
    [ -n "$nvcc" ] && targets+=(device_kernel cuda_abi_check dev_api_gpu matmul_allreduce_cuda device_perf)
    if ! cmake --build "$build" -j "$(nproc)" --target "${targets[@]}" >"$logs/build.log" 2>&1; then
        grep -E "error|Error" "$logs/build.log" | head -30
        echo "gpu-check: building failed"
        exit 1
    fi
fi
tb=$(date +%s)
echo "build ready after $((tb - t0)) s"
# The build's RPATH may name another machine's directories.
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$build/tools/shoal-info" 2>/dev/null | grep -E "^Build|CUDA:" || true
dev=$build/tests/device
src=$repo/tests/device
shoalrun=$build/tools/shoalrun
fake=$dev/libshoal_fake_cuda.so
"$dev/gpu_probe"

results=()
pass=0 fail=0 skip=0
run() { # run NAME COMMAND...: one test, its status recorded
    local name=$1
    shift
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
    local ds=$(((e - s) / 100000000))
    results+=("$(printf '%-26s %4d.%d s  %s' "$name" $((ds / 10)) $((ds % 10)) "$verdict")")
    if [ "${verdict%% *}" = FAIL ]; then
        echo "---- $name: $verdict; last lines:"
        tail -25 "$logs/$name.log"
    fi
}

echo "== tests (each at most $per_test s)"
if [ -x "$dev/cuda_abi_check" ]; then
    run device_cuda_abi "$dev/cuda_abi_check"
fi
for n in 1 2 4; do
    run "device_errors.np$n" "$src/run_device_errors.sh" "$shoalrun" "$dev/device_nogpu" "$fake" "$n"
    run "device_fake_heap.np$n" env SHOAL_CUDA_LIBRARY="$fake" SHOAL_TEST_FAKE_CUDA=1 \
        "$shoalrun" -n "$n" --timeout 60 "$dev/device_heap"
    run "gpu_device_heap.np$n" env SHOAL_LOG_LEVEL=3 SHOAL_DEBUG_SUBSYS=device \
        "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$n" 60 "$dev/device_heap"
    run "gpu_device_stream.np$n" "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$n" 60 \
        "$dev/device_stream"
    run "device_api_fake.np$n" env SHOAL_CUDA_LIBRARY="$fake" \
        "$shoalrun" -n "$n" --timeout 60 "$dev/dev_api_emul"
    if [ -x "$dev/device_kernel" ]; then
        run "gpu_device_kernel.np$n" "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$n" 60 \
            "$dev/device_kernel"
        run "gpu_device_api.np$n" "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$n" 60 \
            "$dev/dev_api_gpu"
        run "gpu_matmul_allreduce.np$n" "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$n" 80 \
            "$dev/matmul_allreduce_cuda" -m 1024 -n 1024 -k 1024 -t 64 -r 5
    else
        results+=("$(printf '%-26s %6s    %s' "gpu_device_kernel.np$n" "-" "NOT BUILT (no nvcc)")")
        fail=$((fail + 1))
    fi
done

if [ -x "$dev/device_perf" ]; then
    run gpu_device_perf.np2 "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" 2 60 "$dev/device_perf"
fi
if [ -x "$dev/dev_api_gpu" ]; then
    for mode in timeout badptr; do
        run "gpu_device_api_$mode.np2" "$src/run_dev_api_fail.sh" "$shoalrun" 2 "$dev/dev_api_gpu" \
            "$mode" "$dev/gpu_probe"
    done
fi
for n in 2 4; do
    run "gpu_device_bw.np$n" "$src/run_gpu.sh" "$dev/gpu_probe" "$shoalrun" "$n" 60 "$dev/device_bw"
done
echo "== host putmem/getmem into PE 1's device heap, 2 and 4 PEs on the GPU (copy engine)"
for n in 2 4; do
    grep -E "^host ->|skipped" "$logs/gpu_device_bw.np$n.log" 2>/dev/null | sed "s/^/np$n: /"
done

echo "== device-side numbers (2 PEs)"
grep -E "device_perf|put\+signal|putmem|barrier_all|skipped" "$logs/gpu_device_perf.np2.log" 2>/dev/null
echo "== matmul_allreduce (CUDA, fused kernel vs matmul kernel + reduce kernel)"
for n in 1 2 4; do
    grep -E "fused|unfused|matches|skipped" "$logs/gpu_matmul_allreduce.np$n.log" 2>/dev/null |
        sed "s/^/np$n: /"
done
echo "== what the device heap did at 4 PEs (SHOAL_DEBUG_SUBSYS=device)"
grep -E "DEBUG\(device\)|ERROR|PASS|skipped" "$logs/gpu_device_heap.np4.log" 2>/dev/null |
    grep -v "releasing" | sed -n '1,14p'

echo "== summary"
printf '%s\n' "${results[@]}"
t1=$(date +%s)
echo "gpu-check: $pass passed, $skip skipped, $fail failed; $((t1 - t0)) s in all (build $((tb - t0)) s)"
if [ "$skip" -gt 0 ] && [ "$pass" -gt 0 ]; then
    echo "gpu-check: skipped tests need a GPU with a CUDA driver (gpu_probe above says why)"
fi
rm -rf "$logs"
[ "$fail" -eq 0 ]
