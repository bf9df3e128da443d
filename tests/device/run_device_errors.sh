#!/bin/sh
# run_device_errors.sh SHOALRUN DEVICE_NOGPU FAKE_CUDA_LIB NPES [off]: a
# device allocation where the device side cannot work returns NULL on every
# PE, after one message that names the call and what is missing, and the job
# goes on (device_nogpu checks host RMA after it and exits 0). "off": the
# library was built with -DSHOAL_WITH_CUDA=OFF. Then host atomics, signals
# and waits on device memory (device_misuse, next to DEVICE_NOGPU) end the
# job with a message.
set -u
shoalrun=$1 prog=$2 fake=$3 npes=$4 build=${5:-on}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run_mode() {
    case $1 in
    nodriver) SHOAL_CUDA_LIBRARY=/nonexistent/libcuda.so.1 timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" ;;
    notcuda) SHOAL_CUDA_LIBRARY=libc.so.6 timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" ;;
    nodevice) FAKE_CUDA_MODE=nodev SHOAL_CUDA_LIBRARY=$fake timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" ;;
    noproc) FAKE_CUDA_MODE=noproc SHOAL_CUDA_LIBRARY=$fake timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" ;;
    baddevice) SHOAL_CUDA_LIBRARY=$fake timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" 5 ;;
    badsetting) SHOAL_DEVICE=gpu0 SHOAL_CUDA_LIBRARY=$fake timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" ;;
    off) timeout 60 "$shoalrun" -n "$npes" --timeout 50 "$prog" ;;
    misuse_*) SHOAL_CUDA_LIBRARY=$fake timeout 60 "$shoalrun" -n "$npes" --timeout 50 \
        "$(dirname "$prog")/device_misuse" "${1#misuse_}" ;;
    esac
}
# shellcheck source=../expect_mode.sh
. "$(dirname "$0")/../expect_mode.sh"

# One message per failed call (two allocations and shmemx_dev_create), from one PE.
once() {
    said=$(grep -c "$1" "$out")
    if [ "$said" -ne 3 ]; then
        echo "FAIL $2: '$1' said $said times at $npes PEs, expected once per call (3)"
        cat "$out"
        failures=$((failures + 1))
    fi
}

if [ "$build" = off ]; then
    expect off zero "shmemx_malloc_device: this Shoal was built without its device side" \
        "shmem_malloc_with_hints: this Shoal was built without" \
        "shmemx_dev_create: this Shoal was built without" "PASS device_nogpu"
    once "built without its device side" off
else
    expect nodriver zero \
        "shmemx_malloc_device: no CUDA driver (/nonexistent/libcuda.so.1 not found: " \
        "shmem_malloc_with_hints: no CUDA driver" "shmemx_dev_create: no CUDA driver" \
        "on $npes of $npes PEs" "PASS device_nogpu"
    once "no CUDA driver" nodriver
    expect notcuda zero "shmemx_malloc_device: libc.so.6 is not a CUDA driver of CUDA 12.0 or later" \
        "PASS device_nogpu"
    expect nodevice zero "shmemx_malloc_device: no CUDA device (the driver 12.4 in " \
        "CUDA_ERROR_NO_DEVICE" "check nvidia-smi" "PASS device_nogpu"
    once "no CUDA device" nodevice
    expect noproc zero "has no cuMemCreate" "needs a driver of CUDA 12.0 or later" "PASS device_nogpu"
    expect baddevice zero "shmemx_malloc_device: there is no CUDA device 5: the driver sees 1" \
        "PASS device_nogpu"
    expect badsetting zero "SHOAL_DEVICE=gpu0 is not a device ordinal" "PASS device_nogpu"
    expect misuse_amo nonzero "shmem_long_atomic_add: dest 0x" "device symmetric heap" \
        "host atomics, signals and waits on it need device-side calls"
    expect misuse_signal nonzero "shmem_putmem_signal: sig_addr 0x" "device symmetric heap"
    expect misuse_wait nonzero "shmem_long_wait_until_all: ivars 0x" "device symmetric heap"
fi
[ "$failures" -eq 0 ] || exit 1
echo "PASS run_device_errors ($npes PEs)"
