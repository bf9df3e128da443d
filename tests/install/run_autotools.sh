#!/bin/sh
# run_autotools.sh TOOLS_DIR SOURCE_DIR: a real autotools package
# (tests/install/autotools: configure.ac + Makefile.am), generated with
# `autoreconf -i` here, configured with `CC=oshcc ./configure` and built with
# make, as OpenSHMEM packages are built. configure must find shmem.h, find
# shmem_init with no extra library (the wrapper links libshoal) and link an
# OpenSHMEM program; the built examples/ring.c must run at 2 PEs under oshrun
# and print the token that crossed the PEs. Exit 77 (skipped) without
# autoreconf and automake (scripts/setup.sh installs autoconf and automake).
set -eu
tools=$1 src=$2
for tool in autoreconf automake; do
    command -v $tool >/dev/null ||
        { echo "run_autotools.sh: no $tool (apt-get install autoconf automake); skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/tests/install/autotools/configure.ac" "$src/tests/install/autotools/Makefile.am" \
    "$src/examples/ring.c" "$work/"
cd "$work"
autoreconf -i >autoreconf.log 2>&1 || { cat autoreconf.log; echo "FAIL: autoreconf -i"; exit 1; }
if ! PATH="$tools:$PATH" CC=oshcc timeout 120 ./configure >configure.out 2>&1; then
    cat configure.out
    tail -n 40 config.log
    echo "FAIL: CC=oshcc ./configure"
    exit 1
fi
for line in "checking for shmem.h... yes" "checking for library containing shmem_init... none required" \
    "checking whether an OpenSHMEM program links... yes"; do
    grep -qF "$line" configure.out || { cat configure.out; echo "FAIL: configure did not say '$line'"; exit 1; }
done
grep -q "^CC = oshcc$" Makefile || { grep "^CC =" Makefile; echo "FAIL: the Makefile does not use CC = oshcc"; exit 1; }
PATH="$tools:$PATH" timeout 120 make >make.out 2>&1 || { cat make.out; echo "FAIL: make"; exit 1; }
out=$("$tools/oshrun" -np 2 ./ring)
echo "$out" | grep -qF "ring: token 1 after 2 PEs (expected 1)" ||
    { echo "FAIL: the autotools-built ring at 2 PEs printed: $out"; exit 1; }
echo "ok: autoreconf -i, CC=oshcc ./configure (shmem.h, shmem_init with no -l, a linked program), make; oshrun -np 2: $out"
