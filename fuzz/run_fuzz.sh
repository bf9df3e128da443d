#!/bin/sh
# Builds the config store's fuzz target (store_decode.c) with clang and
# libFuzzer, with ASan and UBSan, and runs it for SECONDS (default 40) over a
# copy of the committed seed corpus (corpus/store_decode, made by
# make_seeds.py). New inputs and any crash go to WORKDIR (default: a fresh
# temporary directory), never into the repository. Prints the number of
# executions; exits non-zero on a crash, leak or failed check.
#   usage: fuzz/run_fuzz.sh [SECONDS] [WORKDIR]
# Needs clang and libFuzzer: Debian's clang and libclang-rt-14-dev
# (scripts/setup.sh installs them). SHOAL_FUZZ_SOURCES: the store's and
# util's sources, as src/bootstrap/store/CMakeLists.txt lists them (ctest
# passes it); run by hand, every .c file of the store and the util files it uses.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
secs=${1:-40}
work=${2:-}
if [ -z "$work" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
cc=${CLANG:-clang}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "run_fuzz: $cc not found; install clang and libclang-rt-14-dev (scripts/setup.sh does)"
    exit 1
fi
mkdir -p "$work/corpus"
sources=${SHOAL_FUZZ_SOURCES:-$(ls "$root"/src/bootstrap/store/*.c) $root/src/util/env.c $root/src/util/host_identity.c $root/src/util/log_limit.c $root/src/util/status.c}
# shellcheck disable=SC2086  # the sources, one word each
"$cc" -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -D_GNU_SOURCE -DOPENSSL_API_COMPAT=30000 -DOPENSSL_NO_DEPRECATED \
    -I"$root/src" -I"$root/include" \
    "$here/store_decode.c" "$here/log_stub.c" $sources \
    -lssl -lcrypto -lpthread -o "$work/store_decode" || {
    echo "run_fuzz: cannot build the fuzz target (is libclang-rt-14-dev installed?)"
    exit 1
}
cd "$work"
status=0
./store_decode -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "$here/corpus/store_decode" >"$work/fuzz.log" 2>&1 || status=$?
grep -E "INITED|DONE|^Done|stat::number_of_executed_units|stat::average_exec_per_sec|ERROR|SUMMARY|Test unit written" \
    "$work/fuzz.log" || true
if [ "$status" -ne 0 ]; then
    echo "run_fuzz: the fuzz target failed (status $status); the input is in $work (last 40 log lines follow)"
    tail -n 40 "$work/fuzz.log"
    trap - EXIT
    exit 1
fi
echo "run_fuzz: ok, ${secs} s"
