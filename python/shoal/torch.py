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

__all__ = ["empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
           "free", "numpy_of", "register", "unregister"]

# Half types: NumPy has float16 but no bfloat16, so a bfloat16 tensor's memory
# is a symmetric int16 array seen through Tensor.view(torch.bfloat16).
_STORAGE = {_torch.bfloat16: np.int16}
_HALF = (_torch.bfloat16, _torch.float16)


def _check_device(device):
    dev = _torch.device(device if device is not None else "cpu")
    if dev.type != "cpu":
        raise ValueError(f"shoal.torch: device {dev} is not supported yet; only 'cpu' "
                         "(GPU tensors come with Shoal's device heap)")
    return dev


def _np_dtype(dtype):
    if dtype in _STORAGE:
        return np.dtype(_STORAGE[dtype])
    return _torch.empty(0, dtype=dtype).numpy().dtype


def _shape(size, fn):
    """torch's shape forms: zeros(2, 3), zeros((2, 3)), zeros([2, 3]), zeros(torch.Size)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, _torch.Size)):
        size = tuple(size[0])
    try:
        return tuple(int(n) for n in size)
    except TypeError:
        raise TypeError(f"shoal.torch.{fn}: the shape must be integers, as zeros(2, 3) or "
                        f"zeros((2, 3)), not {size!r}") from None


def _fill_value(value, dtype):
    """The value to fill the storage array with: for bfloat16 its bit pattern."""
    if value is None or dtype not in _STORAGE:
        return value
    return _torch.tensor(value, dtype=dtype).view(_torch.int16).item()


def _make(kind, shape, dtype, device, requires_grad, value=None):
    _check_device(device)
    dtype = _torch.float32 if dtype is None else dtype
    nd = _np_dtype(dtype)
    if kind == "empty":
        a = _shoal.empty(shape, nd)
    else:
        a = _shoal.full(shape, _fill_value(value, dtype), nd)
    t = _torch.from_numpy(a)   # shares memory with the symmetric array
    t._shoal_array = a         # keeps the owner alive with the tensor; views' _base is t
    if dtype in _STORAGE:
        t = t.view(dtype)
        t._shoal_array = a
    if requires_grad:
        t.requires_grad_(True)
    return t


def empty(*size, dtype=_torch.float32, device="cpu", requires_grad=False):
    """A symmetric tensor, uninitialized (collective): empty(2, 3) or empty((2, 3))."""
    return _make("empty", _shape(size, "empty"), dtype, device, requires_grad)


def zeros(*size, dtype=_torch.float32, device="cpu", requires_grad=False):
    """A symmetric tensor of zeros (collective): zeros(2, 3) or zeros((2, 3))."""
    return _make("full", _shape(size, "zeros"), dtype, device, requires_grad, 0)


def ones(*size, dtype=_torch.float32, device="cpu", requires_grad=False):
    """A symmetric tensor of ones (collective): ones(2, 3) or ones((2, 3))."""
    return _make("full", _shape(size, "ones"), dtype, device, requires_grad, 1)


def full(size, fill_value, dtype=_torch.float32, device="cpu", requires_grad=False):
    """A symmetric tensor filled with fill_value (collective)."""
    return _make("full", _shape((size,), "full"), dtype, device, requires_grad, fill_value)


def _like(t, dtype, device, fn):
    if not isinstance(t, _torch.Tensor):
        raise TypeError(f"shoal.torch.{fn}: expected a tensor, not {type(t).__name__}")
    return tuple(t.shape), t.dtype if dtype is None else dtype, t.device if device is None else device


def empty_like(t, dtype=None, device=None, requires_grad=False):
    """A symmetric tensor of t's shape (and dtype, unless given), uninitialized."""
    shape, dtype, device = _like(t, dtype, device, "empty_like")
    return _make("empty", shape, dtype, device, requires_grad)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    """A symmetric tensor of zeros of t's shape and dtype (collective)."""
    shape, dtype, device = _like(t, dtype, device, "zeros_like")
    return _make("full", shape, dtype, device, requires_grad, 0)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    """A symmetric tensor of ones of t's shape and dtype (collective)."""
    shape, dtype, device = _like(t, dtype, device, "ones_like")
    return _make("full", shape, dtype, device, requires_grad, 1)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    """A symmetric tensor of t's shape and dtype filled with fill_value."""
    shape, dtype, device = _like(t, dtype, device, "full_like")
    return _make("full", shape, dtype, device, requires_grad, fill_value)


