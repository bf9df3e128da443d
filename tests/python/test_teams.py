"""Teams (world, shared, strided and 2-D splits, translate, config) and contexts."""
import numpy as np
import pytest

import shoal
from conftest import ME, NPES, RIGHT, LEFT


def test_world_and_shared():
    assert shoal.TEAM_WORLD.my_pe() == ME and shoal.TEAM_WORLD.n_pes() == NPES
    assert shoal.TEAM_SHARED.n_pes() == NPES                     # one host
    assert shoal.TEAM_WORLD.translate_pe(RIGHT, shoal.TEAM_SHARED) == RIGHT
    assert shoal.TEAM_WORLD.translate_pe(NPES, shoal.TEAM_SHARED) == -1
    with pytest.raises(ValueError):
        shoal.TEAM_WORLD.destroy()


def test_split_strided_even_pes_reduce():
    size = (NPES + 1) // 2
    evens = shoal.TEAM_WORLD.split_strided(0, 2, size, 2)
    if ME % 2:
        assert evens is None
    else:
        assert evens.my_pe() == ME // 2 and evens.n_pes() == size
        assert evens.get_config()["num_contexts"] == 2
        assert evens.translate_pe(evens.my_pe(), shoal.TEAM_WORLD) == ME
    src = shoal.full(2, ME, np.int64)
    dst = shoal.zeros(2, np.int64)
    if evens is not None:
        shoal.reduce(dst, src, "sum", evens)
        assert (dst == sum(range(0, NPES, 2))).all()
        shoal.sync(evens)
        with evens:   # destroyed on exit (collective over the team)
            pass
        with pytest.raises(shoal.Error, match="destroyed"):
            evens.n_pes()
    shoal.barrier_all()
    shoal.free(dst)
    shoal.free(src)


def test_split_2d_rows_and_columns():
    xrange = 2 if NPES >= 2 else 1
    x, y = shoal.TEAM_WORLD.split_2d(xrange)
    assert x.n_pes() == min(xrange, NPES - (ME // xrange) * xrange)
    assert x.my_pe() == ME % xrange and y.my_pe() == ME // xrange
    src = shoal.full(1, ME, np.int32)
    dst = shoal.zeros(1, np.int32)
    shoal.reduce(dst, src, "max", y)          # the largest PE of my column
    col = list(range(ME % xrange, NPES, xrange))
    assert dst[0] == max(col)
    shoal.barrier_all()
    x.destroy()
    y.destroy()
    shoal.free(dst)
    shoal.free(src)


def test_context_put_and_quiet():
    a = shoal.zeros(4, np.int64)
    with shoal.ctx_create() as ctx:
        shoal.put_nbi(a, np.full(4, ME), RIGHT, ctx)
        shoal.atomic_add(a[3:], 10, RIGHT, ctx)
        ctx.quiet()
        assert ctx.team is shoal.TEAM_WORLD
    with pytest.raises(shoal.Error, match="destroyed"):
        shoal.p(a, 1, RIGHT, ctx)
    shoal.barrier_all()
    assert list(a) == [LEFT, LEFT, LEFT, LEFT + 10]
    shoal.barrier_all()
    shoal.free(a)


def test_team_context_uses_team_pe_numbers():
    odds = shoal.TEAM_WORLD.split_strided(1, 2, NPES // 2) if NPES >= 2 else None
    a = shoal.zeros(1, np.int64)
    if odds is not None:
        with odds.create_ctx() as ctx:
            n = odds.n_pes()
            shoal.p(a, ME, (odds.my_pe() + 1) % n, ctx)     # team-relative PE
            ctx.quiet()
            with pytest.raises(shoal.Error, match="out of range for the context's team"):
                shoal.p(a, 1, n, ctx)
    shoal.barrier_all()
    if odds is not None:
        left_in_team = odds.translate_pe((odds.my_pe() - 1) % odds.n_pes(), shoal.TEAM_WORLD)
        assert a[0] == left_in_team
        odds.destroy()
    shoal.barrier_all()
    shoal.free(a)
