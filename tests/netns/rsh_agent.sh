#!/bin/sh
# A stand-in for ssh as shoalrun's --launch-agent on a netns_job.sh cluster:
# `rsh_agent.sh HOST COMMAND...` with HOST = 10.77.0.(k+1) runs COMMAND with
# sh in the namespace $SHOAL_NETNS_NAME-h<k> of this machine, as ssh would
# run it on host k (its stdin, stdout and stderr are the agent's).
set -eu
name=${SHOAL_NETNS_NAME:?rsh_agent.sh: set SHOAL_NETNS_NAME to the cluster name}
host=${1:?rsh_agent.sh: no host}
shift
case $host in
10.77.0.*) k=$((${host##*.} - 1)) ;;
*) echo "rsh_agent.sh: host '$host' is not in the 10.77.0.0/24 netns cluster" >&2; exit 255 ;;
esac
exec ip netns exec "$name-h$k" sh -c "$*"
