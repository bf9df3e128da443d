/*
 * Team collectives from Python, on contiguous symmetric arrays of one dtype:
 *
 *   broadcast(dest, source, root, team=None)     dest.size == source.size
 *   collect(dest, source, team=None)             sizes may differ; dest holds the sum
 *   fcollect(dest, source, team=None)            dest.size == source.size * team size
 *   alltoall(dest, source, team=None)            sizes equal, a multiple of the team size
 *   alltoalls(dest, source, dst, sst, nelems, team=None)
 *   reduce(dest, source, op, team=None)          op: and or xor max min sum prod avg
 *   inscan / exscan(dest, source, team=None)     sum scans (OpenSHMEM 1.6)
 *   sync(team=None)                              shmem_team_sync
 *
 * Shapes, dtypes and symmetry are checked on each PE before any PE moves
 * data. A PE whose arguments are bad raises; its peers, already inside the
 * collective, wait for it (as in C, where the job would end), so a test
 * harness should run with a timeout (shoalrun --timeout).
 */
#include "shoalpy.h"

#include <string.h>

/* Two arrays of one collective: contiguous, symmetric, same dtype. */
static int coll_arrays(const char *fn, PyObject *d_obj, PyObject *s_obj, PyArrayObject **d_p,
                       PyArrayObject **s_p)
{
    const int me = shmem_my_pe();
    if (shoalpy_symmetric_arg(d_obj, fn, "dest", me, d_p) != 0 ||
        shoalpy_symmetric_arg(s_obj, fn, "source", me, s_p) != 0)
        return -1;
    if (!PyArray_EquivTypes(PyArray_DESCR(*d_p), PyArray_DESCR(*s_p))) {
        PyErr_Format(PyExc_TypeError, "%s: dest and source have different dtypes (%S, %S)", fn,
                     (PyObject *)PyArray_DESCR(*d_p), (PyObject *)PyArray_DESCR(*s_p));
        return -1;
    }
    if (!PyArray_IS_C_CONTIGUOUS(*d_p) || !PyArray_IS_C_CONTIGUOUS(*s_p)) {
        PyErr_Format(PyExc_ValueError, "%s: dest and source must be contiguous", fn);
        return -1;
    }
    if (!PyArray_ISWRITEABLE(*d_p)) {
        PyErr_Format(PyExc_ValueError, "%s: dest is read-only", fn);
        return -1;
    }
    return 0;
}

static PyObject *status_result(const char *fn, int rc)
{
    if (rc == 0)
        Py_RETURN_NONE;
    PyErr_Format(shoalpy_error, "%s failed (status %d)", fn, rc);
    return NULL;
}

static int size_error(const char *fn, const char *rule, Py_ssize_t d, Py_ssize_t s, int n)
{
    PyErr_Format(PyExc_ValueError, "%s: %s (dest has %zd elements, source %zd, team %d PEs)", fn,
                 rule, d, s, n);
    return -1;
}

static PyObject *py_broadcast(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.broadcast", 3, "dest", "source", "root", "team");
    const char *fn = sig.fn;
    PyArrayObject *d, *s;
    shmem_team_t team;
    long long root;
    PyObject *a[4];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_team_arg(a[3], fn, &team) != 0 || coll_arrays(fn, a[0], a[1], &d, &s) != 0 ||
        shoalpy_int_arg(a[2], fn, "root", &root) != 0)
        return NULL;
    const int n = shmem_team_n_pes(team);
    if (root < 0 || root >= n) {
        PyErr_Format(shoalpy_error, "%s: root %lld is out of range; the team has %d PEs", fn, root,
                     n);
        return NULL;
    }
    if (PyArray_SIZE(d) != PyArray_SIZE(s))
        return size_error(fn, "dest and source must have the same size", PyArray_SIZE(d),
                          PyArray_SIZE(s), n),
               NULL;
    int rc;
    void *dp = PyArray_DATA(d), *sp = PyArray_DATA(s);
    size_t nb = (size_t)PyArray_NBYTES(s);
    Py_BEGIN_ALLOW_THREADS rc = shmem_broadcastmem(team, dp, sp, nb, (int)root);
    Py_END_ALLOW_THREADS return status_result(fn, rc);
}

