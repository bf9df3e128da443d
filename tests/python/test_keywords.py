"""Every public entry point called with every parameter by keyword, with the
results checked across PEs, and every C entry point's inspect.signature
checked against the type stubs (python/shoal/_core.pyi, __init__.pyi).

Each call goes through kw() or kw_method(), which insist that the keywords
given are exactly the parameters of the routine's signature; the last test
checks that every public routine was called so. Runs under shoalrun through
shoal.pytest_plugin at 1, 2, 4 and 8 PEs (neighbours are the same PE at 1).
"""
import ast
import inspect
import os

import numpy as np
import pytest

import shoal

ME, N = shoal.my_pe(), shoal.n_pes()
RIGHT, LEFT = (ME + 1) % N, (ME - 1) % N
CALLED = set()
STUB_DIR = os.path.join(os.path.dirname(shoal.__file__))


def _check_all_keywords(name, fn, kwargs, skip_self=False):
    params = list(inspect.signature(fn).parameters)
    if skip_self:
        params = params[1:]
    assert sorted(kwargs) == sorted(params), f"{name}: call with every parameter {params}"


def kw(name, **kwargs):
    """shoal.<name>(**kwargs), every parameter given by keyword."""
    fn = getattr(shoal, name)
    _check_all_keywords(name, fn, kwargs)
    CALLED.add(name)
    return fn(**kwargs)


def kw_method(obj, cls, name, **kwargs):
    fn = getattr(cls, name)
    _check_all_keywords(f"{cls.__name__}.{name}", fn, kwargs, skip_self=True)
    CALLED.add(f"{cls.__name__}.{name}")
    return getattr(obj, name)(**kwargs)


def test_register_by_keyword():
    mine = np.zeros(4, np.int64)
    r = kw("register", a=mine)
    kw("put", dest=r, source=np.full(4, ME), pe=RIGHT, ctx=None)
    kw("barrier_all")
    assert list(mine) == [LEFT] * 4
    kw("unregister", a=r)


def test_rma_by_keyword():
    a = kw("zeros", shape=4, dtype=np.int64)
    kw("put", dest=a, source=np.full(4, ME), pe=RIGHT, ctx=None)
    kw("barrier_all")
    assert list(a) == [LEFT] * 4
    b = np.zeros(4, np.int64)
    kw("get", dest=b, source=a, pe=RIGHT, ctx=None)
    assert list(b) == [ME] * 4
    kw("barrier_all")
    kw("put_nbi", dest=a, source=np.arange(4) + 10 * ME, pe=RIGHT, ctx=None)
    kw("quiet", ctx=None)
    kw("barrier_all")
    assert list(a) == list(np.arange(4) + 10 * LEFT)
    kw("get_nbi", dest=b, source=a, pe=LEFT, ctx=None)
    kw("quiet", ctx=None)
    assert list(b) == list(np.arange(4) + 10 * ((LEFT - 1) % N))
    kw("barrier_all")
    kw("p", dest=a[2:], value=100 + ME, pe=RIGHT, ctx=None)
    kw("fence", ctx=None)
    kw("barrier_all")
    assert a[2] == 100 + LEFT
    assert kw("g", source=a[2:], pe=RIGHT, ctx=None) == 100 + ME
    kw("barrier_all")

    sig = shoal.zeros(1, np.uint64)
    kw("put_signal", dest=a, source=np.full(4, 7 + ME), sig_addr=sig, signal=1,
       sig_op=shoal.SIGNAL_SET, pe=RIGHT, ctx=None)
    assert kw("signal_wait_until", sig_addr=sig, cmp=">=", value=1) == 1
    assert list(a) == [7 + LEFT] * 4
    kw("barrier_all")
    kw("put_signal_nbi", dest=a, source=np.full(4, 9 + ME), sig_addr=sig, signal=2,
       sig_op=shoal.SIGNAL_ADD, pe=RIGHT, ctx=None)
    kw("quiet", ctx=None)
    assert shoal.signal_wait_until(sig, shoal.Cmp.EQ, 3) == 3
    assert kw("signal_fetch", sig_addr=sig) == 3
    assert list(a) == [9 + LEFT] * 4
    kw("barrier_all")
    kw("free", a=sig)
    kw("free", a=a)


