#!/bin/sh
# The main demo: 4 PEs share the work of a heat-diffusion simulation through
# symmetric memory (halo puts + barriers) and check it against a serial run;
# then 8 PEs (more than the cores) count together with atomics on a global and
# combine their data with team reductions on a 2-D grid of teams.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh
mkdir -p build/demo
build/tools/shoalcc -O2 examples/heat.c -o build/demo/heat -lm
build/tools/shoalcc -O2 examples/counter.c -o build/demo/counter
build/tools/shoalcc -O2 examples/hello.c -o build/demo/hello
build/tools/shoalcc -O2 examples/grid_reduce.c -o build/demo/grid_reduce
build/tools/shoalrun -n 4 --tag-output build/demo/hello
build/tools/shoalrun -n 4 build/demo/heat
build/tools/shoalrun -n 8 build/demo/counter
build/tools/shoalrun -n 8 build/demo/grid_reduce