def numpy_of(x):
    """The NumPy array a tensor shares memory with (tensors pass through
    ``Tensor.numpy()``, zero-copy; a bfloat16 tensor, which NumPy has no dtype
    for, as its int16 bits); anything else is returned unchanged."""
    if isinstance(x, _torch.Tensor):
        if x.device.type != "cpu":
            raise ValueError(f"shoal.torch: tensors on {x.device} are not supported yet")
        owner = getattr(x, "_shoal_array", None)
        if owner is None and x._base is not None:
            owner = getattr(x._base, "_shoal_array", None)
        if owner is not None and getattr(owner.base, "freed", False):
            raise _shoal.Error("shoal.torch: this tensor was freed (by shoal.torch.free); its "
                               "memory may belong to another tensor now")
        if x.requires_grad:
            x = x.detach()
        if x.dtype in _STORAGE:
            x = x.view(_torch.int16)
        return x.numpy()
    return x


def free(t):
    """Release a symmetric tensor's memory (collective); t must be a tensor
    made by this module (not a view of one)."""
    a = getattr(t, "_shoal_array", None)
    if a is None:
        raise ValueError("shoal.torch.free: the tensor was not made by shoal.torch.empty, "
                         "zeros, ones, full or a *_like")
    _shoal.free(a)


def register(t):
    """Make the CPU tensor ``t``'s own memory symmetric (collective: every PE
    passes a contiguous tensor of the same size in bytes); returns a tensor
    sharing that memory, which every routine here accepts, until
    :func:`unregister`. ``t`` keeps working and its memory keeps its address
    (see shoal.register and docs/python.md, "Registering arrays")."""
    if not isinstance(t, _torch.Tensor):
        raise TypeError(f"shoal.torch.register: expected a tensor, not {type(t).__name__}")
    _check_device(t.device)
    if not t.is_contiguous():
        raise ValueError("shoal.torch.register: the tensor must be contiguous (pass "
                         "t.contiguous(), the same size on every PE)")
    v = _shoal.register(numpy_of(t))
    r = _torch.from_numpy(v)
    if t.dtype in _STORAGE:
        r = r.view(t.dtype)
    r._shoal_array = v         # the registration's view, for unregister
    return r


def unregister(t):
    """End the registration of ``t``, a tensor :func:`register` returned
    (collective). The memory stays the tensor's; routines that need symmetric
    memory raise ``shoal.Error`` on it afterwards."""
    a = getattr(t, "_shoal_array", None)
    if a is None:
        raise ValueError("shoal.torch.unregister: the tensor was not returned by "
                         "shoal.torch.register")
    _shoal.unregister(a)


