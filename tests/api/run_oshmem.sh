#!/bin/sh
# Cross-check the API tests against another OpenSHMEM implementation, Open
# MPI's OSHMEM (Debian: openmpi-bin libopenmpi-dev), so that a failure under
# Shoal can be told apart from a wrong test.  OSHMEM implements 1.4, so the
# 1.5/1.6 parts compile out, and -DSHT_OSHMEM_QUIRKS steps around its bugs
# (listed in check.h).  `--mca osc ^rdma` avoids a crash in Open MPI 4.1.4's
# osc/rdma component at finalize.
#
# usage: tests/api/run_oshmem.sh [outdir] [npes...]   (default: 1 2 4 8)
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-/tmp/shoal-api-oshmem}
shift 2>/dev/null || true
npes=${*:-1 2 4 8}
mkdir -p "$out"
status=0
for src in "$here"/*.c; do
  t=$(basename "$src" .c)
  if ! oshcc -std=c11 -Wall -Wextra -DSHT_OSHMEM_QUIRKS -I"$here" "$src" -o "$out/$t" \
       2>"$out/$t.build.log"; then
    echo "$t: BUILD FAILED (see $out/$t.build.log)"
    status=1
    continue
  fi
  for n in $npes; do
    # OSHMEM reads its heap size from SHMEM_SYMMETRIC_HEAP_SIZE.
    SHMEM_SYMMETRIC_SIZE=16M SHMEM_SYMMETRIC_HEAP_SIZE=16M \
      timeout 60 oshrun --allow-run-as-root --oversubscribe --mca osc ^rdma \
        -x SHMEM_SYMMETRIC_SIZE -x SHMEM_SYMMETRIC_HEAP_SIZE -np "$n" "$out/$t" \
        >"$out/$t.np$n.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^PASS' "$out/$t.np$n.log"; then
      echo "$t np=$n: pass"
    else
      echo "$t np=$n: FAIL (rc=$rc, see $out/$t.np$n.log)"
      status=1
    fi
  done
done
exit $status
