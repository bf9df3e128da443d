#!/bin/sh
# run_make.sh TOOLS_DIR SOURCE_DIR: builds a small package the way packages
# are built against an OpenSHMEM, a configure step and `make CC=WRAPPER`,
# once with shoalcc and once with oshcc. Both set $CC to the wrapper itself,
# which must not make the wrapper call itself. Each program then runs at 4
# PEs under oshrun and must print the ring's sum (values crossed PEs). A
# SHOAL_CC/SHOAL_CXX that names a wrapper is refused with a message.
set -eu
tools=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$src/examples/ring.c" "$work/ring.c"
cat > "$work/configure" <<'SH'
#!/bin/sh
# A tiny autoconf-style configure: CC=... on the command line or in the environment.
for a in "$@"; do case "$a" in CC=*) CC=${a#CC=} ;; esac; done
: "${CC:=cc}"
printf '#include <shmem.h>\nint main(void){shmem_init();shmem_finalize();return 0;}\n' > conftest.c
if ! $CC conftest.c -o conftest; then echo "configure: $CC cannot build an OpenSHMEM program" >&2; exit 1; fi
echo "CC = $CC" > config.mk
echo "configure: CC=$CC works"
SH
chmod +x "$work/configure"
printf 'include config.mk\nring: ring.c\n\t$(CC) -O2 ring.c -o ring\n' > "$work/Makefile"
# A back-end that is a Shoal wrapper (SHOAL_CC/SHOAL_CXX naming one) is
# refused at once with a message, instead of the wrapper calling itself.
for w in "shoalcc SHOAL_CC oshcc" "oshcc SHOAL_CC shoalcc" "shoalc++ SHOAL_CXX oshc++"; do
    set -- $w
    if (cd "$work" && env PATH="$tools:$PATH" "$2=$3" timeout 20 "$1" -c ring.c -o ring.o) 2>"$work/err"; then
        echo "FAIL: $2=$3 $1 compiled"; exit 1
    fi
    grep -q "is a Shoal wrapper itself and would call itself forever; set $2 to a real compiler" "$work/err" ||
        { echo "FAIL: $2=$3 $1 did not say why:"; cat "$work/err"; exit 1; }
    echo "ok: $2=$3 $1 refused"
done
for w in shoalcc oshcc; do
    (cd "$work" && rm -f ring config.mk && PATH="$tools:$PATH" CC=$w timeout 60 ./configure CC=$w >/dev/null &&
        PATH="$tools:$PATH" timeout 60 make -s CC=$w)
    out=$("$tools/oshrun" -np 4 "$work/ring")
    echo "$out" | grep -q "token 6 after 4 PEs (expected 6)" || { echo "FAIL: $w-built ring: $out"; exit 1; }
    echo "ok: configure CC=$w and make CC=$w built ring; oshrun -np 4: $(echo "$out" | tail -n 1)"
done
