"""Team collectives on every dtype their tables allow; results checked on every PE."""
import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RMA, MINMAX, ARITH, BITWISE_REDUCE, ids

DATA = RMA + [np.complex128]


@pytest.mark.parametrize("dtype", DATA, ids=ids(DATA))
def test_broadcast_fcollect_alltoall(dtype):
    n = 3
    src = shoal.array((np.arange(n * NPES) + 10 * ME) % 100, dtype=dtype)
    dst = shoal.zeros(n * NPES, dtype)
    root = NPES - 1
    shoal.broadcast(dst, src, root)
    np.testing.assert_array_equal(dst, ((np.arange(n * NPES) + 10 * root) % 100).astype(dtype))
    shoal.barrier_all()  # dst is reused: every PE must be done reading it (as in C)
    small = shoal.full(n, ME + 1, dtype)
    shoal.fcollect(dst, small)
    np.testing.assert_array_equal(dst, np.repeat(np.arange(NPES) + 1, n).astype(dtype))
    shoal.barrier_all()
    shoal.alltoall(dst, src)
    expect = np.concatenate([((np.arange(n * NPES) + 10 * j) % 100)[ME * n:(ME + 1) * n]
                             for j in range(NPES)]).astype(dtype)
    np.testing.assert_array_equal(dst, expect)
    for x in (small, dst, src):
        shoal.free(x)


def test_collect_variable_sizes():
    src = shoal.full(NPES, ME, np.int32)           # each PE sends ME+1 of them
    total = NPES * (NPES + 1) // 2
    dst = shoal.zeros(total, np.int32)
    shoal.collect(dst, src[:ME + 1] if ME + 1 <= NPES else src)
    np.testing.assert_array_equal(dst, np.repeat(np.arange(NPES), np.arange(NPES) + 1))
    shoal.free(dst)
    shoal.free(src)


def test_alltoalls():
    src = shoal.array(np.arange(2 * NPES * 2) + 100 * ME, dtype=np.int64)
    dst = shoal.zeros(2 * NPES * 2, np.int64)
    shoal.alltoalls(dst, src, 2, 2, 1)              # every other element
    expect = [100 * j + 2 * ME for j in range(NPES)]
    np.testing.assert_array_equal(dst[::2][:NPES], expect)
    shoal.free(dst)
    shoal.free(src)


def expected(op, dtype, vals):
    acc = np.array(vals[0], dtype)
    for v in vals[1:]:
        v = np.array(v, dtype)
        acc = {"sum": lambda a, b: a + b, "prod": lambda a, b: a * b, "max": np.maximum,
               "min": np.minimum, "and": np.bitwise_and, "or": np.bitwise_or,
               "xor": np.bitwise_xor}[op](acc, v).astype(dtype)
    return acc


def contributions(dtype, k):
    return [np.array([(pe % 3) + 1 + k, pe + 2 * k + 1], dtype=dtype) for pe in range(NPES)]


@pytest.mark.parametrize("op,dtypes", [("sum", ARITH), ("prod", ARITH), ("max", MINMAX),
                                       ("min", MINMAX), ("and", BITWISE_REDUCE), ("or", BITWISE_REDUCE),
                                       ("xor", BITWISE_REDUCE)])
def test_reduce_every_dtype(op, dtypes):
    for dtype in dtypes:
        vals = contributions(dtype, 1)
        src = shoal.array(vals[ME], dtype=dtype)
        dst = shoal.zeros(2, dtype)
        shoal.reduce(dst, src, op)
        exp = np.stack([expected(op, dtype, [v[i] for v in vals]) for i in range(2)])
        np.testing.assert_array_equal(dst, exp, err_msg=f"{op} {np.dtype(dtype)}")
        shoal.barrier_all()
        shoal.allreduce(src, op)                    # in place
        np.testing.assert_array_equal(src, exp)
        shoal.free(dst)
        shoal.free(src)


@pytest.mark.parametrize("dtype", ARITH, ids=ids(ARITH))
def test_scans(dtype):
    src = shoal.full(3, ME + 1, dtype)
    inc = shoal.zeros(3, dtype)
    exc = shoal.zeros(3, dtype)
    shoal.inscan(inc, src)
    shoal.exscan(exc, src)
    assert (inc == (ME + 1) * (ME + 2) // 2).all()
    if ME > 0:
        assert (exc == ME * (ME + 1) // 2).all()
    for x in (exc, inc, src):
        shoal.free(x)


def test_bad_op_and_dtype_for_op():
    a = shoal.zeros(2, np.float64)
    with pytest.raises(ValueError, match="not one of"):
        shoal.reduce(a, a, "mean")
    with pytest.raises(TypeError, match="bitwise reduction"):
        shoal.reduce(a, a, "xor")
    shoal.free(a)


def test_signed_long_long_has_no_bitwise_reduction():
    a = shoal.zeros(2, np.longlong)
    with pytest.raises(TypeError, match="bitwise reduction"):
        shoal.reduce(a, a, "and")
    shoal.free(a)


def test_reduce_avg_and_reduce_op():
    """shoal.reduce takes op="avg" (floating point: the sum over the team's
    size) and torch.distributed.ReduceOp members where torch is present."""
    src = shoal.array([float(ME + 1), 2.0 * ME])
    dst = shoal.zeros(2)
    shoal.reduce(dst, src, "avg")
    n = shoal.n_pes()
    np.testing.assert_allclose(dst, [(n + 1) / 2.0, n - 1.0])
    shoal.barrier_all()
    with pytest.raises(TypeError, match="shoal.reduce: op avg needs a floating-point"):
        ints = shoal.zeros(2, np.int64)
        try:
            shoal.reduce(ints, ints, op="avg")
        finally:
            shoal.free(ints)
    with pytest.raises(ValueError, match="op 'mean' is not one of"):
        shoal.reduce(dst, src, op="mean")
    torch = pytest.importorskip("torch")
    from torch.distributed import ReduceOp
    shoal.reduce(dst, src, ReduceOp.MAX)
    np.testing.assert_array_equal(dst, [float(n), 2.0 * (n - 1)])
    shoal.barrier_all()
    shoal.reduce(dest=dst, source=src, op=ReduceOp.SUM)
    np.testing.assert_array_equal(dst, [n * (n + 1) / 2.0, float(n * (n - 1))])
    shoal.barrier_all()
    shoal.free(dst)
    shoal.free(src)
    assert torch is not None