def _tensor_form(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        return fn(*[numpy_of(a) for a in args], **{k: numpy_of(v) for k, v in kwargs.items()})
    call.__doc__ = f"{fn.__doc__}\n\nTensor form: tensors are passed as their NumPy arrays."
    return call


# Every shoal routine that takes arrays (tests/python/test_torch.py checks none is missing).
for _name in ("put", "get", "put_nbi", "get_nbi", "p", "g", "put_signal", "put_signal_nbi",
              "signal_fetch", "signal_wait_until", "wait_until", "wait_until_all",
              "wait_until_any", "wait_until_some", "wait_until_all_vector",
              "wait_until_any_vector", "wait_until_some_vector", "test", "test_all", "test_any",
              "test_some", "test_all_vector", "test_any_vector", "test_some_vector",
              "broadcast", "collect", "fcollect",
              "alltoall", "alltoalls", "inscan", "exscan", "peer", "is_symmetric",
              "atomic_fetch", "atomic_set", "atomic_swap", "atomic_compare_swap",
              "atomic_fetch_inc", "atomic_inc", "atomic_fetch_add", "atomic_add",
              "atomic_fetch_and", "atomic_and", "atomic_fetch_or", "atomic_or",
              "atomic_fetch_xor", "atomic_xor", "atomic_fetch_nbi", "atomic_swap_nbi",
              "atomic_compare_swap_nbi", "atomic_fetch_inc_nbi", "atomic_fetch_add_nbi",
              "atomic_fetch_and_nbi", "atomic_fetch_or_nbi", "atomic_fetch_xor_nbi"):
    globals()[_name] = _tensor_form(getattr(_shoal, _name))
    __all__.append(_name)

_COMBINE = {"sum": _torch.Tensor.add_, "prod": _torch.Tensor.mul_,
            "min": lambda a, b: _torch.minimum(a, b, out=a),
            "max": lambda a, b: _torch.maximum(a, b, out=a)}


def _half_reduce(dest, source, op, team, fn):
    """dest = source reduced over team, for bfloat16 and float16 tensors.

    OpenSHMEM has no half types, and NumPy no bfloat16 dtype for the
    extension's dtype dispatch to key on, so this is done here: every member
    reads every member's source (get, in team order), combines in float32
    (exact for min and max; sum and prod rounded once, at the end) and writes
    its dest after a team sync, so dest may be source. Every PE combines in
    the same order: the results are identical on every PE."""
    if op not in _COMBINE:
        raise ValueError(f"{fn}: op {op!r} is not defined on {source.dtype}; use sum, prod, "
                         "min, max or avg")
    if dest.dtype != source.dtype or dest.shape != source.shape:
        raise ValueError(f"{fn}: dest and source differ ({dest.dtype} {tuple(dest.shape)} vs "
                         f"{source.dtype} {tuple(source.shape)})")
    if not source.is_contiguous():
        raise ValueError(f"{fn}: source must be contiguous")
    team = _shoal.TEAM_WORLD if team is None else team
    src = numpy_of(source)
    buf = np.empty_like(src)
    me = _shoal.my_pe()
    _shoal.quiet()
    _shoal.sync(team)                  # every member's source is ready
    acc = None
    for i in range(team.n_pes()):
        pe = team.translate_pe(i, _shoal.TEAM_WORLD)
        if pe == me:
            part = src
        else:
            _shoal.get(buf, src, pe)
            part = buf
        v = _torch.from_numpy(part)
        v = (v.view(source.dtype) if source.dtype in _STORAGE else v).float()
        acc = v.clone() if acc is None else _COMBINE[op](acc, v)
    _shoal.sync(team)                  # every member has read every source
    assert acc is not None             # a team has at least this PE
    with _torch.no_grad():
        dest.copy_(acc.view(dest.shape))
    return dest


def reduce(dest, source, op, team=None):
    """Tensor form of shoal.reduce: op is a name ("sum", "min", "max", "prod",
    "and", "or", "xor", "avg") or a torch.distributed.ReduceOp member;
    bfloat16 and float16 tensors take sum, prod, min, max and avg."""
    op = _shoal._op_name(op, "shoal.torch.reduce")
    avg = op == "avg"
    if avg:
        if not source.is_floating_point():
            raise TypeError(f"shoal.torch.reduce: op avg needs a floating-point tensor, not "
                            f"{source.dtype}")
        op = "sum"
    if source.dtype in _HALF:
        _half_reduce(dest, source, op, team, "shoal.torch.reduce")
    else:
        _shoal.reduce(numpy_of(dest), numpy_of(source), op, team)
    if avg:
        n = (_shoal.TEAM_WORLD if team is None else team).n_pes()
        with _torch.no_grad():
            dest.div_(n)
    return None


def allreduce(t, op="sum", team=None):
    """Reduce the symmetric tensor ``t`` in place over the team; returns t.
    op as for reduce (names, "avg", torch.distributed.ReduceOp members)."""
    reduce(t, t, op, team)
    return t


__all__ += ["reduce", "allreduce"]
del _name
