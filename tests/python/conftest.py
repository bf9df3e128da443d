"""Shared helpers of the Python suites (run on N PEs by shoal.pytest_plugin)."""
import numpy as np
import pytest

import shoal

ME, NPES = shoal.my_pe(), shoal.n_pes()
RIGHT, LEFT = (ME + 1) % NPES, (ME - 1) % NPES

# The dtypes of each OpenSHMEM table, as NumPy sees them (np.longlong is a
# dtype of its own, distinct from int64 = C long).
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
        np.longlong, np.ulonglong]
RMA = INTS + [np.float32, np.float64, np.longdouble]
STANDARD_AMO = [np.int32, np.uint32, np.int64, np.uint64, np.longlong, np.ulonglong]
EXTENDED_AMO = STANDARD_AMO + [np.float32, np.float64]
BITWISE_AMO = [np.int32, np.uint32, np.int64, np.uint64, np.ulonglong]
SYNC = [np.int16, np.uint16] + STANDARD_AMO
MINMAX = INTS + [np.float32, np.float64, np.longdouble]
ARITH = MINMAX + [np.complex64, np.complex128]
# Bitwise reductions: the unsigned types and the fixed-width ones (int64_t is C long, so
# signed long long has no row).
BITWISE_REDUCE = [d for d in INTS if d is not np.longlong]

multi_pe = pytest.mark.skipif(NPES < 2, reason="needs 2 or more PEs")


def ids(dtypes):
    return [np.dtype(d).name + ("_ll" if d in (np.longlong, np.ulonglong) else "") for d in dtypes]
