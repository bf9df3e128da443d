#!/bin/sh
# pin_rank.sh CMD [ARGS...]: runs CMD pinned to CPU (rank % ncpu), the rank
# from Shoal (SHOAL_RANK, set by shoalrun and tests/netns/netns_job.sh) or
# Open MPI (OMPI_COMM_WORLD_RANK), as two real hosts would give each PE a
# CPU of its own. The namespace benchmarks (netns_compare.sh, netns_ab.sh
# --pin, netns_stream.sh) wrap every PE in it.
r=${OMPI_COMM_WORLD_RANK:-${SHOAL_RANK:-0}}
exec taskset -c $((r % $(nproc))) "$@"