/* collect, fcollect, alltoall: (dest, source, team=None). */
typedef enum { C_COLLECT, C_FCOLLECT, C_ALLTOALL } gather_t;

static shoalpy_sig_t gather_sigs[] = {
    [C_COLLECT] = {"shoal.collect", {"dest", "source", "team"}, 3, 2, {NULL}},
    [C_FCOLLECT] = {"shoal.fcollect", {"dest", "source", "team"}, 3, 2, {NULL}},
    [C_ALLTOALL] = {"shoal.alltoall", {"dest", "source", "team"}, 3, 2, {NULL}},
};

static PyObject *gather(gather_t kind, SHOALPY_ARGS)
{
    const char *fn = gather_sigs[kind].fn;
    PyArrayObject *d, *s;
    shmem_team_t team;
    PyObject *a[3];
    if (shoalpy_parse(&gather_sigs[kind], args, nargs, kwnames, a) != 0 ||
        shoalpy_team_arg(a[2], fn, &team) != 0 || coll_arrays(fn, a[0], a[1], &d, &s) != 0)
        return NULL;
    const int n = shmem_team_n_pes(team);
    const Py_ssize_t dn = PyArray_SIZE(d), sn = PyArray_SIZE(s);
    const size_t item = (size_t)PyArray_ITEMSIZE(s);
    void *dp = PyArray_DATA(d), *sp = PyArray_DATA(s);
    int rc = 0;
    switch (kind) {
    case C_FCOLLECT:
        if (dn != sn * n)
            return size_error(fn, "dest must hold team size x source elements", dn, sn, n), NULL;
        Py_BEGIN_ALLOW_THREADS rc = shmem_fcollectmem(team, dp, sp, (size_t)sn * item);
        Py_END_ALLOW_THREADS break;
    case C_ALLTOALL:
        if (dn != sn || sn % n != 0)
            return size_error(fn,
                              "dest and source must have the same size, a multiple of the "
                              "team size",
                              dn, sn, n),
                   NULL;
        Py_BEGIN_ALLOW_THREADS rc = shmem_alltoallmem(team, dp, sp, (size_t)(sn / n) * item);
        Py_END_ALLOW_THREADS break;
    case C_COLLECT: {
        /* The library cannot tell that dest is too small, so the sizes are
         * gathered first (one fcollect on the team's scratch words). */
        size_t total = 0;
        size_t *c = shoalpy_collect_counts(team, (size_t)sn);
        if (c == NULL)
            return NULL;
        for (int i = 0; i < n; i++)
            total += c[i];
        if ((size_t)dn < total)
            return size_error(fn, "dest must hold the sum of every PE's source size", dn,
                              (Py_ssize_t)total, n),
                   NULL;
        Py_BEGIN_ALLOW_THREADS rc = shmem_collectmem(team, dp, sp, (size_t)sn * item);
        Py_END_ALLOW_THREADS break;
    }
    }
    return status_result(fn, rc);
}

static PyObject *py_collect(PyObject *m, SHOALPY_ARGS)
{
    return gather(C_COLLECT, args, nargs, kwnames);
}
static PyObject *py_fcollect(PyObject *m, SHOALPY_ARGS)
{
    return gather(C_FCOLLECT, args, nargs, kwnames);
}
static PyObject *py_alltoall(PyObject *m, SHOALPY_ARGS)
{
    return gather(C_ALLTOALL, args, nargs, kwnames);
}

