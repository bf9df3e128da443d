"""A PE that the library itself ends (SHOAL_CHECK=1: PE 1 names another root
of a broadcast): the library's error line must reach the job's output."""
import numpy as np

import shoal


def test_roots_differ():
    a = shoal.zeros(4, np.int64)
    shoal.broadcast(a, a, shoal.my_pe() % 2)
