#!/bin/sh
# run_showme.sh TOOLS_DIR INCLUDE_DIR LIB_DIR SOURCE_DIR: the compiler
# wrappers in TOOLS_DIR (the build tree's tools/ or an installed bin/) answer
# Open MPI's wrapper options as build systems use them. Every --showme:FORM of
# every name (shoalcc, oshcc, shoalc++, oshc++, oshCC, oshcxx) must print
# exactly the expected text with INCLUDE_DIR and LIB_DIR, also when run
# through a link in another folder; --help/-h must describe the wrapper, not
# the compiler. Then the printed parts are used the way build systems use
# them: plain cc/c++ with $(oshcc --showme:compile) and $(oshcc
# --showme:link), with -I/-L/-l built from incdirs/libdirs/libs, and the
# command -showme prints, each program run at 2 PEs under oshrun.
set -eu
tools=$1 inc=$2 lib=$3 src=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
# expect DESCRIPTION EXPECTED ACTUAL
expect() {
    [ "$3" = "$2" ] || fail "$1: expected '$2', got '$3'"
}

[ -f "$inc/shmem.h" ] || fail "no shmem.h in the expected include directory $inc"
[ -f "$lib/libshoal.so" ] || fail "no libshoal.so in the expected library directory $lib"
version=$("$tools/shoal-info" | sed -n 's/^Build: version \([^,]*\),.*/\1/p')
[ -n "$version" ] || fail "shoal-info printed no 'Build: version' line"
spec=$(sed -n 's/^#define SHMEM_MAJOR_VERSION \([0-9]*\)$/\1/p' "$inc/shmem.h").$(
    sed -n 's/^#define SHMEM_MINOR_VERSION \([0-9]*\)$/\1/p' "$inc/shmem.h")
link="-L$lib -Wl,-rpath,$lib -lshoal"

# A link to each wrapper from another folder: the wrapper must still find its
# own directories (an installed one finds its prefix from its real location).
mkdir "$work/elsewhere"
for w in shoalcc oshcc shoalc++ oshc++ oshCC oshcxx; do
    ln -s "$tools/$w" "$work/elsewhere/$w"
done

for w in shoalcc oshcc shoalc++ oshc++ oshCC oshcxx; do
    case $w in
    shoalcc | oshcc) var=SHOAL_CC language=C ;;
    *) var=SHOAL_CXX language=C++ ;;
    esac
    for path in "$tools/$w" "$work/elsewhere/$w"; do
        expect "$path --showme:compile" "-I$inc" "$(env -u $var "$path" --showme:compile)"
        expect "$path -showme:compile" "-I$inc" "$(env -u $var "$path" -showme:compile)"
        expect "$path --showme:link" "$link" "$(env -u $var "$path" --showme:link)"
        expect "$path --showme:incdirs" "$inc" "$(env -u $var "$path" --showme:incdirs)"
        expect "$path --showme:libdirs" "$lib" "$(env -u $var "$path" --showme:libdirs)"
        expect "$path --showme:libs" "shoal" "$(env -u $var "$path" --showme:libs)"
        expect "$path --showme:version" "$w: Shoal $version, OpenSHMEM $spec (Language: $language)" \
            "$(env -u $var "$path" --showme:version)"
    done
    # The compiler: SHOAL_CC/SHOAL_CXX when set, else the build's, which runs.
    cc=$(env -u $var "$tools/$w" --showme:command)
    command -v "$cc" >/dev/null || fail "$w --showme:command printed '$cc', which is not a command"
    expect "$var=my-cc $w --showme:command" "my-cc" "$(env $var=my-cc "$tools/$w" --showme:command)"
    # The whole command for the given arguments, linking or compiling only.
    expect "$w --showme" "$cc -I$inc -O2 a.c -o a $link" \
        "$(env -u $var "$tools/$w" --showme -O2 a.c -o a)"
    expect "$w -showme" "$cc -I$inc -O2 a.c -o a $link" "$(env -u $var "$tools/$w" -O2 a.c -showme -o a)"
    expect "$w -show -c" "$cc -I$inc -c a.c" "$(env -u $var "$tools/$w" -show -c a.c)"
    expect "$var=my-cc $w --show -c" "my-cc -I$inc -c a.c" "$(env $var=my-cc "$tools/$w" --show -c a.c)"
    # An unknown form is an error that lists the known ones.
    if "$tools/$w" --showme:nonsense >"$work/out" 2>&1; then fail "$w --showme:nonsense succeeded"; fi
    grep -q "unknown option --showme:nonsense; the forms are --showme:compile" "$work/out" ||
        fail "$w --showme:nonsense: $(cat "$work/out")"
    # --help, -h and --showme:help describe the wrapper, whatever else is given.
    env -u $var "$tools/$w" --help >"$work/help"
    head -n 1 "$work/help" | grep -q "^Usage: $w \[compiler options\] files\.\.\.$" ||
        fail "$w --help does not start with the wrapper's usage: $(head -n 3 "$work/help")"
    for text in "Shoal's compiler wrapper for $language OpenSHMEM programs (Shoal $version," \
        "The compiler is \$$var if set" "now: $cc." "--showme:compile    the flags to compile with:    -I$inc" \
        "--showme:link       the flags to link with:       $link" "--showme:incdirs" "--showme:libdirs" \
        "--showme:libs" "--showme:version" "--showme, -showme, --show, -show"; do
        grep -qF -- "$text" "$work/help" || fail "$w --help lacks '$text':
