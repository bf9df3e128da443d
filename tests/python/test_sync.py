"""wait_until and test (all forms), locks, barriers: each wait is released by a peer."""
import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RIGHT, LEFT, SYNC, ids


@pytest.mark.parametrize("dtype", SYNC, ids=ids(SYNC))
def test_wait_until_released_by_left(dtype):
    flag = shoal.zeros(1, dtype)
    assert not shoal.test(flag, shoal.CMP_EQ, 3)   # no peer writes before the barrier
    shoal.barrier_all()
    shoal.atomic_set(flag, 3, RIGHT) if np.dtype(dtype).itemsize >= 4 else shoal.p(flag, 3, RIGHT)
    shoal.wait_until(flag, shoal.CMP_EQ, 3)
    assert shoal.test(flag, shoal.CMP_GE, 3)
    shoal.barrier_all()
    shoal.free(flag)


@pytest.mark.parametrize("dtype", [np.int32, np.uint64, np.int16], ids=["int32", "uint64", "int16"])
def test_all_any_some_and_vectors(dtype):
    n = 4
    iv = shoal.zeros(n, dtype)
    assert shoal.test_any(iv, shoal.CMP_NE, 0) is None
    assert not shoal.test_all(iv, shoal.CMP_EQ, 1)
    assert len(shoal.test_some(iv, shoal.CMP_NE, 0)) == 0
    shoal.barrier_all()
    shoal.put(iv[2:], np.array([1, 1], dtype), RIGHT)         # elements 2 and 3
    assert shoal.wait_until_any(iv, shoal.CMP_EQ, 1, [0, 0, 1, 0]) == 3
    idx = shoal.wait_until_some(iv, shoal.CMP_EQ, 1)
    assert set(int(i) for i in idx) <= {2, 3} and len(idx) >= 1
    shoal.wait_until_all(iv, shoal.CMP_EQ, 1, [1, 1, 0, 0])   # 0 and 1 excluded
    shoal.wait_until_all_vector(iv, shoal.CMP_EQ, np.array([0, 0, 1, 1], dtype))
    assert shoal.wait_until_any_vector(iv, shoal.CMP_EQ, np.array([5, 5, 5, 1], dtype)) == 3
    assert list(shoal.wait_until_some_vector(iv, shoal.CMP_EQ, np.array([0, 5, 1, 1], dtype))) == [0, 2, 3]
    assert shoal.test_all_vector(iv, shoal.CMP_EQ, np.array([0, 0, 1, 1], dtype))
    assert shoal.test_any_vector(iv, shoal.CMP_GT, np.array([0, 0, 0, 0], dtype)) == 2
    assert list(shoal.test_some_vector(iv, shoal.CMP_LT, np.array([1, 1, 1, 1], dtype))) == [0, 1]
    assert shoal.test_all(iv[2:], shoal.CMP_EQ, 1)
    shoal.barrier_all()
    shoal.free(iv)


def test_lock_counts_every_pe():
    lock = shoal.Lock()
    counter = shoal.zeros(1, np.int64)
    for _ in range(5):
        with lock:
            v = shoal.g(counter, 0)
            shoal.p(counter, v + 1, 0)
            shoal.quiet()
    shoal.barrier_all()
    assert shoal.g(counter, 0) == 5 * NPES
    shoal.barrier_all()
    if ME == 0:
        assert lock.test()
        lock.release()
    shoal.barrier_all()
    lock.free()
    shoal.free(counter)


def test_sync_all_and_barrier():
    a = shoal.zeros(1, np.int64)
    shoal.p(a, ME, RIGHT)
    shoal.barrier_all()
    assert a[0] == LEFT
    shoal.sync_all()
    shoal.sync()
    shoal.free(a)
