"""put/get (blocking, nbi, strided), p/g and put-with-signal: values cross PEs."""
import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RIGHT, LEFT, RMA, ARITH, ids


def pattern(pe, n, dtype):
    return (np.arange(n) % 50 + pe * 3 + 1).astype(dtype)


@pytest.mark.parametrize("dtype", RMA + [np.complex128, np.bool_], ids=ids(RMA) + ["complex128", "bool"])
@pytest.mark.parametrize("nbi", [False, True])
def test_put_ring(dtype, nbi):
    a = shoal.zeros(37, dtype)
    (shoal.put_nbi if nbi else shoal.put)(a, pattern(ME, 37, dtype), RIGHT)
    if nbi:
        shoal.quiet()
    shoal.barrier_all()
    np.testing.assert_array_equal(a, pattern(LEFT, 37, dtype))
    shoal.free(a)


@pytest.mark.parametrize("dtype", RMA, ids=ids(RMA))
@pytest.mark.parametrize("nbi", [False, True])
def test_get_ring(dtype, nbi):
    a = shoal.array(pattern(ME, 19, dtype))
    out = np.zeros(19, dtype)
    (shoal.get_nbi if nbi else shoal.get)(out, a, RIGHT)
    if nbi:
        shoal.quiet()
    np.testing.assert_array_equal(out, pattern(RIGHT, 19, dtype))
    shoal.barrier_all()
    shoal.free(a)


def test_put_2d_and_large():
    a = shoal.zeros((64, 1024), np.float64)  # 512 KiB: the GIL is released
    shoal.put(a, np.full((64, 1024), ME + 0.5), RIGHT)
    shoal.barrier_all()
    assert (a == LEFT + 0.5).all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64, np.complex128],
                         ids=["int8", "int16", "float32", "float64", "complex128"])
def test_strided(dtype):
    a = shoal.zeros((6, 8), dtype)
    src = pattern(ME, 48, dtype).reshape(6, 8)
    shoal.put(a[::2, 1::3], src[1::2, ::3], RIGHT)  # both sides strided, 2-D
    shoal.barrier_all()
    expect = np.zeros((6, 8), dtype)
    expect[::2, 1::3] = pattern(LEFT, 48, dtype).reshape(6, 8)[1::2, ::3]
    np.testing.assert_array_equal(a, expect)
    out = np.zeros((3, 6), dtype)
    shoal.get(out[:, ::2], a[::2, 1::3], RIGHT)
    np.testing.assert_array_equal(out[:, ::2], src[1::2, ::3])  # what this PE put there
    assert (out[:, 1::2] == 0).all()
    shoal.barrier_all()
    shoal.free(a)


@pytest.mark.parametrize("dtype", RMA, ids=ids(RMA))
def test_p_g(dtype):
    a = shoal.zeros(3, dtype)
    shoal.p(a[1:], ME + 7, RIGHT)
    shoal.barrier_all()
    assert a[1] == LEFT + 7 and a[0] == 0 and a[2] == 0
    assert shoal.g(a[1:], RIGHT) == ME + 7  # RIGHT's left neighbour is this PE
    shoal.barrier_all()
    shoal.free(a)


def test_p_complex_is_rejected_but_put_works():
    a = shoal.zeros(2, np.complex128)
    with pytest.raises(TypeError, match="standard RMA"):
        shoal.p(a, 1j, RIGHT)
    shoal.put(a, np.array([1 + 2j, ME * 1j]), RIGHT)
    shoal.barrier_all()
    assert a[0] == 1 + 2j and a[1] == LEFT * 1j
    shoal.free(a)


@pytest.mark.parametrize("nbi", [False, True])
@pytest.mark.parametrize("op", [shoal.SIGNAL_SET, shoal.SIGNAL_ADD])
def test_put_signal(nbi, op):
    data = shoal.zeros(100, np.int32)
    sig = shoal.zeros(1, np.uint64)
    (shoal.put_signal_nbi if nbi else shoal.put_signal)(
        data, np.arange(100, dtype=np.int32) + ME, sig, 5, op, RIGHT)
    got = shoal.signal_wait_until(sig, shoal.CMP_EQ, 5)
    assert got == 5 and shoal.signal_fetch(sig) == 5
    np.testing.assert_array_equal(data, np.arange(100, dtype=np.int32) + LEFT)
    shoal.barrier_all()
    shoal.free(sig)
    shoal.free(data)


def test_fence_orders_puts():
    a = shoal.zeros(2, np.int64)
    shoal.put(a[:1], np.array([42]), RIGHT)
    shoal.fence()
    shoal.p(a[1:], 1, RIGHT)
    shoal.wait_until(a[1:], shoal.CMP_EQ, 1)
    assert a[0] == 42
    shoal.barrier_all()
    shoal.free(a)


def test_list_source_is_converted():
    a = shoal.zeros(3, np.float32)
    shoal.put(a, [ME, ME, ME], RIGHT)
    shoal.barrier_all()
    assert (a == LEFT).all()
    shoal.free(a)


def test_peer_view():
    a = shoal.full(4, ME, np.int64)
    v = shoal.peer(a, RIGHT)
    assert (v == RIGHT).all()
    v[0] = 100 + ME                       # a plain store into the peer's copy
    shoal.barrier_all()
    assert a[0] == 100 + LEFT
    shoal.barrier_all()
    shoal.free(a)


def test_arrays_are_symmetric_and_zero_copy():
    a = shoal.ones((2, 3), np.float32)
    assert isinstance(a, np.ndarray) and a.shape == (2, 3) and (a == 1).all()
    assert shoal.is_symmetric(a) and shoal.is_symmetric(a[1:]) and not shoal.is_symmetric(np.ones(3))
    b = shoal.full(5, 2.5)
    assert b.dtype == np.float64 and (b == 2.5).all()
    e = shoal.empty(0, np.int8)
    assert e.size == 0
    total, used, largest = shoal.heap_info()
    assert used > 0 and total >= used
    for x in (e, b, a):
        shoal.free(x)
    with pytest.raises(ValueError, match="already freed"):
        shoal.free(a)


def test_garbage_collected_array_is_kept_not_freed():
    before = shoal.kept_bytes()
    a = shoal.zeros(1000, np.int8)
    del a
    import gc
    gc.collect()
    assert shoal.kept_bytes() >= before + 1000


def test_interpreter_data_is_not_remapped():
    # Symmetric globals stay off in Python processes (the interpreter's own .data
    # must not move onto a shared segment), even though ctest sets
    # SHOAL_SYMMETRIC_GLOBALS=1 for these suites; the heap is mapped as usual.
    with open("/proc/self/maps") as f:
        maps = f.read()
    assert "shoal-heap" in maps
    assert "shoal-globals" not in maps
