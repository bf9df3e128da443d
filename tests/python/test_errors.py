"""Bad input raises (TypeError, ValueError, shoal.Error with the library's
message) and the process carries on: each test ends by using the library."""
import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RIGHT


@pytest.fixture
def a():
    x = shoal.zeros(4, np.int64)
    yield x
    shoal.barrier_all()          # still alive and in step after the exception
    shoal.free(x)


def test_non_symmetric_destination(a):
    with pytest.raises(shoal.Error, match="is not a symmetric address"):
        shoal.put(np.zeros(4, np.int64), np.arange(4), RIGHT)
    with pytest.raises(shoal.Error, match="not a symmetric address"):
        shoal.atomic_add(np.zeros(1, np.int64), 1, RIGHT)
    with pytest.raises(shoal.Error, match="not a symmetric"):
        shoal.fcollect(np.zeros(4 * NPES, np.int64), a)


def test_pe_out_of_range(a):
    for bad in (NPES, -1, 2**40):
        with pytest.raises(shoal.Error, match=f"pe .* is out of range; valid PEs are 0..{NPES - 1}"):
            shoal.p(a, 1, bad)
    with pytest.raises(shoal.Error, match="out of range"):
        shoal.get(np.zeros(4, np.int64), a, NPES)
    with pytest.raises(shoal.Error, match="root .* out of range"):
        shoal.broadcast(a, a, NPES)


def test_wrong_dtype(a):
    with pytest.raises(TypeError, match="dtype"):
        shoal.put(a, np.arange(4, dtype=np.int32), RIGHT)
    with pytest.raises(TypeError, match="standard AMO"):
        shoal.atomic_add(shoal.peer(a, ME).view(np.int16), 1, RIGHT)
    with pytest.raises(TypeError, match="must be a number"):
        shoal.p(a, "x", RIGHT)
    with pytest.raises(ValueError, match="does not fit"):
        shoal.p(a.view(np.uint64), -1, RIGHT)
    with pytest.raises(TypeError, match="NumPy array"):
        shoal.put([1, 2], a, RIGHT)
    with pytest.raises(TypeError, match="uint64"):
        shoal.signal_fetch(a)


def test_shape_mismatch(a):
    with pytest.raises(ValueError, match="shape"):
        shoal.put(a, np.arange(3), RIGHT)
    with pytest.raises(ValueError, match="shape"):
        shoal.get(np.zeros((2, 2), np.int64), a, RIGHT)
    with pytest.raises(ValueError, match="team size"):
        shoal.fcollect(a, a[:3])
    with pytest.raises(ValueError, match="same size"):
        shoal.reduce(a[:2], a, "sum")


def test_past_the_end_and_bad_arguments(a):
    with pytest.raises(TypeError, match="takes"):
        shoal.put(a, a)
    with pytest.raises(ValueError, match="cmp"):
        shoal.wait_until(a, 99, 0)
    sig = shoal.zeros(1, np.uint64)
    with pytest.raises(ValueError, match="sig_op"):
        shoal.put_signal(a, a, sig, 1, 7, RIGHT)
    with pytest.raises(TypeError, match="ctx"):
        shoal.p(a, 1, RIGHT, "ctx")
    with pytest.raises(TypeError, match="team"):
        shoal.sync(3)
    with pytest.raises(ValueError, match="not made by"):
        shoal.free(np.zeros(2))
    shoal.barrier_all()
    shoal.free(sig)
