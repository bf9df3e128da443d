"""Symmetric arrays' memory: dropped arrays given back where every PE agrees,
freed arrays refused, empty and partial views, allocation mismatches.
(The long drop loop runs as progs/drop_loop.py; see CMakeLists.txt.)"""
import gc

import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RIGHT, multi_pe


def test_put_through_a_freed_array_raises():
    a = shoal.zeros(8, np.int64)
    view = a[2:]
    shoal.free(a)
    with pytest.raises(shoal.Error, match="shoal.put: dest: this array was freed"):
        shoal.put(a, np.ones(8, np.int64), RIGHT)
    with pytest.raises(shoal.Error, match="this array was freed"):
        shoal.p(view, 1, RIGHT)  # a view of a freed array too
    with pytest.raises(shoal.Error, match="this array was freed"):
        shoal.g(a, RIGHT)
    with pytest.raises(shoal.Error, match="this array was freed"):
        shoal.atomic_fetch(a, RIGHT)
    with pytest.raises(shoal.Error, match="this array was freed"):
        shoal.is_symmetric(view)
    with pytest.raises(ValueError, match="already freed"):
        shoal.free(a)


def test_a_freed_array_as_the_local_side_raises():
    a = shoal.zeros(4, np.int64)
    b = shoal.zeros(4, np.int64)
    shoal.free(b)
    with pytest.raises(shoal.Error, match="shoal.put: source: this array was freed"):
        shoal.put(a, b, RIGHT)
    with pytest.raises(shoal.Error, match="shoal.get: dest: this array was freed"):
        shoal.get(b, a, RIGHT)
    shoal.barrier_all()
    shoal.free(a)


def test_empty_views_have_no_element():
    a = shoal.full(4, 5, np.int64)
    for call in (lambda: shoal.g(a[:0], RIGHT), lambda: shoal.p(a[4:], 1, RIGHT),
                 lambda: shoal.atomic_fetch(a[:0], RIGHT), lambda: shoal.atomic_add(a[:0], 1, RIGHT)):
        with pytest.raises(ValueError, match="is empty"):
            call()
    shoal.put(a[:0], np.zeros(0, np.int64), RIGHT)  # moving nothing is allowed
    assert shoal.g(a[3:], RIGHT) == 5
    shoal.barrier_all()
    shoal.free(a)


def test_only_the_whole_array_can_be_freed():
    a = shoal.zeros(8)
    for part in (a[2:], a[:0], a[::2], a[:-1]):
        with pytest.raises(ValueError, match="only the whole array can be freed"):
            shoal.free(part)
    a[:] = 1  # still usable
    shoal.free(a.reshape(2, 4))  # a view of all of it is the whole array
    with pytest.raises(shoal.Error, match="this array was freed"):
        shoal.p(a, 1.0, RIGHT)


def test_dropped_arrays_are_given_back_by_the_next_allocation():
    gc.collect()
    shoal.free(shoal.zeros(1))  # gives back anything dropped before this test
    used0 = shoal.heap_info()[1]
    for _ in range(10):
        a = shoal.zeros(1 << 16, np.uint8)
        del a
        assert shoal.kept_bytes() >= 1 << 16  # dropped here, not yet agreed
    b = shoal.zeros(1, np.uint8)  # the PEs agree: the dropped arrays go back
    assert shoal.kept_bytes() == 0
    assert shoal.heap_info()[1] < used0 + (1 << 16)
    shoal.free(b)


def test_array_dropped_on_some_pes_only_is_kept():
    a = shoal.full(1000, 7, np.int8)
    kept = a if ME == 0 else None
    del a
    b = shoal.zeros(1000, np.int8)  # must not reuse a's block: PE 0 still holds it
    c = shoal.zeros(1000, np.int8)
    if ME == 0:
        assert (kept == 7).all()
    else:
        assert shoal.kept_bytes() >= 1000
    shoal.put(b, np.full(1000, 3, np.int8), RIGHT)
    shoal.put(c, np.full(1000, 4, np.int8), RIGHT)
    shoal.barrier_all()
    assert (b == 3).all() and (c == 4).all()
    if ME == 0:
        assert (kept == 7).all()
    del kept
    shoal.free(b)
    shoal.free(c)
    assert shoal.kept_bytes() >= (1000 if NPES > 1 or ME == 0 else 0)
    shoal.free(shoal.zeros(1))  # now dropped everywhere: given back
    assert shoal.kept_bytes() == 0


@multi_pe
def test_allocation_mismatch_raises_on_every_pe():
    n = 10 + (ME == NPES - 1)
    with pytest.raises(shoal.Error, match="shoal.zeros: the PEs asked for different sizes") as e:
        shoal.zeros(n, np.int8)
    assert f"PE {NPES - 1}: 11" in str(e.value) and f"this PE ({ME}) asked for {n} bytes" in str(e.value)
    a = shoal.zeros(4)  # the PEs are still in step
    shoal.free(a)


def test_full_heap_says_what_holds_it():
    a = shoal.zeros(1 << 10, np.uint8)
    with pytest.raises(MemoryError) as e:
        shoal.empty(1 << 46, np.uint8)  # past what the heap may grow to (SHOAL_SYMMETRIC_SIZE_MAX)
    msg = str(e.value)
    assert msg.startswith("shoal.empty: the symmetric heap cannot hold")
    assert "held by" in msg and "shoal.free(a)" in msg and "SHMEM_SYMMETRIC_SIZE" in msg
    shoal.free(a)
