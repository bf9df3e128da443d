"""Allocates and drops 1 MiB symmetric arrays, NumPy style, with no shoal.free:
every allocation gives back what every PE has dropped, so the loop runs
through a heap much smaller than the sum of the arrays. Every CHECK-th
iteration fills an array through puts from the left neighbour and checks
every value. Prints one line per PE: "PE n: OK <iterations> ..."

Usage: drop_loop.py [ITERATIONS] [CHECK]  (SHMEM_SYMMETRIC_SIZE sets the heap)"""
import sys
import time

import numpy as np

import shoal

iters = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
check = int(sys.argv[2]) if len(sys.argv) > 2 else 500
me, npes = shoal.my_pe(), shoal.n_pes()
right, left = (me + 1) % npes, (me - 1) % npes
N = 1 << 17  # float64 elements: 1 MiB

t0 = time.monotonic()
max_used = 0
for i in range(iters):
    if i % check == 0:
        a = shoal.zeros(N, np.float64)
        shoal.put(a, np.arange(N, dtype=np.float64) + 1000.0 * me + i, right)
        shoal.barrier_all()
        expect = np.arange(N, dtype=np.float64) + 1000.0 * left + i
        assert np.array_equal(a, expect), f"PE {me}: wrong values in iteration {i}"
        max_used = max(max_used, shoal.heap_info()[1])
        shoal.barrier_all()  # every peer has checked before its array is dropped
    else:
        a = shoal.empty(N, np.float64)
        a[i % N] = i  # touch it: the memory is really ours
        assert a[i % N] == i
    del a
total, used, _ = shoal.heap_info()
dt = time.monotonic() - t0
assert iters * (N * 8) > 2 * total, "the loop must allocate more than the heap holds"
assert max_used <= total
print(f"PE {me}: OK {iters} iterations of 1 MiB in {dt:.1f} s "
      f"({1e6 * dt / iters:.0f} us each), heap {total >> 20} MiB, used at most "
      f"{max_used >> 20} MiB, kept {shoal.kept_bytes()} bytes", flush=True)
