"""shoal.torch: symmetric CPU tensors and the operations on them."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import shoal  # noqa: E402
import shoal.torch as st  # noqa: E402
from conftest import ME, NPES, RIGHT, LEFT  # noqa: E402


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_put_and_allreduce(dtype):
    t = st.zeros((2, 3), dtype=dtype)
    assert t.dtype == dtype and t.shape == (2, 3) and shoal.is_symmetric(st.numpy_of(t))
    st.put(t, torch.full((2, 3), ME + 1, dtype=dtype), RIGHT)
    shoal.barrier_all()
    assert (t == LEFT + 1).all()
    st.allreduce(t, "sum")
    assert (t == NPES * (NPES + 1) // 2).all()
    shoal.barrier_all()
    st.free(t)


def test_atomics_get_broadcast_on_tensors():
    c = st.zeros(1, dtype=torch.int64)
    st.atomic_add(c, 2, 0)
    shoal.barrier_all()
    assert st.atomic_fetch(c, 0) == 2 * NPES
    src = st.full((4,), float(ME), dtype=torch.float64)
    dst = st.empty((4,), dtype=torch.float64)
    st.broadcast(dst, src, 0)
    assert (dst == 0).all()
    out = torch.zeros(4, dtype=torch.float64)
    st.get(out, src, RIGHT)
    assert (out == RIGHT).all()
    shoal.barrier_all()
    for x in (dst, src, c):
        st.free(x)


def test_device_argument():
    with pytest.raises(ValueError, match="not supported yet"):
        st.zeros(2, device="meta")
    t = st.ones(2, device="cpu")
    assert (t == 1).all()
    st.free(t)


# shoal routines without array arguments (or that make arrays): no tensor form needed.
NO_ARRAYS = {"alloc", "array", "barrier_all", "clear_lock", "ctx_create", "fence", "global_exit",
             "heap_info", "info", "kept_bytes", "my_pe", "n_pes", "pe_accessible", "quiet",
             "set_lock", "sync", "sync_all", "test_lock"}


def test_every_array_routine_has_a_tensor_form():
    routines = {n for n in shoal.__all__
                if callable(getattr(shoal, n)) and not isinstance(getattr(shoal, n), type)}
    missing = sorted(routines - NO_ARRAYS - set(st.__all__))
    assert not missing, f"shoal.torch has no tensor form of {missing}"


def test_nbi_atomics_tests_and_vector_waits_on_tensors():
    a = st.full((4,), 10, dtype=torch.int64)
    f = torch.zeros(3, dtype=torch.int64)
    shoal.barrier_all()
    st.atomic_fetch_add_nbi(f[0:], a[0:], ME + 1, RIGHT)
    st.atomic_fetch_inc_nbi(f[1:], a[1:], RIGHT)
    st.atomic_swap_nbi(f[2:], a[2:], 100 + ME, RIGHT)
    shoal.quiet()
    assert f.tolist() == [10, 10, 10]
    shoal.barrier_all()
    assert a[:3].tolist() == [10 + LEFT + 1, 11, 100 + LEFT]    # written by LEFT
    want = torch.tensor([10 + LEFT + 1, 11, 100 + LEFT, 10], dtype=torch.int64)
    st.wait_until_all_vector(a, shoal.CMP_EQ, want)
    assert st.test_all_vector(a, shoal.CMP_EQ, want)
    assert st.test_any(a[2:], shoal.CMP_GE, 100) == 0
    assert list(st.test_some(a, shoal.CMP_EQ, 10)) == [3]
    shoal.barrier_all()
    st.free(a)
