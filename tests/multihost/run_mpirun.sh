#!/bin/sh
# Runs a Shoal program under Open MPI's mpirun (a PMIx server), so the PEs
# use the PMIx bootstrap. Usage: run_mpirun.sh NPES HOSTS PROGRAM [ARGS...]
# HOSTS > 1 places ranks round-robin on pretend hosts (as_host.sh), so the
# UCX transport carries traffic between them. Exits 77 (skipped) without mpirun.
command -v mpirun >/dev/null 2>&1 || { echo "mpirun not found: skipped"; exit 77; }
np=$1 hosts=$2
shift 2
# Loopback only, for both mpirun's own channels and UCX.
exec mpirun --allow-run-as-root --oversubscribe --mca oob_tcp_if_include lo \
    -x UCX_TLS -x UCX_NET_DEVICES -x SHOAL_TEST_HOSTS="$hosts" -np "$np" \
    "$(dirname "$0")/as_host.sh" "$@"
