"""Every AMO for every dtype its table allows; the results cross PEs."""
import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RIGHT, LEFT, STANDARD_AMO, EXTENDED_AMO, BITWISE_AMO, ids


@pytest.mark.parametrize("dtype", STANDARD_AMO, ids=ids(STANDARD_AMO))
def test_add_inc_fetch_add_on_pe0(dtype):
    a = shoal.zeros(2, dtype)
    shoal.atomic_add(a, 2, 0)
    shoal.atomic_inc(a, 0)
    old = shoal.atomic_fetch_add(a[1:], 1, 0)
    old2 = shoal.atomic_fetch_inc(a[1:], 0)
    assert 0 <= old < 2 * NPES and old2 >= 0
    shoal.barrier_all()
    assert shoal.atomic_fetch(a, 0) == 3 * NPES
    assert shoal.atomic_fetch(a[1:], 0) == 2 * NPES
    shoal.barrier_all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", EXTENDED_AMO, ids=ids(EXTENDED_AMO))
def test_set_swap_fetch(dtype):
    a = shoal.zeros(1, dtype)
    shoal.atomic_set(a, ME + 1, RIGHT)
    shoal.barrier_all()
    assert a[0] == LEFT + 1
    shoal.barrier_all()
    old = shoal.atomic_swap(a, 50 + ME, LEFT)      # LEFT's word was set by LEFT-1
    assert old == (LEFT - 1) % NPES + 1
    shoal.barrier_all()
    assert a[0] == 50 + RIGHT                        # RIGHT swapped into this PE's word
    assert shoal.atomic_fetch(a, LEFT) == 50 + ME
    shoal.barrier_all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", STANDARD_AMO, ids=ids(STANDARD_AMO))
def test_compare_swap_election(dtype):
    a = shoal.zeros(1, dtype)
    shoal.barrier_all()
    old = shoal.atomic_compare_swap(a, 0, ME + 1, 0)   # exactly one PE wins
    wins = shoal.zeros(1, np.int64)
    shoal.atomic_add(wins, 1 if old == 0 else 0, 0)
    shoal.barrier_all()
    if ME == 0:
        assert wins[0] == 1 and 1 <= a[0] <= NPES
    shoal.barrier_all()
    shoal.free(wins)
    shoal.free(a)


@pytest.mark.parametrize("dtype", BITWISE_AMO, ids=ids(BITWISE_AMO))
def test_bitwise(dtype):
    bits = min(NPES, 30)
    a = shoal.zeros(3, dtype)
    if ME == 0:
        a[1] = (1 << bits) - 1
    shoal.barrier_all()
    allbits = -1 if np.dtype(dtype).kind == "i" else int(np.iinfo(dtype).max)
    if ME < bits:
        shoal.atomic_or(a, 1 << ME, 0)
        shoal.atomic_and(a[1:], allbits ^ (1 << ME), 0)
        shoal.atomic_xor(a[2:], 1 << ME, 0)
    f_or = shoal.atomic_fetch_or(a, 0, 0)
    f_and = shoal.atomic_fetch_and(a[1:], allbits, 0)
    f_xor = shoal.atomic_fetch_xor(a[2:], 0, 0)
    assert 0 <= f_or < (1 << bits) and 0 <= f_and < (1 << bits) and 0 <= f_xor < (1 << bits)
    shoal.barrier_all()
    if ME == 0:
        assert a[0] == (1 << bits) - 1 and a[1] == 0 and a[2] == (1 << bits) - 1
    shoal.barrier_all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", STANDARD_AMO, ids=ids(STANDARD_AMO))
def test_nbi_fetching(dtype):
    a = shoal.full(4, 10, dtype)
    f = np.zeros(6, dtype)
    shoal.atomic_fetch_nbi(f[0:], a, RIGHT)
    shoal.atomic_fetch_add_nbi(f[1:], a[1:], 5, RIGHT)
    shoal.atomic_fetch_inc_nbi(f[2:], a[2:], RIGHT)
    shoal.atomic_compare_swap_nbi(f[3:], a[3:], 10, 77, RIGHT)
    shoal.atomic_swap_nbi(f[4:], a[0:], 9, RIGHT)
    shoal.quiet()
    assert list(f[:5]) == [10, 10, 10, 10, 10]
    shoal.barrier_all()
    assert list(a) == [9, 15, 11, 77]
    shoal.barrier_all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", BITWISE_AMO, ids=ids(BITWISE_AMO))
def test_nbi_bitwise(dtype):
    a = shoal.full(3, 6, dtype)
    f = np.zeros(3, dtype)
    shoal.atomic_fetch_and_nbi(f[0:], a[0:], 3, RIGHT)
    shoal.atomic_fetch_or_nbi(f[1:], a[1:], 1, RIGHT)
    shoal.atomic_fetch_xor_nbi(f[2:], a[2:], 5, RIGHT)
    shoal.quiet()
    assert list(f) == [6, 6, 6]
    shoal.barrier_all()
    assert list(a) == [2, 7, 3]
    shoal.barrier_all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_floats_only_in_extended(dtype):
    a = shoal.zeros(1, dtype)
    with pytest.raises(TypeError, match="standard AMO"):
        shoal.atomic_fetch_add(a, 1.0, 0)
    with pytest.raises(TypeError, match="bitwise AMO"):
        shoal.atomic_or(a, 1, 0)
    shoal.free(a)
