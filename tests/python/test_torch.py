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