$(cat "$work/help")"
    done
    expect "$w -h" "$(cat "$work/help")" "$(env -u $var "$tools/$w" -h)"
    expect "$w --showme:help" "$(cat "$work/help")" "$(env -u $var "$tools/$w" --showme:help)"
    expect "$w -c x.c --help" "$(cat "$work/help")" "$(env -u $var "$tools/$w" -c x.c --help)"
    expect "$var=my-cc $w --help" "now: my-cc." \
        "$(env $var=my-cc "$tools/$w" --help | grep -o "now: my-cc\.")"
    echo "ok: $w --showme:{compile,link,incdirs,libdirs,libs,command,version,help}, -showme, --help, -h"
done

# The parts, used as build systems use them, with plain compilers.
cd "$work"
cp "$src/examples/ring.c" ring.c
run2() { # run2 PROGRAM EXPECTED [VAR=VALUE]: oshrun -np 2 PROGRAM prints EXPECTED
    out=$(env ${3:+"$3"} "$tools/oshrun" -np 2 "$1") || fail "oshrun -np 2 $1 failed: $out"
    echo "$out" | grep -qF "$2" || fail "$1 at 2 PEs printed '$out', not '$2'"
}
# shellcheck disable=SC2046 # the flags are words, as in a Makefile
cc $(env -u SHOAL_CC "$tools/oshcc" --showme:compile) -O2 -c ring.c -o ring.o
# shellcheck disable=SC2046
cc ring.o -o ring_parts $(env -u SHOAL_CC "$tools/oshcc" --showme:link)
run2 ./ring_parts "ring: token 1 after 2 PEs (expected 1)"
incdirs=$(env -u SHOAL_CC "$tools/oshcc" --showme:incdirs)
libdirs=$(env -u SHOAL_CC "$tools/oshcc" --showme:libdirs)
libs=$(env -u SHOAL_CC "$tools/oshcc" --showme:libs)
cc -I"$incdirs" ring.c -o ring_dirs -L"$libdirs" -l"$libs"
run2 ./ring_dirs "ring: token 1 after 2 PEs (expected 1)" "LD_LIBRARY_PATH=$libdirs"
eval "$(env -u SHOAL_CC "$tools/oshcc" -showme -O2 ring.c -o ring_showme)"
run2 ./ring_showme "ring: token 1 after 2 PEs (expected 1)"
cat >ring.cpp <<'CXX'
#include <shmem.h>
#include <cstdio>
static long token;
int main()
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_p(&token, 100 + me, (me + 1) % npes);
    shmem_barrier_all();
    if (me == 0)
        std::printf("c++: PE 0 got %ld from PE %d\n", token, npes - 1);
    shmem_finalize();
    return 0;
}
CXX
# shellcheck disable=SC2046
c++ $(env -u SHOAL_CXX "$tools/oshc++" --showme:compile) ring.cpp -o ring_cxx \
    $(env -u SHOAL_CXX "$tools/oshc++" --showme:link)
run2 ./ring_cxx "c++: PE 0 got 101 from PE 1"
echo "ok: cc/c++ with --showme:compile + --showme:link, with incdirs/libdirs/libs, and -showme's command built programs that ran at 2 PEs"
