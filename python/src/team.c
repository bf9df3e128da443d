/*
 * Teams and contexts from Python.
 *
 * shoal.TEAM_WORLD and shoal.TEAM_SHARED are Team objects; split_strided and
 * split_2d (collective over the parent) return new Teams, or None on PEs not
 * in the new team. A Team is a context manager that destroys it on exit; a
 * Team that is garbage-collected without destroy() keeps its slot (destroying
 * is collective). Contexts (shoal.ctx_create, Team.create_ctx) are context
 * managers too: leaving the block quiets and destroys the context. Every
 * RMA/AMO takes an optional ctx, and then its PE number is relative to the
 * context's team.
 */
#include "shoalpy.h"

#include <structmember.h>

PyObject *shoalpy_world, *shoalpy_shared;

/* ---- Team --------------------------------------------------------------------- */

static PyObject *team_new_obj(shmem_team_t t, int predefined)
{
    shoalpy_team_obj_t *o = PyObject_New(shoalpy_team_obj_t, &shoalpy_team_type);
    if (o != NULL) {
        o->team = t;
        o->predefined = predefined;
    }
    return (PyObject *)o;
}

static int team_valid(shoalpy_team_obj_t *t, const char *fn)
{
    if (t->team != SHMEM_TEAM_INVALID)
        return 0;
    PyErr_Format(shoalpy_error, "%s: the team was destroyed", fn);
    return -1;
}

int shoalpy_team_arg(PyObject *o, const char *fn, shmem_team_t *team_p)
{
    if (o == NULL || o == Py_None) {
        *team_p = SHMEM_TEAM_WORLD;
        return 0;
    }
    if (Py_TYPE(o) != &shoalpy_team_type) {
        PyErr_Format(PyExc_TypeError, "%s: team must be a shoal.Team, not %.100s", fn,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    shoalpy_team_obj_t *t = (shoalpy_team_obj_t *)o;
    if (team_valid(t, fn) != 0)
        return -1;
    if (shmem_team_my_pe(t->team) < 0) {
        PyErr_Format(shoalpy_error, "%s: this PE is not a member of the team", fn);
        return -1;
    }
    *team_p = t->team;
    return 0;
}

static PyObject *team_my_pe(shoalpy_team_obj_t *self, PyObject *unused)
{
    if (team_valid(self, "Team.my_pe") != 0)
        return NULL;
    return PyLong_FromLong(shmem_team_my_pe(self->team));
}

static PyObject *team_n_pes(shoalpy_team_obj_t *self, PyObject *unused)
{
    if (team_valid(self, "Team.n_pes") != 0)
        return NULL;
    return PyLong_FromLong(shmem_team_n_pes(self->team));
}

/* translate_pe(pe, dest_team) -> the PE's number in dest_team, or -1. */
static PyObject *team_translate_pe(shoalpy_team_obj_t *self, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "Team.translate_pe", 2, "pe", "dest_team");
    const char *fn = sig.fn;
    long long pe;
    shmem_team_t dest;
    PyObject *a[2];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 || team_valid(self, fn) != 0 ||
        shoalpy_int_arg(a[0], fn, "pe", &pe) != 0)
        return NULL;
    if (Py_TYPE(a[1]) != &shoalpy_team_type) {
        PyErr_Format(PyExc_TypeError, "%s: dest_team must be a shoal.Team, not %.100s", fn,
                     Py_TYPE(a[1])->tp_name);
        return NULL;
    }
    if (team_valid((shoalpy_team_obj_t *)a[1], fn) != 0)
        return NULL;
    dest = ((shoalpy_team_obj_t *)a[1])->team;
    if (pe < 0 || pe >= shmem_team_n_pes(self->team))
        return PyLong_FromLong(-1);
    return PyLong_FromLong(shmem_team_translate_pe(self->team, (int)pe, dest));
}

static int config_arg(PyObject *o, const char *fn, shmem_team_config_t *c, long *mask)
{
    memset(c, 0, sizeof(*c));
    *mask = 0;
    if (o == NULL || o == Py_None)
        return 0;
    long long n;
    if (shoalpy_int_arg(o, fn, "num_contexts", &n) != 0)
        return -1;
    if (n < 0 || n > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: num_contexts must be >= 0", fn);
        return -1;
    }
    c->num_contexts = (int)n;
    *mask = SHMEM_TEAM_NUM_CONTEXTS;
    return 0;
}

