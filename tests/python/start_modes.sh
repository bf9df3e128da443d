#!/bin/sh
# The same Python program under mpirun (PMIx), across two pretend hosts
# under mpirun (UCX between them), and started by hand with the config store.
# Usage: start_modes.sh PYTHON PROGS_DIR MULTIHOST_DIR MODE
set -eu
python=$1 progs=$2 mh=$3 mode=$4
case $mode in
mpirun)  out=$("$mh/run_mpirun.sh" 2 1 "$python" "$progs/smoke.py"); n=2 ;;
mpirun-2hosts) out=$("$mh/run_mpirun.sh" 4 2 "$python" "$progs/smoke.py"); n=4 ;;
store)
    port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    export SHOAL_JOB_KEY=$(openssl rand -hex 32)
    unset SHOAL_LAUNCHER_FD
    f=$(mktemp)
    SHOAL_RANK=0 SHOAL_NPES=2 SHOAL_STORE=127.0.0.1:$port timeout 60 "$python" "$progs/smoke.py" > "$f.0" &
    p0=$!
    SHOAL_RANK=1 SHOAL_NPES=2 SHOAL_STORE=127.0.0.1:$port timeout 60 "$python" "$progs/smoke.py" > "$f.1"
    wait $p0
    out=$(cat "$f.0" "$f.1"); rm -f "$f" "$f.0" "$f.1"; n=2 ;;
esac
echo "$out"
# Count reports, not lines: mpirun may forward two PEs' lines without the newline between.
[ "$(echo "$out" | grep -o "smoke ok pe [0-9]* of $n" | sort -u | wc -l)" -eq $n ] || { echo "FAIL: not every PE reported"; exit 1; }