def test_amo_by_keyword():
    # Only this PE updates its right neighbour's word, so every old value is known.
    w = shoal.zeros(1, np.int64)
    f = np.zeros(1, np.int64)
    d = dict(dest=w, pe=RIGHT, ctx=None)
    kw("atomic_set", value=5, **d)
    assert kw("atomic_fetch", source=w, pe=RIGHT, ctx=None) == 5
    assert kw("atomic_swap", value=6, **d) == 5
    assert kw("atomic_compare_swap", cond=6, value=7, **d) == 6
    assert kw("atomic_fetch_inc", **d) == 7
    kw("atomic_inc", **d)
    assert kw("atomic_fetch_add", value=3, **d) == 9
    kw("atomic_add", value=4, **d)
    assert kw("atomic_fetch_and", value=0xFF, **d) == 16
    kw("atomic_and", value=0x1F, **d)
    assert kw("atomic_fetch_or", value=1, **d) == 16
    kw("atomic_or", value=2, **d)
    assert kw("atomic_fetch_xor", value=1, **d) == 19
    kw("atomic_xor", value=3, **d)
    nbi = [("atomic_fetch_nbi", dict(source=w, pe=RIGHT, ctx=None), 17),
           ("atomic_swap_nbi", dict(value=20, **d), 17),
           ("atomic_compare_swap_nbi", dict(cond=20, value=21, **d), 20),
           ("atomic_fetch_inc_nbi", d, 21),
           ("atomic_fetch_add_nbi", dict(value=2, **d), 22),
           ("atomic_fetch_and_nbi", dict(value=0xFF, **d), 24),
           ("atomic_fetch_or_nbi", dict(value=1, **d), 24),
           ("atomic_fetch_xor_nbi", dict(value=1, **d), 25)]
    for name, args, old in nbi:
        kw(name, fetch=f, **args)
        shoal.quiet()
        assert f[0] == old, name
    shoal.barrier_all()
    assert w[0] == 24   # written by the left neighbour, the same way
    shoal.free(w)


def test_waits_and_locks_by_keyword():
    iv = shoal.zeros(4, np.int32)
    shoal.put(iv, np.ones(4, np.int32), RIGHT)
    shoal.quiet()
    ones = np.ones(4, np.int32)
    kw("wait_until", ivar=iv, cmp="==", value=1)
    kw("wait_until_all", ivars=iv, cmp=shoal.Cmp.EQ, value=1, status=None)
    assert kw("wait_until_any", ivars=iv, cmp="eq", value=1, status=[1, 0, 1, 1]) == 1
    assert list(kw("wait_until_some", ivars=iv, cmp=shoal.CMP_EQ, value=1,
                   status=[0, 0, 0, 0])) == [0, 1, 2, 3]
    kw("wait_until_all_vector", ivars=iv, cmp="==", values=ones, status=None)
    assert kw("wait_until_any_vector", ivars=iv, cmp="ge", values=ones,
              status=[1, 1, 0, 1]) == 2
    assert list(kw("wait_until_some_vector", ivars=iv, cmp="<=", values=ones,
                   status=None)) == [0, 1, 2, 3]
    assert kw("test", ivar=iv, cmp="!=", value=0) is True
    assert kw("test_all", ivars=iv, cmp=">", value=0, status=None) is True
    assert kw("test_any", ivars=iv, cmp="<", value=1, status=None) is None
    assert list(kw("test_some", ivars=iv, cmp="ne", value=1, status=None)) == []
    assert kw("test_all_vector", ivars=iv, cmp="lt", values=ones + 1, status=None) is True
    assert kw("test_any_vector", ivars=iv, cmp="gt", values=ones - [1, 1, 1, 0],
              status=[0, 0, 1, 0]) == 0
    assert list(kw("test_some_vector", ivars=iv, cmp=shoal.Cmp.NE, values=ones - [1, 0, 1, 0],
                   status=None)) == [0, 2]
    shoal.barrier_all()
    shoal.free(iv)

    # A counter on PE 0 updated with get-then-put under the lock: no update is lost.
    lock = shoal.zeros(1, np.int64)
    count = shoal.zeros(1, np.int64)
    kw("set_lock", lock=lock)
    shoal.p(count, shoal.g(count, 0) + 1, 0)
    shoal.quiet()
    kw("clear_lock", lock=lock)
    while not kw("test_lock", lock=lock):
        pass
    shoal.p(count, shoal.g(count, 0) + 1, 0)
    shoal.quiet()
    shoal.clear_lock(lock)
    shoal.barrier_all()
    assert shoal.g(count, 0) == 2 * N
    shoal.barrier_all()
    shoal.free(count)
    shoal.free(lock)


