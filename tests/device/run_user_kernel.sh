#!/bin/sh
# run_user_kernel.sh NVCC CC INCLUDE_DIR LIB_DIR CUDA_LIB_DIR WORKDIR [SHOALRUN PROBE]:
# builds tests/device/user_kernel.cu as a user would -- `nvcc -c` without
# -rdc, warnings as errors, then the C compiler links it against libshoal
# and the CUDA runtime, without libstdc++ -- and checks the object needs no device link (no
# relocatable device code in it). With SHOALRUN and PROBE, also runs it at
# 2 PEs where there is a GPU (else the build alone is the test).
set -eu
nvcc=$1 cc=$2 inc=$3 lib=$4 cudalib=$5 work=$6
mkdir -p "$work"
src=$(dirname "$0")/user_kernel.cu
# -fno-threadsafe-statics: CUDA 13's launch stub for every kernel (nvcc's,
# not the header's) holds a function-local static with a dynamic
# initializer, which otherwise needs libstdc++'s __cxa_guard_*.
"$nvcc" -arch=sm_90 -O2 -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-fno-threadsafe-statics \
    -I"$inc" -c "$src" -o "$work/user_kernel.o"
# Nothing of the C++ runtime: the object links with plain cc, no -lstdc++.
cxx=$(nm -u "$work/user_kernel.o" | grep -E '__cxa_|__gxx_personality|_Unwind_Resume|_Zn|_Zd' || true)
if [ -n "$cxx" ]; then
    echo "FAIL: user_kernel.o needs the C++ runtime:"
    echo "$cxx"
    exit 1
fi
"$cc" "$work/user_kernel.o" -L"$lib" -Wl,-rpath,"$lib" -lshoal -L"$cudalib" -lcudart_static \
    -ldl -lpthread -lrt -o "$work/user_kernel"
# Relocatable device code would show up as an nvlink section the host linker cannot resolve.
if readelf -S "$work/user_kernel.o" | grep -q "nv_relfatbin"; then
    echo "FAIL: user_kernel.o holds relocatable device code"
    exit 1
fi
echo "ok: built with nvcc -c (no -rdc) and linked by $cc"
if [ $# -ge 8 ]; then
    "$8" || exit 0
    "$7" -n 2 --timeout 60 "$work/user_kernel"
    echo "ok: ran at 2 PEs on the GPU"
fi