static PyObject *py_alltoalls(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.alltoalls", 5, "dest", "source", "dst", "sst", "nelems", "team");
    const char *fn = sig.fn;
    PyArrayObject *d, *s;
    shmem_team_t team;
    long long dst, sst, ne;
    PyObject *a[6];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_team_arg(a[5], fn, &team) != 0 || coll_arrays(fn, a[0], a[1], &d, &s) != 0 ||
        shoalpy_int_arg(a[2], fn, "dst", &dst) || shoalpy_int_arg(a[3], fn, "sst", &sst) ||
        shoalpy_int_arg(a[4], fn, "nelems", &ne))
        return NULL;
    const int n = shmem_team_n_pes(team);
    if (dst < 1 || sst < 1 || ne < 0) {
        PyErr_Format(PyExc_ValueError, "%s: dst and sst must be >= 1 and nelems >= 0", fn);
        return NULL;
    }
    const long long last = ne * n - 1;
    if (ne > 0 && (PyArray_SIZE(d) <= last * dst || PyArray_SIZE(s) <= last * sst))
        return size_error(fn,
                          "dest needs (nelems x team size - 1) x dst + 1 elements and source "
                          "the same with sst",
                          PyArray_SIZE(d), PyArray_SIZE(s), n),
               NULL;
    int rc;
    void *dp = PyArray_DATA(d), *sp = PyArray_DATA(s);
    Py_BEGIN_ALLOW_THREADS switch (PyArray_ITEMSIZE(s))
    {
    case 1:
        rc = shmem_uint8_alltoalls(team, dp, sp, dst, sst, (size_t)ne);
        break;
    case 2:
        rc = shmem_uint16_alltoalls(team, dp, sp, dst, sst, (size_t)ne);
        break;
    case 4:
        rc = shmem_uint32_alltoalls(team, dp, sp, dst, sst, (size_t)ne);
        break;
    case 8:
        rc = shmem_uint64_alltoalls(team, dp, sp, dst, sst, (size_t)ne);
        break;
    default:
        rc = -2;
        break;
    }
    Py_END_ALLOW_THREADS if (rc == -2)
    {
        PyErr_Format(PyExc_TypeError, "%s: elements of 1, 2, 4 or 8 bytes only", fn);
        return NULL;
    }
    return status_result(fn, rc);
}

static const char *const op_names[SHOALPY_OP_COUNT] = {"and", "or",   "xor",    "max",   "min",
                                                       "sum", "prod", "inscan", "exscan"};
static const char *const op_family[SHOALPY_OP_COUNT] = {"bitwise reduction",
                                                        "bitwise reduction",
                                                        "bitwise reduction",
                                                        "min/max reduction",
                                                        "min/max reduction",
                                                        "arithmetic reduction",
                                                        "arithmetic reduction",
                                                        "scan",
                                                        "scan"};

static PyObject *reduce_call(const char *fn, shoalpy_op_t op, PyObject *d_obj, PyObject *s_obj,
                             PyObject *team_obj)
{
    PyArrayObject *d, *s;
    shmem_team_t team;
    if (shoalpy_team_arg(team_obj, fn, &team) != 0 || coll_arrays(fn, d_obj, s_obj, &d, &s) != 0)
        return NULL;
    shoalpy_reduce_fn f = shoalpy_types[PyArray_TYPE(s)].reduce[op];
    if (f == NULL)
        return shoalpy_dtype_error(fn, s, op_family[op]), NULL;
    if (PyArray_SIZE(d) != PyArray_SIZE(s))
        return size_error(fn, "dest and source must have the same size", PyArray_SIZE(d),
                          PyArray_SIZE(s), shmem_team_n_pes(team)),
               NULL;
    int rc;
    void *dp = PyArray_DATA(d), *sp = PyArray_DATA(s);
    size_t n = (size_t)PyArray_SIZE(s);
    Py_BEGIN_ALLOW_THREADS rc = f(team, dp, sp, n);
    Py_END_ALLOW_THREADS return status_result(fn, rc);
}

/* op "avg": the sum, divided in place by the team's size (floating-point
 * arrays only, as torch's ReduceOp.AVG). */
static PyObject *reduce_avg(const char *fn, PyObject *d_obj, PyObject *s_obj, PyObject *team_obj)
{
    shmem_team_t team;
    if (shoalpy_team_arg(team_obj, fn, &team) != 0)
        return NULL;
    if (!PyArray_Check(s_obj) ||
        !(PyArray_ISFLOAT((PyArrayObject *)s_obj) || PyArray_ISCOMPLEX((PyArrayObject *)s_obj))) {
        PyErr_Format(PyExc_TypeError, "%s: op avg needs a floating-point or complex array", fn);
        return NULL;
    }
    PyObject *r = reduce_call(fn, SHOALPY_OP_SUM, d_obj, s_obj, team_obj);
    if (r == NULL)
        return NULL;
    Py_DECREF(r);
    PyObject *n = PyLong_FromLong(shmem_team_n_pes(team));
    if (n == NULL)
        return NULL;
    PyObject *q = PyNumber_InPlaceTrueDivide(d_obj, n);
    Py_DECREF(n);
    if (q == NULL)
        return NULL;
    Py_DECREF(q);
    Py_RETURN_NONE;
}