/* split_strided(start, stride, size, num_contexts=None) -> Team or None. */
static PyObject *team_split_strided(shoalpy_team_obj_t *self, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "Team.split_strided", 3, "start", "stride", "size", "num_contexts");
    const char *fn = sig.fn;
    long long start, stride, size;
    shmem_team_config_t conf;
    long mask;
    PyObject *a[4];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 || team_valid(self, fn) != 0 ||
        shoalpy_int_arg(a[0], fn, "start", &start) ||
        shoalpy_int_arg(a[1], fn, "stride", &stride) || shoalpy_int_arg(a[2], fn, "size", &size) ||
        config_arg(a[3], fn, &conf, &mask) != 0)
        return NULL;
    const int n = shmem_team_n_pes(self->team);
    if (size < 1 || start < 0 || start >= n || start + (size - 1) * stride < 0 ||
        start + (size - 1) * stride >= n) {
        PyErr_Format(PyExc_ValueError,
                     "%s: start %lld, stride %lld, size %lld does not fit the parent team of %d "
                     "PEs",
                     fn, start, stride, size, n);
        return NULL;
    }
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        shmem_team_split_strided(self->team, (int)start, (int)stride, (int)size, &conf, mask, &t);
    Py_END_ALLOW_THREADS if (rc != 0)
    {
        PyErr_Format(shoalpy_error,
                     "%s: no team slot is free on every parent PE; destroy teams "
                     "or raise SHOAL_TEAMS_MAX",
                     fn);
        return NULL;
    }
    if (t == SHMEM_TEAM_INVALID)
        Py_RETURN_NONE;
    return team_new_obj(t, 0);
}

/* split_2d(xrange) -> (xteam, yteam). */
static PyObject *team_split_2d(shoalpy_team_obj_t *self, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "Team.split_2d", 1, "xrange");
    const char *fn = sig.fn;
    long long xrange;
    shmem_team_config_t xc, yc;
    long xm, ym;
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 || team_valid(self, fn) != 0 ||
        shoalpy_int_arg(a[0], fn, "xrange", &xrange) != 0 || config_arg(NULL, fn, &xc, &xm) ||
        config_arg(NULL, fn, &yc, &ym))
        return NULL;
    if (xrange < 1 || xrange > INT32_MAX) {
        PyErr_Format(PyExc_ValueError, "%s: xrange must be >= 1", fn);
        return NULL;
    }
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc =
        shmem_team_split_2d(self->team, (int)xrange, &xc, xm, &x, &yc, ym, &y);
    Py_END_ALLOW_THREADS if (rc != 0)
    {
        PyErr_Format(shoalpy_error,
                     "%s: no team slot is free on every parent PE; destroy teams "
                     "or raise SHOAL_TEAMS_MAX",
                     fn);
        return NULL;
    }
    PyObject *xo = x == SHMEM_TEAM_INVALID ? (Py_INCREF(Py_None), Py_None) : team_new_obj(x, 0);
    PyObject *yo = y == SHMEM_TEAM_INVALID ? (Py_INCREF(Py_None), Py_None) : team_new_obj(y, 0);
    if (xo == NULL || yo == NULL) {
        Py_XDECREF(xo);
        Py_XDECREF(yo);
        return NULL;
    }
    return Py_BuildValue("(NN)", xo, yo);
}

static PyObject *team_get_config(shoalpy_team_obj_t *self, PyObject *unused)
{
    shmem_team_config_t c;
    if (team_valid(self, "Team.get_config") != 0)
        return NULL;
    if (shmem_team_get_config(self->team, SHMEM_TEAM_NUM_CONTEXTS, &c) != 0) {
        PyErr_SetString(shoalpy_error, "Team.get_config failed");
        return NULL;
    }
    return Py_BuildValue("{s:i}", "num_contexts", c.num_contexts);
}

