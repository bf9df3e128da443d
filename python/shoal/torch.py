"""PyTorch tensors on symmetric memory.

``shoal.torch.empty/zeros/ones/full(shape, dtype=torch.float32, device="cpu")``
make CPU tensors that share memory (zero-copy) with a symmetric NumPy array,
so every shoal operation works on them; the functions here accept tensors
wherever shoal takes arrays (``put``, ``get``, ``reduce``, ``allreduce``,
``broadcast``, ``fcollect``, ``alltoall``, the atomics, ...).

``device=`` is part of every signature so GPU tensors can fit later: today
only ``"cpu"`` is accepted (a ``ValueError`` names anything else). GPU
support would allocate from a device symmetric heap and exchange through
DLPack / ``__cuda_array_interface__`` with stream-ordered operations, behind
the same calls.
"""
import functools

import numpy as np
import torch as _torch

import shoal as _shoal

__all__ = ["empty", "zeros", "ones", "full", "free", "numpy_of"]


def _check_device(device):
    dev = _torch.device(device)
    if dev.type != "cpu":
        raise ValueError(f"shoal.torch: device {dev} is not supported yet; only 'cpu' "
                         "(GPU tensors come with Shoal's device heap)")
    return dev


def _np_dtype(dtype):
    return _torch.empty(0, dtype=dtype).numpy().dtype


def _wrap(a):
    t = _torch.from_numpy(a)   # shares memory with the symmetric array
    t._shoal_array = a         # keeps the owner alive with the tensor
    return t


def empty(shape, dtype=_torch.float32, device="cpu"):
    """A symmetric tensor, uninitialized (collective)."""
    _check_device(device)
    return _wrap(_shoal.empty(shape, _np_dtype(dtype)))


def zeros(shape, dtype=_torch.float32, device="cpu"):
    """A symmetric tensor of zeros (collective)."""
    _check_device(device)
    return _wrap(_shoal.zeros(shape, _np_dtype(dtype)))


def ones(shape, dtype=_torch.float32, device="cpu"):
    """A symmetric tensor of ones (collective)."""
    _check_device(device)
    return _wrap(_shoal.ones(shape, _np_dtype(dtype)))


def full(shape, fill_value, dtype=_torch.float32, device="cpu"):
    """A symmetric tensor filled with fill_value (collective)."""
    _check_device(device)
    return _wrap(_shoal.full(shape, fill_value, _np_dtype(dtype)))


def numpy_of(x):
    """The NumPy array a tensor shares memory with (tensors pass through
    ``Tensor.numpy()``, zero-copy); anything else is returned unchanged."""
    if isinstance(x, _torch.Tensor):
        if x.device.type != "cpu":
            raise ValueError(f"shoal.torch: tensors on {x.device} are not supported yet")
        if x.requires_grad:
            x = x.detach()
        return x.numpy()
    return x


def free(t):
    """Release a symmetric tensor's memory (collective); t must be a tensor
    made by this module (not a view of one)."""
    a = getattr(t, "_shoal_array", None)
    if a is None:
        raise ValueError("shoal.torch.free: the tensor was not made by shoal.torch.empty, "
                         "zeros, ones or full")
    _shoal.free(a)


def _tensor_form(fn):
    @functools.wraps(fn)
    def call(*args):
        return fn(*[numpy_of(a) for a in args])
    call.__doc__ = f"{fn.__doc__}\n\nTensor form: tensors are passed as their NumPy arrays."
    return call


# Every shoal routine that takes arrays (tests/python/test_torch.py checks none is missing).
for _name in ("put", "get", "put_nbi", "get_nbi", "p", "g", "put_signal", "put_signal_nbi",
              "signal_fetch", "signal_wait_until", "wait_until", "wait_until_all",
              "wait_until_any", "wait_until_some", "wait_until_all_vector",
              "wait_until_any_vector", "wait_until_some_vector", "test", "test_all", "test_any",
              "test_some", "test_all_vector", "test_any_vector", "test_some_vector",
              "broadcast", "collect", "fcollect",
              "alltoall", "alltoalls", "reduce", "inscan", "exscan", "peer", "is_symmetric",
              "atomic_fetch", "atomic_set", "atomic_swap", "atomic_compare_swap",
              "atomic_fetch_inc", "atomic_inc", "atomic_fetch_add", "atomic_add",
              "atomic_fetch_and", "atomic_and", "atomic_fetch_or", "atomic_or",
              "atomic_fetch_xor", "atomic_xor", "atomic_fetch_nbi", "atomic_swap_nbi",
              "atomic_compare_swap_nbi", "atomic_fetch_inc_nbi", "atomic_fetch_add_nbi",
              "atomic_fetch_and_nbi", "atomic_fetch_or_nbi", "atomic_fetch_xor_nbi"):
    globals()[_name] = _tensor_form(getattr(_shoal, _name))
    __all__.append(_name)


def allreduce(t, op="sum", team=None):
    """Reduce the symmetric tensor ``t`` in place over the team; returns t."""
    a = numpy_of(t)
    _shoal.reduce(a, a, op, team)
    return t


__all__.append("allreduce")
del _name
