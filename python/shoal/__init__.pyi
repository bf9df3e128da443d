# Type stubs for the shoal package: the C routines (shoal._core, re-exported
# here) and the Python helpers of shoal/__init__.py. The C routines' parameter
# names are the ones they take as keywords.
from types import TracebackType
from typing import Any, Literal, Optional, Tuple, Type, Union

import numpy as np
import numpy.typing as npt

from ._core import *  # noqa: F401,F403
from ._core import Cmp as Cmp
from ._core import Context as Context
from ._core import Error as Error
from ._core import Team as Team
from ._core import TEAM_SHARED as TEAM_SHARED
from ._core import TEAM_WORLD as TEAM_WORLD

__version__: str

_Shape = Union[int, Tuple[int, ...], "list[int]"]
_Array = npt.NDArray[Any]
_Op = Literal["and", "or", "xor", "max", "min", "sum", "prod"]

def empty(shape: _Shape, dtype: npt.DTypeLike = ...) -> _Array: ...
def zeros(shape: _Shape, dtype: npt.DTypeLike = ...) -> _Array: ...
def ones(shape: _Shape, dtype: npt.DTypeLike = ...) -> _Array: ...
def full(shape: _Shape, fill_value: Any, dtype: npt.DTypeLike = None) -> _Array: ...
def array(obj: npt.ArrayLike, dtype: npt.DTypeLike = None) -> _Array: ...
# free(a) and peer(a, pe) are Python wrappers with _core's signatures (above).
def allreduce(a: _Array, op: _Op = "sum", team: Optional[Team] = None) -> _Array: ...

class Lock:
    def __init__(self) -> None: ...
    def acquire(self) -> None: ...
    def release(self) -> None: ...
    def test(self) -> bool: ...
    def free(self) -> None: ...
    def __enter__(self) -> "Lock": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> Literal[False]: ...