static PyObject *team_destroy(shoalpy_team_obj_t *self, PyObject *unused)
{
    shmemx_trace_caller("Team.destroy");
    if (self->predefined) {
        PyErr_SetString(PyExc_ValueError, "Team.destroy: TEAM_WORLD and TEAM_SHARED are never "
                                          "destroyed");
        return NULL;
    }
    if (self->team != SHMEM_TEAM_INVALID) {
        shmem_team_t t = self->team;
        self->team = SHMEM_TEAM_INVALID;
        Py_BEGIN_ALLOW_THREADS shmem_team_destroy(t);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

static PyObject *team_enter(PyObject *self, PyObject *unused)
{
    Py_INCREF(self);
    return self;
}

static PyObject *team_exit(shoalpy_team_obj_t *self, PyObject *args)
{
    if (!self->predefined)
        return team_destroy(self, NULL);
    Py_RETURN_NONE;
}

static PyObject *ctx_new_obj(shmem_ctx_t c, PyObject *team);

/* create_ctx(options=0) -> Context on this team. */
static PyObject *team_create_ctx(shoalpy_team_obj_t *self, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "Team.create_ctx", 0, "options");
    const char *fn = sig.fn;
    long long options = 0;
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 || team_valid(self, fn) != 0 ||
        (a[0] != NULL && shoalpy_int_arg(a[0], fn, "options", &options) != 0))
        return NULL;
    shmem_ctx_t c;
    if (shmem_team_create_ctx(self->team, (long)options, &c) != 0) {
        PyErr_Format(shoalpy_error, "%s: no context could be made on the team", fn);
        return NULL;
    }
    return ctx_new_obj(c, (PyObject *)self);
}

static PyObject *team_repr(shoalpy_team_obj_t *self)
{
    if (self->team == SHMEM_TEAM_INVALID)
        return PyUnicode_FromString("<shoal.Team destroyed>");
    return PyUnicode_FromFormat("<shoal.Team %s%d PEs, my_pe %d>",
                                self->team == SHMEM_TEAM_WORLD    ? "WORLD, "
                                : self->team == SHMEM_TEAM_SHARED ? "SHARED, "
                                                                  : "",
                                shmem_team_n_pes(self->team), shmem_team_my_pe(self->team));
}

