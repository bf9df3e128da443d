"""shoal.register / shoal.unregister (shmemx_buffer_register): arrays NumPy
allocated, and torch CPU tensors, made symmetric after the fact; RMA, AMO,
put_signal and reduce on them with values checked; unregistered, they raise
shoal.Error naming the call. Runs at 1, 2 and 4 PEs (python_suites.npN)."""
import numpy as np
import pytest

import shoal
from conftest import LEFT, ME, NPES, RIGHT


def test_put_get_on_a_registered_array():
    mine = np.arange(1000, dtype=np.int64) + 1000 * ME  # NumPy's own memory
    addr = mine.ctypes.data
    r = shoal.register(mine)
    assert r.ctypes.data == addr                  # same address, same contents
    assert list(r[:3]) == [1000 * ME, 1000 * ME + 1, 1000 * ME + 2]
    assert shoal.is_symmetric(mine) and shoal.is_symmetric(r)
    shoal.barrier_all()
    got = np.zeros(1000, np.int64)
    shoal.get(got, r, RIGHT)
    assert (got == np.arange(1000) + 1000 * RIGHT).all()
    shoal.barrier_all()
    shoal.put(r[10:20], np.full(10, -ME - 1, np.int64), RIGHT)
    shoal.barrier_all()
    assert (mine[10:20] == -LEFT - 1).all()       # written through the registration
    assert mine[9] == 1000 * ME + 9 and mine[20] == 1000 * ME + 20
    shoal.unregister(r)
    assert mine[10] == -LEFT - 1                  # contents kept after unregister


def test_atomics_signal_and_reduce_on_registered_arrays():
    words = shoal.register(np.zeros(4, np.uint64))
    for pe in range(NPES):
        shoal.atomic_add(words[0:], 1 + ME, pe)
    data = shoal.register(np.zeros(8, np.int32))
    shoal.put_signal(data, np.full(8, ME + 7, np.int32), words[1:], 1, shoal.SIGNAL_ADD, RIGHT)
    shoal.signal_wait_until(words[1:], ">=", 1)
    assert (data == LEFT + 7).all()
    shoal.barrier_all()
    assert words[0] == NPES * (NPES + 1) // 2
    src = shoal.register(np.full(5, ME + 1, np.float64))
    dst = shoal.register(np.zeros(5, np.float64))
    shoal.reduce(dst, src, "sum")
    assert (dst == NPES * (NPES + 1) / 2).all()
    for r in (dst, src, data, words):
        shoal.unregister(r)


def test_unregistered_memory_raises_naming_the_call():
    r = shoal.register(np.zeros(16, np.int64))
    shoal.unregister(r)
    with pytest.raises(shoal.Error, match="shoal.put: dest .* not a symmetric address"):
        shoal.put(r, np.ones(16, np.int64), RIGHT)
    with pytest.raises(shoal.Error, match="shoal.atomic_fetch_add"):
        shoal.atomic_fetch_add(r, 1, RIGHT)
    with pytest.raises(ValueError, match="unregistered already"):
        shoal.unregister(r)


def test_bad_registrations_are_refused_on_every_pe():
    a = shoal.zeros(8, np.int64)                 # symmetric already
    with pytest.raises(shoal.Error, match="shoal.register: the PEs did not register"):
        shoal.register(a)
    with pytest.raises(ValueError, match="C-contiguous"):
        shoal.register(np.zeros((4, 4))[:, 1])
    with pytest.raises(ValueError, match="not an array that shoal.register returned"):
        shoal.unregister(np.zeros(3))
    if NPES > 1:                                  # sizes that differ between PEs
        with pytest.raises(shoal.Error, match="did not register"):
            shoal.register(np.zeros(8 + ME, np.int8))
    r = shoal.register(np.zeros(8, np.int64))     # the failures left nothing behind
    shoal.put(r, np.full(8, ME, np.int64), RIGHT)
    shoal.barrier_all()
    assert (r == LEFT).all()
    shoal.unregister(r)
    shoal.free(a)


def test_torch_tensors():
    torch = pytest.importorskip("torch")
    import shoal.torch as st
    t = torch.arange(64, dtype=torch.float32) + 100 * ME
    r = st.register(t)
    assert r.data_ptr() == t.data_ptr()
    got = torch.zeros(64)
    st.get(got, r, RIGHT)
    assert (got == torch.arange(64) + 100 * RIGHT).all()
    shoal.barrier_all()
    st.allreduce(r, "sum")
    want = torch.arange(64) * NPES + 100 * NPES * (NPES - 1) / 2
    assert torch.equal(t, want)                   # reduced in the tensor's own memory
    c = st.register(torch.zeros(2, dtype=torch.int64))
    st.atomic_fetch_add(c[0:], 5, LEFT)
    shoal.barrier_all()
    assert c[0].item() == 5
    st.unregister(c)
    st.unregister(r)
    with pytest.raises(shoal.Error, match="shoal.put"):
        st.put(r, torch.zeros(64), RIGHT)
    with pytest.raises(ValueError, match="contiguous"):
        st.register(torch.zeros(4, 4).t())