def test_lock_class():
    lock = shoal.Lock()
    with lock:
        pass
    kw_method(lock, shoal.Lock, "acquire")
    kw_method(lock, shoal.Lock, "release")
    while not kw_method(lock, shoal.Lock, "test"):
        pass
    lock.release()
    shoal.barrier_all()
    kw_method(lock, shoal.Lock, "free")


def test_collectives_by_keyword():
    T = shoal.TEAM_WORLD
    src = kw("full", shape=4, fill_value=ME, dtype=np.int64)
    dst = shoal.zeros(4 * N, np.int64)
    kw("broadcast", dest=dst[:4], source=src, root=N - 1, team=T)
    assert list(dst[:4]) == [N - 1] * 4
    shoal.barrier_all()   # every dest ready before the next collective writes it
    kw("fcollect", dest=dst, source=src, team=None)
    assert list(dst) == [pe for pe in range(N) for _ in range(4)]
    shoal.barrier_all()
    kw("collect", dest=dst, source=src, team=T)
    assert list(dst) == [pe for pe in range(N) for _ in range(4)]
    a2a = shoal.array([ME * 100 + j for j in range(N)], np.int64)
    out = shoal.zeros(N, np.int64)
    kw("alltoall", dest=out, source=a2a, team=None)
    assert list(out) == [pe * 100 + ME for pe in range(N)]
    shoal.barrier_all()
    kw("alltoalls", dest=out, source=a2a, dst=1, sst=1, nelems=1, team=T)
    assert list(out) == [pe * 100 + ME for pe in range(N)]
    r = shoal.zeros(4, np.int64)
    kw("reduce", dest=r, source=src, op="max", team=T)
    assert list(r) == [N - 1] * 4
    shoal.barrier_all()   # every dest ready before the next collective writes it
    kw("inscan", dest=r, source=src, team=None)
    assert list(r) == [ME * (ME + 1) // 2] * 4
    shoal.barrier_all()   # every dest ready before the next collective writes it
    kw("exscan", dest=r, source=src, team=T)
    if ME > 0:   # PE 0's exscan result is undefined
        assert list(r) == [(ME - 1) * ME // 2] * 4
    s = shoal.ones(shape=(2,), dtype=np.float64)
    assert kw("allreduce", a=s, op="sum", team=None) is s
    assert list(s) == [float(N)] * 2
    kw("sync", team=T)
    kw("sync_all")
    kw("barrier_all")
    for x in (src, dst, a2a, out, r, s):
        shoal.free(x)


def test_teams_and_contexts_by_keyword():
    W = shoal.TEAM_WORLD
    assert kw_method(W, shoal.Team, "my_pe") == ME
    assert kw_method(W, shoal.Team, "n_pes") == N
    t = kw_method(W, shoal.Team, "split_strided", start=0, stride=1, size=N, num_contexts=1)
    assert t.n_pes() == N
    assert kw_method(t, shoal.Team, "translate_pe", pe=ME, dest_team=W) == ME
    assert kw_method(t, shoal.Team, "get_config")["num_contexts"] == 1
    x, y = kw_method(W, shoal.Team, "split_2d", xrange=N)
    assert x.n_pes() == N and y.n_pes() == 1
    a = shoal.zeros(1, np.int64)
    ctx = kw_method(t, shoal.Team, "create_ctx", options=0)
    assert ctx.team is t
    shoal.put(a, [ME], pe=RIGHT, ctx=ctx)
    kw_method(ctx, shoal.Context, "fence")
    kw_method(ctx, shoal.Context, "quiet")
    kw_method(ctx, shoal.Context, "destroy")
    c2 = kw("ctx_create", options=shoal.CTX_PRIVATE)
    assert c2.team is W
    shoal.barrier_all()
    assert a[0] == LEFT
    c2.destroy()
    for team in (y, x, t):
        kw_method(team, shoal.Team, "destroy")
    shoal.barrier_all()
    shoal.free(a)


def test_arrays_and_job_by_keyword():
    e = kw("empty", shape=(2, 3), dtype=np.float32)
    assert e.shape == (2, 3) and e.dtype == np.float32
    o = kw("ones", shape=3, dtype=np.int16)
    assert list(o) == [1, 1, 1]
    a = kw("array", obj=[ME, ME + 1], dtype=np.int64)
    assert list(a) == [ME, ME + 1]
    raw = kw("alloc", shape=(2,), dtype=np.int32, fill=4)
    assert list(raw) == [4, 4]
    assert kw("is_symmetric", a=raw) and not shoal.is_symmetric(a=np.zeros(2))
    assert kw("pe_accessible", pe=RIGHT) and not shoal.pe_accessible(pe=N)
    shoal.barrier_all()
    if kw("pe_accessible", pe=RIGHT):
        view = kw("peer", a=a, pe=RIGHT)
        assert list(view) == [RIGHT, RIGHT + 1]
    total, used, largest = kw("heap_info")
    assert 0 < used <= total and largest <= total
    major, minor, name = kw("info")
    assert (major, minor) >= (1, 5) and isinstance(name, str)
    assert kw("my_pe") == ME and kw("n_pes") == N
    assert kw("kept_bytes") >= 0
    # (kw's own first parameter is called name, so these pass theirs in a dict)
    for routine in ("trace_begin", "trace_end", "trace_range"):
        _check_all_keywords(routine, getattr(shoal, routine), {"name": "phase"})
        CALLED.add(routine)
    shoal.trace_begin(**{"name": "phase"})
    shoal.trace_end(**{"name": "phase"})
    with shoal.trace_range(**{"name": "phase"}):
        pass
    with pytest.raises(TypeError, match=r"shoal.global_exit: status must be an integer"):
        kw("global_exit", status="now")
    shoal.barrier_all()
    for x in (raw, a, o, e):
        kw("free", a=x)


def test_argument_errors_name_the_call_and_parameter():
    a = shoal.zeros(2, np.int64)
    with pytest.raises(TypeError, match=r"shoal.put\(\) got an unexpected keyword argument 'pee'"):
        shoal.put(a, a, pee=0)
    with pytest.raises(TypeError, match=r"shoal.put\(\) takes 3 to 4 arguments; 'pe' \(position 3\)"):
        shoal.put(a, source=a)
    with pytest.raises(TypeError, match=r"shoal.put\(\) got multiple values for argument 'dest'"):
        shoal.put(a, a, 0, dest=a)
    with pytest.raises(TypeError, match=r"shoal.quiet\(\) takes 0 to 1 positional arguments"):
        shoal.quiet(None, None)
    with pytest.raises(TypeError, match=r"Team.split_strided\(\) got an unexpected keyword "
                                        r"argument 'sizes'"):
        shoal.TEAM_WORLD.split_strided(start=0, stride=1, sizes=1)
    with pytest.raises(ValueError, match=r"shoal.wait_until: cmp '=>' is not a comparison"):
        shoal.wait_until(a, "=>", 0)
    with pytest.raises(shoal.Error, match=r"shoal.put: dest .* allocate it with shoal.zeros"):
        shoal.put(dest=np.zeros(2, np.int64), source=a, pe=0)
    with pytest.raises(shoal.Error) as err:
        shoal.g(source=np.zeros(1), pe=0)
    assert "shmem_malloc" not in str(err.value) and "global or static" not in str(err.value)
    shoal.barrier_all()
    shoal.free(a)


# ---- signatures against the stubs ------------------------------------------------

def _stub_tree(name):
    with open(os.path.join(STUB_DIR, name)) as f:
        return ast.parse(f.read())


def _stub_params(fn_node):
    """[(name, kind, has_default, default or ...)] of a stub's def."""
    a = fn_node.args
    out = []
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    for i, (arg, d) in enumerate(zip(pos, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, d is not None,
                    d.value if isinstance(d, ast.Constant) else ...))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False, ...))
    return out


