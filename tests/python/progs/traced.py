"""A small traced Python program (trace_names.sh checks its trace): each PE
puts to its right neighbour inside a user range "compute", fetch-adds a
counter on PE 0, and meets the others at a barrier."""
import numpy as np

import shoal

me, n = shoal.my_pe(), shoal.n_pes()
a = shoal.zeros(4, np.int64)
c = shoal.zeros(1, np.int64)
with shoal.trace_range("compute"):
    shoal.put(a, np.full(4, me, np.int64), (me + 1) % n)
    with shoal.trace_range("inner"):
        shoal.atomic_fetch_add(c, 1, 0)
shoal.barrier_all()
assert list(a) == [(me - 1) % n] * 4, a
if me == 0:
    assert c[0] == n, c
shoal.free(a)
shoal.free(c)
