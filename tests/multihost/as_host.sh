#!/bin/sh
# Places this PE on a pretend host: SHOAL_NODE=host<rank % HOSTS> (HOSTS from
# SHOAL_TEST_HOSTS, default 2), then runs the program. The rank comes from
# shoalrun (SHOAL_RANK) or from a PMIx launcher (PMIX_RANK). With round-robin
# placement, neighbouring ranks sit on different hosts, so the shared-memory
# path and the network path are both exercised by every test.
rank=${SHOAL_RANK:-${PMIX_RANK:-0}}
SHOAL_NODE=host$((rank % ${SHOAL_TEST_HOSTS:-2}))
export SHOAL_NODE
exec "$@"