static PyMethodDef team_obj_methods[] = {
    {"my_pe", (PyCFunction)team_my_pe, METH_NOARGS,
     "my_pe($self, /)\n--\n\nThis PE's number in the team."},
    {"n_pes", (PyCFunction)team_n_pes, METH_NOARGS, "n_pes($self, /)\n--\n\nThe team's size."},
    SHOALPY_FASTCALL("translate_pe", team_translate_pe,
                     "translate_pe($self, pe, dest_team)\n--\n\n"
                     "Return the number of this team's PE pe in dest_team, or -1."),
    SHOALPY_FASTCALL("split_strided", team_split_strided,
                     "split_strided($self, start, stride, size, num_contexts=None)\n--\n\n"
                     "Return a new Team, or None on PEs not in it (collective over this team)."),
    SHOALPY_FASTCALL("split_2d", team_split_2d,
                     "split_2d($self, xrange)\n--\n\n"
                     "Return (xteam, yteam) (collective over this team)."),
    {"get_config", (PyCFunction)team_get_config, METH_NOARGS,
     "get_config($self, /)\n--\n\nThe team's configuration as a dict."},
    {"destroy", (PyCFunction)team_destroy, METH_NOARGS,
     "destroy($self, /)\n--\n\nDestroy the team (collective over the team)."},
    SHOALPY_FASTCALL("create_ctx", team_create_ctx,
                     "create_ctx($self, options=0)\n--\n\nA Context on this team."),
    {"__enter__", team_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)team_exit, METH_VARARGS, "Destroys the team (collective)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject shoalpy_team_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "shoal.Team",
    .tp_basicsize = sizeof(shoalpy_team_obj_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An OpenSHMEM team (TEAM_WORLD, TEAM_SHARED, or a split of one).",
    .tp_methods = team_obj_methods,
    .tp_repr = (reprfunc)team_repr,
};

/* ---- Context ------------------------------------------------------------------ */

static PyObject *ctx_new_obj(shmem_ctx_t c, PyObject *team)
{
    shoalpy_ctx_obj_t *o = PyObject_New(shoalpy_ctx_obj_t, &shoalpy_ctx_type);
    if (o == NULL) {
        shmem_ctx_destroy(c);
        return NULL;
    }
    o->ctx = c;
    o->team = team == shoalpy_world ? NULL : team;
    Py_XINCREF(o->team);
    return (PyObject *)o;
}

static void ctx_dealloc(shoalpy_ctx_obj_t *self)
{
    /* A context is local to this PE, so destroying it here is safe. */
    if (self->ctx != SHMEM_CTX_INVALID)
        shmem_ctx_destroy(self->ctx);
    Py_XDECREF(self->team);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

int shoalpy_pe_ctx_args(PyObject *pe_obj, PyObject *ctx_obj, const char *fn, int *pe_p,
                        int *world_pe_p, shmem_ctx_t *ctx_p)
{
    long pe;
    if (SHOAL_PY_LIKELY(PyLong_CheckExact(pe_obj))) {
        int overflow;
        pe = PyLong_AsLongAndOverflow(pe_obj, &overflow);
        if (overflow)
            pe = -1;
    } else {
        long long v;
        if (shoalpy_int_arg(pe_obj, fn, "pe", &v) != 0)
            return -1;
        pe = (long)v;
    }
    if (pe < INT32_MIN || pe > INT32_MAX)
        pe = -1; /* out of range either way; the library's check names it */
    if (SHOAL_PY_LIKELY(ctx_obj == NULL || ctx_obj == Py_None)) {
        *ctx_p = SHMEM_CTX_DEFAULT;
        *pe_p = *world_pe_p = (int)pe;
        return 0;
    }
    if (Py_TYPE(ctx_obj) != &shoalpy_ctx_type) {
        PyErr_Format(PyExc_TypeError, "%s: ctx must be a shoal.Context, not %.100s", fn,
                     Py_TYPE(ctx_obj)->tp_name);
        return -1;
    }
    shoalpy_ctx_obj_t *c = (shoalpy_ctx_obj_t *)ctx_obj;
    if (c->ctx == SHMEM_CTX_INVALID) {
        PyErr_Format(shoalpy_error,
                     "%s: ctx is SHMEM_CTX_INVALID; create it with "
                     "shmem_ctx_create first (this context was destroyed)",
                     fn);
        return -1;
    }
    *ctx_p = c->ctx;
    *pe_p = (int)pe;
    if (c->team == NULL) {
        *world_pe_p = (int)pe;
        return 0;
    }
    shmem_team_t team = ((shoalpy_team_obj_t *)c->team)->team;
    const int n = shmem_team_n_pes(team);
    if (pe < 0 || pe >= n) {
        PyErr_Format(shoalpy_error, "%s: pe %ld is out of range for the context's team of %d PEs",
                     fn, pe, n);
        return -1;
    }
    *world_pe_p = shmem_team_translate_pe(team, (int)pe, SHMEM_TEAM_WORLD);
    return 0;
}

static PyObject *ctx_quiet(shoalpy_ctx_obj_t *self, PyObject *unused)
{
    shmemx_trace_caller("Context.quiet");
    if (self->ctx != SHMEM_CTX_INVALID)
        shmem_ctx_quiet(self->ctx);
    Py_RETURN_NONE;
}

static PyObject *ctx_fence(shoalpy_ctx_obj_t *self, PyObject *unused)
{
    shmemx_trace_caller("Context.fence");
    if (self->ctx != SHMEM_CTX_INVALID)
        shmem_ctx_fence(self->ctx);
    Py_RETURN_NONE;
}

static PyObject *ctx_destroy(shoalpy_ctx_obj_t *self, PyObject *unused)
{
    shmemx_trace_caller("Context.destroy");
    if (self->ctx != SHMEM_CTX_INVALID) {
        shmem_ctx_destroy(self->ctx);
        self->ctx = SHMEM_CTX_INVALID;
    }
    Py_RETURN_NONE;
}

static PyObject *ctx_exit(shoalpy_ctx_obj_t *self, PyObject *args)
{
    return ctx_destroy(self, NULL); /* shmem_ctx_destroy completes the context's operations */
}

static PyObject *ctx_get_team(shoalpy_ctx_obj_t *self, void *unused)
{
    PyObject *t = self->team ? self->team : shoalpy_world;
    Py_INCREF(t);
    return t;
}

static PyMethodDef ctx_obj_methods[] = {
    {"quiet", (PyCFunction)ctx_quiet, METH_NOARGS,
     "quiet($self, /)\n--\n\nComplete this context's operations."},
    {"fence", (PyCFunction)ctx_fence, METH_NOARGS,
     "fence($self, /)\n--\n\nOrder this context's puts."},
    {"destroy", (PyCFunction)ctx_destroy, METH_NOARGS,
     "destroy($self, /)\n--\n\nComplete and free the context (local)."},
    {"__enter__", team_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)ctx_exit, METH_VARARGS, "Completes and destroys the context."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef ctx_getset[] = {
    {"team", (getter)ctx_get_team, NULL, "The team the context was made on.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject shoalpy_ctx_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "shoal.Context",
    .tp_basicsize = sizeof(shoalpy_ctx_obj_t),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An OpenSHMEM communication context; pass it as ctx= to an RMA or AMO call.",
    .tp_dealloc = (destructor)ctx_dealloc,
    .tp_methods = ctx_obj_methods,
    .tp_getset = ctx_getset,
};

/* ctx_create(options=0) -> Context on TEAM_WORLD. */
static PyObject *py_ctx_create(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.ctx_create", 0, "options");
    long long options = 0;
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 ||
        (a[0] != NULL && shoalpy_int_arg(a[0], sig.fn, "options", &options) != 0))
        return NULL;
    shmem_ctx_t c;
    if (shmem_ctx_create((long)options, &c) != 0) {
        PyErr_SetString(shoalpy_error, "shoal.ctx_create: no context could be made");
        return NULL;
    }
    return ctx_new_obj(c, NULL);
}

PyMethodDef shoalpy_team_methods[] = {
    SHOALPY_FASTCALL("ctx_create", py_ctx_create,
                     "ctx_create(options=0)\n--\n\nA Context on TEAM_WORLD; options is 0 or "
                     "CTX_SERIALIZED, CTX_PRIVATE, CTX_NOSTORE or'ed together."),
    {NULL, NULL, 0, NULL},
};

/* ---- scratch for collect's size check --------------------------------------------- */

static size_t *scratch; /* [0] = this PE's count, [1 .. npes] = the team's counts */

int shoalpy_scratch_init(void)
{
    scratch = shmem_malloc(sizeof(size_t) * (size_t)(shmem_n_pes() + 1));
    if (scratch == NULL) {
        PyErr_SetString(PyExc_MemoryError, "shoal: no symmetric memory for scratch words");
        return -1;
    }
    return 0;
}

size_t *shoalpy_collect_counts(shmem_team_t team, size_t mine)
{
    scratch[0] = mine;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = shmem_size_fcollect(team, scratch + 1, scratch, 1);
    Py_END_ALLOW_THREADS if (rc != 0)
    {
        PyErr_SetString(shoalpy_error, "shoal.collect: exchanging the sizes failed");
        return NULL;
    }
    return scratch + 1;
}

int shoalpy_team_add_types(PyObject *m)
{
    if (PyType_Ready(&shoalpy_team_type) < 0 || PyType_Ready(&shoalpy_ctx_type) < 0)
        return -1;
    shoalpy_world = team_new_obj(SHMEM_TEAM_WORLD, 1);
    shoalpy_shared = team_new_obj(SHMEM_TEAM_SHARED, 1);
    if (shoalpy_world == NULL || shoalpy_shared == NULL ||
        PyModule_AddObjectRef(m, "Team", (PyObject *)&shoalpy_team_type) < 0 ||
        PyModule_AddObjectRef(m, "Context", (PyObject *)&shoalpy_ctx_type) < 0 ||
        PyModule_AddObjectRef(m, "TEAM_WORLD", shoalpy_world) < 0 ||
        PyModule_AddObjectRef(m, "TEAM_SHARED", shoalpy_shared) < 0)
        return -1;
    return shoalpy_scratch_init();
}
