#!/bin/sh
# run_frame_check.sh NVCC INCLUDE_DIR WORKDIR: compiles dev_api_frame.cu (one
# kernel per device API family) with `nvcc -Xptxas -v` for sm_80 and sm_90
# and fails when ptxas reports a stack frame or a spill for any of them: a
# frame means the API put something in local memory (typically a copy of
# the by-value handle), which costs a round trip to memory on every call.
# SHOAL_NVCC_LAUNCHER (the build's CMAKE_CUDA_COMPILER_LAUNCHER, ccache)
# goes before nvcc: a cached compile replays ptxas's report.
set -u
nvcc=$1 inc=$2 work=$3
src=$(dirname "$0")/dev_api_frame.cu
mkdir -p "$work"
bad=0
for arch in 80 90; do
    log=$work/ptxas_sm$arch.log
    if ! ${SHOAL_NVCC_LAUNCHER:-} "$nvcc" -arch=sm_$arch -O2 -Xptxas -v -I"$inc" -c "$src" -o "$work/frame_sm$arch.o" \
        >"$log" 2>&1; then
        echo "FAIL: nvcc for sm_$arch:"
        cat "$log"
        exit 1
    fi
    # "Function properties for NAME" is followed by "N bytes stack frame, S bytes spill stores, L bytes spill loads".
    out=$(awk '/Function properties for/ { fn = $NF }
               /bytes stack frame/ { n++; if ($1 != 0 || $5 != 0 || $9 != 0) print fn ": " $0 }
               END { if (n == 0) print "NONE" }' "$log")
    kernels=$(grep -c "bytes stack frame" "$log")
    if [ "$out" = "NONE" ]; then
        echo "FAIL: sm_$arch: ptxas printed no function properties"
        cat "$log"
        exit 1
    elif [ -n "$out" ]; then
        echo "FAIL: sm_$arch: a stack frame or spills in the device API:"
        echo "$out"
        bad=1
    else
        echo "ok: sm_$arch: $kernels functions, 0 bytes stack frame, no spills"
    fi
done
exit $bad
