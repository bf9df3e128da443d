"""A PE that goes wrong: `raise` (PE 1 raises while the others wait in a
barrier), `wait` (every PE waits forever, for Ctrl-C or kill)."""
import sys
import time

import numpy as np

import shoal

mode = sys.argv[1]
a = shoal.zeros(1, np.int64)
print(f"ready {shoal.my_pe()}", flush=True)
if mode == "raise":
    if shoal.my_pe() == 1 % shoal.n_pes():
        raise RuntimeError("PE failed on purpose")
    shoal.barrier_all()
elif mode == "wait":
    shoal.wait_until(a, shoal.CMP_EQ, 1)   # nobody sets it
time.sleep(60)