/* A non-string op (a torch.distributed.ReduceOp member, say) as shoal's
 * name, through shoal._op_name; a new reference, or NULL. */
static PyObject *op_by_name(PyObject *op, const char *fn)
{
    PyObject *pkg = PyImport_ImportModule("shoal");
    if (pkg == NULL)
        return NULL;
    PyObject *named = PyObject_CallMethod(pkg, "_op_name", "Os", op, fn);
    Py_DECREF(pkg);
    return named;
}

static PyObject *py_reduce(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.reduce", 3, "dest", "source", "op", "team");
    const char *fn = sig.fn;
    PyObject *a[4];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    PyObject *op_obj = a[2], *named = NULL;
    if (!PyUnicode_Check(op_obj)) {
        named = op_by_name(op_obj, fn);
        if (named == NULL)
            return NULL;
        op_obj = named;
    }
    PyObject *result = NULL;
    const char *name = PyUnicode_Check(op_obj) ? PyUnicode_AsUTF8(op_obj) : NULL;
    if (name == NULL) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError,
                         "%s: op must be a string (and, or, xor, max, min, sum, prod, avg) or a "
                         "torch.distributed.ReduceOp member",
                         fn);
        goto out;
    }
    if (strcmp(name, "avg") == 0) {
        result = reduce_avg(fn, a[0], a[1], a[3]);
        goto out;
    }
    for (int op = 0; op <= SHOALPY_OP_PROD; op++)
        if (strcmp(name, op_names[op]) == 0) {
            result = reduce_call(fn, (shoalpy_op_t)op, a[0], a[1], a[3]);
            goto out;
        }
    PyErr_Format(PyExc_ValueError, "%s: op %R is not one of and, or, xor, max, min, sum, prod, avg",
                 fn, a[2]);
out:
    Py_XDECREF(named);
    return result;
}

static PyObject *py_inscan(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.inscan", 2, "dest", "source", "team");
    PyObject *a[3];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    return reduce_call(sig.fn, SHOALPY_OP_INSCAN, a[0], a[1], a[2]);
}

static PyObject *py_exscan(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.exscan", 2, "dest", "source", "team");
    PyObject *a[3];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    return reduce_call(sig.fn, SHOALPY_OP_EXSCAN, a[0], a[1], a[2]);
}

static PyObject *py_sync(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.sync", 0, "team");
    shmem_team_t team;
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_team_arg(a[0], "shoal.sync", &team) != 0)
        return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = shmem_team_sync(team);
    Py_END_ALLOW_THREADS return status_result("shoal.sync", rc);
}

#define COLL_ENTRY(name, sig, doc) SHOALPY_FASTCALL(#name, py_##name, #name sig "\n--\n\n" doc)
PyMethodDef shoalpy_coll_methods[] = {
    COLL_ENTRY(broadcast, "(dest, source, root, team=None)",
               "Copy the source of the team's PE root into every PE's dest."),
    COLL_ENTRY(collect, "(dest, source, team=None)",
               "Concatenate every PE's source (sizes may differ) into dest, in team order."),
    COLL_ENTRY(fcollect, "(dest, source, team=None)",
               "Concatenate equal-size sources into dest, in team order."),
    COLL_ENTRY(alltoall, "(dest, source, team=None)", "Block j of source goes to team PE j."),
    COLL_ENTRY(alltoalls, "(dest, source, dst, sst, nelems, team=None)",
               "Strided alltoall: nelems elements per PE, strides dst and sst in elements."),
    COLL_ENTRY(reduce, "(dest, source, op, team=None)",
               "Elementwise op over the team; op is 'and', 'or', 'xor', 'max', 'min', 'sum' or "
               "'prod'."),
    COLL_ENTRY(inscan, "(dest, source, team=None)", "Inclusive sum scan over the team."),
    COLL_ENTRY(exscan, "(dest, source, team=None)", "Exclusive sum scan over the team."),
    COLL_ENTRY(sync, "(team=None)", "Synchronize the team's PEs (no quiet)."),
    {NULL, NULL, 0, NULL},
};
