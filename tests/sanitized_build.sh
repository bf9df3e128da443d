#!/bin/sh
# Configures and builds Shoal with sanitizers in a build directory of its
# own (a sanitizer must cover the whole library, so it cannot share the main
# build), logging to NAME.configure.log and NAME.build.log there and
# printing their tails on failure. Used by tests/tsan/run_tsan.sh and
# tests/netns/run_asan.sh.
#
# With ASan and UBSan together, every program and library is linked with
# tests/sanitizer_ubsan_log.c, so that UBSan's reports go to UBSAN_OPTIONS'
# log_path like ASan's (gcc's libubsan otherwise writes them to stderr).
#
# usage: tests/sanitized_build.sh NAME SANITIZERS SOURCE_DIR BUILD_DIR TARGET...
#   CMAKE_GENERATOR picks the generator (default: Ninja when installed).
set -eu
name=$1 sanitizers=$2 src=$3 build=$4
shift 4
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null 2>&1; then
    CMAKE_GENERATOR=Ninja
    export CMAKE_GENERATOR
fi
mkdir -p "$build"
link=
case ",$sanitizers," in *,address,*) case ",$sanitizers," in *,undefined,*)
    link=$build/sanitizer_ubsan_log.o
    if ! cc -c -fPIC -O1 -Wall -Wextra "$src/tests/sanitizer_ubsan_log.c" -o "$link.new"; then
        echo "$name: cannot compile tests/sanitizer_ubsan_log.c"
        exit 1
    fi
    # Ninja does not track this file (only the flags naming it): a tree
    # built with an older copy keeps it until its targets are relinked.
    if cmp -s "$link.new" "$link"; then rm -f "$link.new"; else mv "$link.new" "$link"; fi
    ;; esac ;;
esac
echo "$name: configuring $build"
if ! cmake -S "$src" -B "$build" -DSHOAL_SANITIZE="$sanitizers" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_EXE_LINKER_FLAGS="$link" -DCMAKE_SHARED_LINKER_FLAGS="$link" \
    -DCMAKE_MODULE_LINKER_FLAGS="$link" >"$build/$name.configure.log" 2>&1; then
    cat "$build/$name.configure.log"
    echo "$name: configure FAILED"
    exit 1
fi
echo "$name: building $*"
if ! cmake --build "$build" --target "$@" >"$build/$name.build.log" 2>&1; then
    tail -n 40 "$build/$name.build.log"
    echo "$name: build FAILED"
    exit 1
fi