def _runtime_params(fn):
    out = []
    for p in inspect.signature(fn).parameters.values():
        has = p.default is not inspect.Parameter.empty
        out.append((p.name, p.kind.name, has, p.default if has else ...))
    return out


def _same(stub, runtime, what):
    assert [s[:3] for s in stub] == [r[:3] for r in runtime], what
    for s, r in zip(stub, runtime):
        if s[2] and s[3] is not ...:
            assert s[3] == r[3], f"{what}: default of {s[0]}"


def _compare_module(tree, module, skip=()):
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name not in skip:
            names.add(node.name)
            _same(_stub_params(node), _runtime_params(getattr(module, node.name)),
                  f"{module.__name__}.{node.name}")
        elif isinstance(node, ast.ClassDef) and node.name in ("Team", "Context", "Lock"):
            cls = getattr(module, node.name)
            for m in node.body:
                if isinstance(m, ast.FunctionDef) and not m.name.startswith("__") and not any(
                        isinstance(d, ast.Name) and d.id == "property" for d in m.decorator_list):
                    names.add(f"{node.name}.{m.name}")
                    _same(_stub_params(m), _runtime_params(getattr(cls, m.name)),
                          f"{node.name}.{m.name}")
    return names


def test_c_signatures_match_the_stubs():
    core = shoal._core
    stubbed = _compare_module(_stub_tree("_core.pyi"), core)
    public = {n for n in dir(core) if not n.startswith("_") and callable(getattr(core, n))
              and inspect.isbuiltin(getattr(core, n))}
    assert public <= stubbed, f"C routines without a stub: {sorted(public - stubbed)}"
    for cls in (shoal.Team, shoal.Context):
        for n, m in vars(cls).items():
            if not n.startswith("__") and callable(m):
                assert f"{cls.__name__}.{n}" in stubbed, f"{cls.__name__}.{n} has no stub"
                assert inspect.signature(m) is not None


def test_python_signatures_match_the_stubs():
    _compare_module(_stub_tree("__init__.pyi"), shoal)


def test_help_shows_the_parameters():
    assert shoal.put.__text_signature__ == "(dest, source, pe, ctx=None)"
    doc = inspect.getdoc(shoal.put)
    assert doc.startswith("Copy source")
    assert str(inspect.signature(shoal.TEAM_WORLD.split_strided)) == \
        "(start, stride, size, num_contexts=None)"


def test_every_public_entry_point_was_called_by_keyword():
    core = shoal._core
    want = {n for n in dir(core) if not n.startswith("_") and inspect.isbuiltin(getattr(core, n))}
    want |= {"empty", "zeros", "ones", "full", "array", "free", "peer", "allreduce", "trace_range"}
    want |= {f"{c.__name__}.{n}" for c in (shoal.Team, shoal.Context, shoal.Lock)
             for n, m in vars(c).items() if not n.startswith("_") and callable(m)}
    missing = want - CALLED
    assert not missing, f"not called by keyword: {sorted(missing)}"
