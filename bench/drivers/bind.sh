#!/bin/sh
# bind.sh: runs a Shoal PE pinned to one CPU, chosen by its local rank
# (SHOAL_LOCAL_RANK, set by shoalrun) among the CPUs this process may use,
# when the host's PEs (SHOAL_LOCAL_NPES) fit one per CPU; otherwise runs it
# unpinned.  That is what Open MPI's oshrun does by default (bound to a core
# at 2 PEs on 2 cores, unbound when oversubscribed), while shoalrun leaves
# placement to the scheduler; compare.sh --shoal-bind puts this script
# between shoalrun and each program to show what binding changes.
set -eu
cpus=$(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r lo hi; do
    seq "$lo" "${hi:-$lo}"; done)
n=$(printf '%s\n' "$cpus" | wc -l)
[ "${SHOAL_LOCAL_NPES:-1}" -le "$n" ] || exec "$@"
cpu=$(printf '%s\n' "$cpus" | sed -n "$(( ${SHOAL_LOCAL_RANK:-0} % n + 1 ))p")
exec taskset -c "$cpu" "$@"
