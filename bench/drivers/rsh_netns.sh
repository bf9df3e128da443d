#!/bin/sh
# rsh_netns.sh: an "rsh agent" for Open MPI's mpirun/oshrun that reaches the
# hosts of a tests/netns/netns_job.sh cluster without ssh: given
# `HOST COMMAND...` with HOST = 10.77.0.(k+1), it runs COMMAND with sh in
# the network namespace $SHOAL_NETNS_NAME-h<k> of this machine.
# Use: SHOAL_NETNS_NAME=NAME mpirun --mca plm_rsh_agent bench/drivers/rsh_netns.sh ...
# (Open MPI passes the remote daemon's command line as the remaining
# arguments, already quoted for a remote shell, as ssh would.)
set -eu
name=${SHOAL_NETNS_NAME:?rsh_netns.sh: set SHOAL_NETNS_NAME to the cluster name}
# Open MPI may put ssh-style options before the host; skip them.
while [ $# -gt 0 ]; do
    case $1 in
    -x | -n | -T | -q) shift ;;
    -*) shift ;;
    *) break ;;
    esac
done
host=${1:?rsh_netns.sh: no host}
shift
case $host in
10.77.0.*) k=$((${host##*.} - 1)) ;;
*) echo "rsh_netns.sh: host '$host' is not in the 10.77.0.0/24 netns cluster" >&2; exit 255 ;;
esac
exec ip netns exec "$name-h$k" sh -c "$*"
