"""A whole job in a few lines, for the start-up modes (shoalrun, mpirun, the
config store): values cross PEs by put, AMO and reduction; prints one line."""
import os

import numpy as np

import shoal

# shmem_init took the job key out of the environment, os.environ's copy too.
assert "SHOAL_JOB_KEY" not in os.environ, "the job key is still in os.environ"

me, n = shoal.my_pe(), shoal.n_pes()
a = shoal.zeros(8, np.float64)
shoal.put(a, np.full(8, me + 0.5), (me + 1) % n)
count = shoal.zeros(1, np.int64)
shoal.atomic_add(count, me + 1, 0)
shoal.barrier_all()
assert (a == (me - 1) % n + 0.5).all(), a
total = shoal.zeros(1, np.int64)
shoal.reduce(total, count, "max")
assert total[0] == n * (n + 1) // 2, total
print(f"smoke ok pe {me} of {n}", flush=True)
