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
             "set_lock", "sync", "sync_all", "test_lock", "trace_begin", "trace_end", "trace_range"}


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


# ---- half types, avg, ReduceOp, shapes, *_like ----------------------------------

HALF = [torch.bfloat16, torch.float16]


@pytest.mark.parametrize("dtype", HALF, ids=["bfloat16", "float16"])
def test_half_tensors_allocate_move_and_fill(dtype):
    t = st.full((2, 3), 1.5, dtype=dtype)
    assert t.dtype == dtype and t.shape == (2, 3) and (t == 1.5).all()
    o = st.ones(4, dtype=dtype)
    assert (o == 1).all()
    st.put(t, torch.full((2, 3), ME + 0.25, dtype=dtype), RIGHT)
    shoal.barrier_all()
    assert (t == LEFT + 0.25).all()
    got = torch.empty(2, 3, dtype=dtype)
    st.get(got, t, RIGHT)
    assert (got == ME + 0.25).all()
    shoal.barrier_all()
    st.free(o)
    st.free(t)


@pytest.mark.parametrize("dtype", HALF, ids=["bfloat16", "float16"])
def test_half_reductions(dtype):
    t = st.empty(5, dtype=dtype)
    # bfloat16 holds 8 significant bits: ME + 0.5 and small products are exact.
    src = torch.tensor([ME + 0.5, -ME, 2.0 if ME == 0 else 1.0, ME * 0.125, 1.0], dtype=dtype)
    for op, expect in (("sum", [sum(p + 0.5 for p in range(NPES)), -sum(range(NPES)), NPES + 1,
                                0.125 * sum(range(NPES)), NPES]),
                       ("max", [NPES - 0.5, 0, 2.0, 0.125 * (NPES - 1), 1]),
                       ("min", [0.5, -(NPES - 1), 1.0 if NPES > 1 else 2.0, 0, 1]),
                       ("prod", [None, None, 2.0, None, 1.0])):
        t.copy_(src)
        st.allreduce(t, op)
        for i, e in enumerate(expect):
            if e is not None:
                assert float(t[i]) == e, (op, i, float(t[i]), e)
        shoal.barrier_all()
    # max is exact: the largest input, bit for bit, into another tensor
    src = st.full(1, 1.0 + 2.0 ** -7 * (ME + 1), dtype=dtype)
    out = st.zeros(1, dtype=dtype)
    st.reduce(out, src, "max")
    assert float(out[0]) == 1.0 + 2.0 ** -7 * NPES
    shoal.barrier_all()
    for x in (out, src, t):
        st.free(x)


def test_half_sum_is_accumulated_in_float32():
    # 256 + 1 + 1 ...: in bfloat16 each step would round 257 back to 256; summed in
    # float32 and rounded once, NPES - 1 ones survive when they reach 2 (bf16 spacing at 256).
    t = st.full(1, 256.0 if ME == 0 else 1.0, dtype=torch.bfloat16)
    st.allreduce(t, "sum")
    expect = torch.tensor([256.0 + (NPES - 1)], dtype=torch.float32).to(torch.bfloat16)
    assert float(t[0]) == float(expect[0])
    shoal.barrier_all()
    st.free(t)


def test_avg_and_reduce_op_members():
    import torch.distributed as dist
    t = st.full((3,), float(ME), dtype=torch.float32)
    st.allreduce(t, "avg")
    assert torch.allclose(t, torch.full((3,), (NPES - 1) / 2))
    shoal.barrier_all()
    t.fill_(ME + 1)
    st.allreduce(t, dist.ReduceOp.MAX)
    assert (t == NPES).all()
    shoal.barrier_all()
    t.fill_(ME + 1)
    st.allreduce(t, dist.ReduceOp.SUM)
    assert (t == NPES * (NPES + 1) // 2).all()
    shoal.barrier_all()
    t.fill_(2 * ME)
    st.allreduce(t, dist.ReduceOp.AVG)
    assert torch.allclose(t, torch.full((3,), float(NPES - 1)))
    shoal.barrier_all()
    h = st.full((2,), float(ME), dtype=torch.bfloat16)
    st.allreduce(h, dist.ReduceOp.AVG)
    assert float(h[0]) == float(torch.tensor((NPES - 1) / 2, dtype=torch.bfloat16))
    shoal.barrier_all()
    a = shoal.full(2, ME + 1, np.int64)
    shoal.allreduce(a, dist.ReduceOp.PRODUCT)  # the NumPy helper takes them too
    assert (a == np.prod(np.arange(1, NPES + 1))).all()
    shoal.barrier_all()
    with pytest.raises(TypeError, match="avg needs a floating-point"):
        st.allreduce(torch.zeros(1, dtype=torch.int32), "avg")
    for x in (a,):
        shoal.free(x)
    st.free(h)
    st.free(t)


def test_shapes_like_and_requires_grad():
    a = st.zeros(2, 3)
    b = st.zeros((2, 3), dtype=torch.float64)
    c = st.empty([4])
    assert a.shape == (2, 3) and b.shape == (2, 3) and c.shape == (4,)
    assert a.dtype == torch.float32 and b.dtype == torch.float64
    z = st.zeros_like(b)
    o = st.ones_like(b, dtype=torch.bfloat16)
    e = st.empty_like(a)
    f = st.full_like(a, 7)
    assert z.shape == o.shape == e.shape == f.shape == (2, 3)
    assert (z == 0).all() and z.dtype == torch.float64
    assert (o == 1).all() and o.dtype == torch.bfloat16
    assert (f == 7).all() and f.dtype == torch.float32
    g = st.zeros(3, requires_grad=True)
    assert g.requires_grad and g.is_leaf and shoal.is_symmetric(st.numpy_of(g))
    (g * 2).sum().backward()
    assert (g.grad == 2).all()
    h = st.ones_like(g, requires_grad=True)
    assert h.requires_grad and (h == 1).all()
    shoal.barrier_all()
    for t in (h, g, f, e, o, z, c, b, a):
        st.free(t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["float32", "bfloat16"])
def test_freed_tensor_raises(dtype):
    t = st.zeros(4, dtype=dtype)
    view = t[1:]
    st.free(t)
    with pytest.raises(shoal.Error, match="this tensor was freed"):
        st.put(t, torch.ones(4, dtype=dtype), RIGHT)
    with pytest.raises(shoal.Error, match="this tensor was freed"):
        st.get(torch.empty(3, dtype=dtype), view, RIGHT)
    with pytest.raises(shoal.Error, match="this tensor was freed"):
        st.allreduce(t)
