"""Shoal for Python: OpenSHMEM on NumPy arrays (and PyTorch tensors).

Importing ``shoal`` initializes the library (start the program with
``shoalrun -n 4 /usr/bin/python3 prog.py``, under ``mpirun``, or with the
config-store variables). Every communication routine is a C function of the
extension ``shoal._core``: arguments are parsed and dtypes dispatched in C,
and bad input raises ``TypeError``, ``ValueError`` or ``shoal.Error`` (with
the library's own message) instead of ending the job.

Symmetric arrays come from :func:`empty`, :func:`zeros`, :func:`ones`,
:func:`full` and :func:`array`; they are ordinary ``numpy.ndarray`` objects
whose memory is on the symmetric heap. Creating and freeing them is
collective. See docs/python.md for the whole API and the freeing rule.

>>> import numpy as np, shoal
>>> a = shoal.zeros(4, np.int64)
>>> shoal.put(a, np.arange(4), (shoal.my_pe() + 1) % shoal.n_pes())
>>> shoal.barrier_all()
"""
import contextlib as _contextlib

import numpy as _np

from . import _launch

# `python -m shoal.run` / `python -m shoal`: the launcher process does not
# initialize the library (shoal/_launch.py says how).
_launch.install_placeholder_if_launching(__name__)
from . import _core  # noqa: E402
from ._core import *  # noqa: F401,F403  (the C API: put, get, atomic_*, reduce, ...)
from ._core import Error, Team, Context, TEAM_WORLD, TEAM_SHARED  # noqa: F401

__all__ = [n for n in dir(_core) if not n.startswith("_")] + [
    "empty", "zeros", "ones", "full", "array", "free", "peer", "Lock", "allreduce", "trace_range",
]


def _version():
    """libshoal's version, CMake's project VERSION (recorded in _paths.py by
    the build); from the library's vendor string ("Shoal X.Y.Z") otherwise."""
    try:
        from ._paths import VERSION
        return VERSION
    except ImportError:
        return _core.info()[2].split()[-1]


__version__ = _version()


def empty(shape, dtype=float):
    """A symmetric array, uninitialized. Collective: every PE calls it with
    the same shape and dtype, in the same order as other allocations."""
    return _core.alloc(shape, dtype, None)


def zeros(shape, dtype=float):
    """A symmetric array of zeros. Collective; every PE's copy is zeroed
    before any PE returns, so peers may write into it at once."""
    return _core.alloc(shape, dtype, 0)


def ones(shape, dtype=float):
    """A symmetric array of ones. Collective, like :func:`zeros`."""
    return _core.alloc(shape, dtype, 1)


def full(shape, fill_value, dtype=None):
    """A symmetric array filled with ``fill_value``. Collective."""
    if dtype is None:
        dtype = _np.asarray(fill_value).dtype
    return _core.alloc(shape, dtype, fill_value)


def array(obj, dtype=None):
    """A symmetric copy of ``obj`` (anything ``numpy.asarray`` takes).
    Collective; every PE's copy is written before any PE returns."""
    src = _np.asarray(obj, dtype=dtype)
    a = _core.alloc(src.shape, src.dtype, None)
    a[...] = src
    barrier_all()  # noqa: F405
    return a


def free(a):
    """Release the symmetric array ``a`` at once (collective: every PE frees
    the same arrays in the same order; it starts with a barrier, so no peer
    still uses the memory). ``a`` must be the whole array, not a part of it.
    Afterwards any call on ``a`` or its views raises ``shoal.Error`` ("this
    array was freed").

    An array that is garbage-collected without ``free`` is given back later,
    by the first collective allocation after every PE has dropped it
    (collection happens at different times on different PEs, so it cannot be
    freed then). ``shoal.kept_bytes()`` tells how much this PE has dropped
    that is not given back yet."""
    _core.free(a)


def peer(a, pe):
    """A NumPy view of PE ``pe``'s copy of the symmetric array ``a``, where
    this process maps it (PEs on the same host). Loads and stores on it are
    plain memory accesses; order them with fence/quiet/barriers as usual.
    Raises ``shoal.Error`` when the peer's memory is not mapped here."""
    return _core.peer(a, pe)


_REDUCE_OP_NAMES = {"SUM": "sum", "PRODUCT": "prod", "MIN": "min", "MAX": "max", "BAND": "and",
                    "BOR": "or", "BXOR": "xor", "AVG": "avg"}


def _op_name(op, fn):
    """A reduction op as shoal's name: strings pass through; members of
    torch.distributed.ReduceOp (or its RedOpType) are mapped by equality,
    without torch.distributed being initialised (or imported here first)."""
    if isinstance(op, str):
        return op
    kind = type(op)
    if kind.__name__ in ("ReduceOp", "RedOpType") and kind.__module__.startswith("torch"):
        from torch.distributed import ReduceOp
        for name, ours in _REDUCE_OP_NAMES.items():
            if op == getattr(ReduceOp, name, None):
                return ours
        raise ValueError(f"{fn}: {op!r} has no shoal equivalent (PREMUL_SUM?); use "
                         "SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR or AVG")
    return op


def allreduce(a, op="sum", team=None):
    """Reduce the symmetric array ``a`` in place over ``team`` (default
    TEAM_WORLD); returns ``a``. ``op`` is a name ("sum", "min", ...), "avg"
    for floating-point arrays (the sum divided by the team's size), or a
    ``torch.distributed.ReduceOp`` member."""
    op = _op_name(op, "shoal.allreduce")
    if op == "avg":
        if a.dtype.kind not in "fc":
            raise TypeError(f"shoal.allreduce: op avg needs a floating-point array, not {a.dtype}")
        _core.reduce(a, a, "sum", team)
        a /= (TEAM_WORLD if team is None else team).n_pes()
        return a
    _core.reduce(a, a, op, team)
    return a


class Lock:
    """A distributed lock (an OpenSHMEM lock on a symmetric int64).

    Creating one is collective. Use it as a context manager::

        lock = shoal.Lock()
        with lock:
            ...   # one PE at a time
    """

    def __init__(self):
        self._word = zeros(1, _np.int64)

    def acquire(self):
        """Block until this PE holds the lock."""
        _core.set_lock(self._word)

    def release(self):
        """Release the lock."""
        _core.clear_lock(self._word)

    def test(self):
        """Take the lock if it is free; True if taken (never blocks)."""
        return _core.test_lock(self._word)

    def free(self):
        """Release the lock's memory (collective)."""
        _core.free(self._word)

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False


@_contextlib.contextmanager
def trace_range(name):
    """A user range on this thread's track of the trace (SHOAL_TRACE): the
    ``with`` block shows as one slice called ``name`` around the calls made
    in it (shmemx_trace_begin/end in C). Ranges nest. Nothing is recorded
    when tracing is off.

    >>> with shoal.trace_range("compute"):
    ...     step()
    """
    _core.trace_begin(name)
    try:
        yield
    finally:
        _core.trace_end(name)
