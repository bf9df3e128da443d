#!/bin/sh
# generic_refuse.sh CC INCLUDE_DIR: a deprecated generic AMO called on a type
# outside its specification table must not compile (never a wider access),
# and one on a listed type must. Each case is a one-line C11 program.
set -u
cc=$1
inc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
try() { # try EXPECT(ok|refused) TYPE CALL
    printf '#include <shmem.h>\n%s x;\nvoid f(void) { %s; }\n' "$2" "$3" >"$tmp/t.c"
    if $cc -std=c11 -I"$inc" -c -o "$tmp/t.o" "$tmp/t.c" >"$tmp/out" 2>&1; then got=ok; else got=refused; fi
    if [ "$got" != "$1" ]; then
        echo "FAIL: '$2 x; $3' was $got, expected $1"
        cat "$tmp/out"
        failures=$((failures + 1))
    elif [ "$got" = refused ] && ! grep -q "unsupported argument type" "$tmp/out"; then
        echo "FAIL: '$2 x; $3' refused for another reason:"
        cat "$tmp/out"
        failures=$((failures + 1))
    fi
}
try ok int 'shmem_swap(&x, 1, 0)'
try ok double 'shmem_fetch(&x, 0)'
try ok 'unsigned long' 'shmem_add(&x, 1UL, 0)'
try refused short 'shmem_swap(&x, 1, 0)'
try refused char 'shmem_fetch(&x, 0)'
try refused short 'shmem_set(&x, 1, 0)'
try refused float 'shmem_cswap(&x, 1, 2, 0)'
try refused double 'shmem_finc(&x, 0)'
try refused float 'shmem_inc(&x, 0)'
try refused double 'shmem_fadd(&x, 1, 0)'
try refused 'long double' 'shmem_add(&x, 1, 0)'
[ "$failures" -eq 0 ] && echo "PASS generic_refuse"
exit "$failures"
