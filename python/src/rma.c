/*
 * RMA from Python: put/get (blocking and nbi, contiguous or strided by the
 * arrays' NumPy strides), p/g of one element, put-with-signal, signal fetch
 * and wait, quiet and fence.
 *
 * The remote array (dest of a put, source of a get) must be symmetric; its
 * whole extent is checked on the target PE. The local one may be any array of
 * the same dtype and shape, or anything NumPy converts to one (a list, a
 * scalar broadcast is not accepted: shapes must match).
 */
#include "shoalpy.h"

typedef enum { XFER_PUT, XFER_GET, XFER_PUT_NBI, XFER_GET_NBI } xfer_t;

#define XFER_PARAMS "dest", "source", "pe", "ctx"
static shoalpy_sig_t xfer_sigs[] = {
    {"shoal.put", {XFER_PARAMS}, 4, 3, {NULL}},
    {"shoal.get", {XFER_PARAMS}, 4, 3, {NULL}},
    {"shoal.put_nbi", {XFER_PARAMS}, 4, 3, {NULL}},
    {"shoal.get_nbi", {XFER_PARAMS}, 4, 3, {NULL}},
};

/* The sized strided routine for one element size, or NULL. */
typedef void (*strided_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
static strided_fn strided_for(int to_remote, npy_intp itemsize)
{
    switch (itemsize) {
    case 1:
        return to_remote ? shmem_ctx_iput8 : shmem_ctx_iget8;
    case 2:
        return to_remote ? shmem_ctx_iput16 : shmem_ctx_iget16;
    case 4:
        return to_remote ? shmem_ctx_iput32 : shmem_ctx_iget32;
    case 8:
        return to_remote ? shmem_ctx_iput64 : shmem_ctx_iget64;
    case 16:
        return to_remote ? shmem_ctx_iput128 : shmem_ctx_iget128;
    default:
        return NULL;
    }
}

/* One strided transfer per innermost row: dest and source have the same
 * shape; every stride is a whole number of elements. */
static int xfer_strided(const char *fn, int to_remote, shmem_ctx_t ctx, PyArrayObject *d,
                        PyArrayObject *s, int pe)
{
    const npy_intp item = PyArray_ITEMSIZE(d);
    const int nd = PyArray_NDIM(d);
    strided_fn f = strided_for(to_remote, item);
    if (f == NULL) {
        PyErr_Format(PyExc_TypeError,
                     "%s: strided transfers need elements of 1, 2, 4, 8 or 16 bytes, not %zd; "
                     "make the arrays contiguous",
                     fn, (Py_ssize_t)item);
        return -1;
    }
    for (int i = 0; i < nd; i++)
        if (PyArray_STRIDE(d, i) % item != 0 || PyArray_STRIDE(s, i) % item != 0) {
            PyErr_Format(PyExc_ValueError,
                         "%s: a stride is not a whole number of elements; make the arrays "
                         "contiguous",
                         fn);
            return -1;
        }
    if (PyArray_SIZE(d) == 0)
        return 0;
    const npy_intp *shape = PyArray_DIMS(d);
    const size_t n = nd ? (size_t)shape[nd - 1] : 1;
    const ptrdiff_t dst = nd ? PyArray_STRIDE(d, nd - 1) / item : 1;
    const ptrdiff_t sst = nd ? PyArray_STRIDE(s, nd - 1) / item : 1;
    npy_intp idx[NPY_MAXDIMS] = {0};
    for (;;) {
        char *dp = PyArray_BYTES(d), *sp = PyArray_BYTES(s);
        for (int i = 0; i < nd - 1; i++) {
            dp += idx[i] * PyArray_STRIDE(d, i);
            sp += idx[i] * PyArray_STRIDE(s, i);
        }
        f(ctx, dp, sp, dst, sst, n, pe);
        int i = nd - 2;
        while (i >= 0 && ++idx[i] == shape[i])
            idx[i--] = 0;
        if (i < 0)
            return 0;
    }
}

static int same_shape(PyArrayObject *a, PyArrayObject *b)
{
    return PyArray_NDIM(a) == PyArray_NDIM(b) &&
           PyArray_CompareLists(PyArray_DIMS(a), PyArray_DIMS(b), PyArray_NDIM(a));
}

/* put/get family: (dest, source, pe[, ctx]). */
static PyObject *xfer(xfer_t kind, SHOALPY_ARGS)
{
    const char *fn = xfer_sigs[kind].fn;
    const int to_remote = kind == XFER_PUT || kind == XFER_PUT_NBI;
    int pe, wpe;
    shmem_ctx_t ctx;
    PyArrayObject *remote, *local;
    PyObject *converted = NULL, *a[4];
    if (shoalpy_parse(&xfer_sigs[kind], args, nargs, kwnames, a) != 0 ||
        shoalpy_pe_ctx_args(a[2], a[3], fn, &pe, &wpe, &ctx) != 0)
        return NULL;
    PyObject *remote_obj = to_remote ? a[0] : a[1], *local_obj = to_remote ? a[1] : a[0];
    if (shoalpy_symmetric_arg(remote_obj, fn, to_remote ? "dest" : "source", wpe, &remote) != 0)
        return NULL;
    if (PyArray_Check(local_obj)) { /* any array, but not one freed by shoal.free */
        if (shoalpy_array_arg(local_obj, fn, to_remote ? "source" : "dest", &local) != 0)
            return NULL;
    } else if (to_remote) {
        Py_INCREF(PyArray_DESCR(remote));
        converted =
            PyArray_FromAny(local_obj, PyArray_DESCR(remote), 0, 0, NPY_ARRAY_CARRAY_RO, NULL);
        if (converted == NULL)
            return NULL;
        local = (PyArrayObject *)converted;
    } else {
        return shoalpy_array_arg(local_obj, fn, "dest", &local), NULL;
    }
    PyObject *result = NULL;
    if (!PyArray_EquivTypes(PyArray_DESCR(local), PyArray_DESCR(remote))) {
        PyObject *ld = PyObject_Str((PyObject *)PyArray_DESCR(local));
        PyObject *rd = PyObject_Str((PyObject *)PyArray_DESCR(remote));
        PyErr_Format(PyExc_TypeError,
                     "%s: dest has dtype %S but source has dtype %S; convert "
                     "one with astype",
                     fn, to_remote ? rd : ld, to_remote ? ld : rd);
        Py_XDECREF(ld);
        Py_XDECREF(rd);
        goto out;
    }
    if (!same_shape(local, remote)) {
        PyObject *ls = PyObject_GetAttrString((PyObject *)local, "shape");
        PyObject *rs = PyObject_GetAttrString((PyObject *)remote, "shape");
        PyErr_Format(PyExc_ValueError, "%s: dest has shape %S but source has shape %S", fn,
                     to_remote ? rs : ls, to_remote ? ls : rs);
        Py_XDECREF(ls);
        Py_XDECREF(rs);
        goto out;
    }
    if (!to_remote && !PyArray_ISWRITEABLE(local)) {
        PyErr_Format(PyExc_ValueError, "%s: dest is read-only", fn);
        goto out;
    }
    PyArrayObject *d = to_remote ? remote : local, *s = to_remote ? local : remote;
    const size_t nbytes = (size_t)PyArray_NBYTES(d);
    if (PyArray_IS_C_CONTIGUOUS(d) && PyArray_IS_C_CONTIGUOUS(s)) {
        void *dp = PyArray_DATA(d), *sp = PyArray_DATA(s);
        if (nbytes < SHOALPY_NOGIL_BYTES) {
            switch (kind) {
            case XFER_PUT:
                shmem_ctx_putmem(ctx, dp, sp, nbytes, pe);
                break;
            case XFER_GET:
                shmem_ctx_getmem(ctx, dp, sp, nbytes, pe);
                break;
            case XFER_PUT_NBI:
                shmem_ctx_putmem_nbi(ctx, dp, sp, nbytes, pe);
                break;
            case XFER_GET_NBI:
                shmem_ctx_getmem_nbi(ctx, dp, sp, nbytes, pe);
                break;
            }
        } else {
            Py_BEGIN_ALLOW_THREADS switch (kind)
            {
            case XFER_PUT:
                shmem_ctx_putmem(ctx, dp, sp, nbytes, pe);
                break;
            case XFER_GET:
                shmem_ctx_getmem(ctx, dp, sp, nbytes, pe);
                break;
            case XFER_PUT_NBI:
                shmem_ctx_putmem_nbi(ctx, dp, sp, nbytes, pe);
                break;
            case XFER_GET_NBI:
                shmem_ctx_getmem_nbi(ctx, dp, sp, nbytes, pe);
                break;
            }
            Py_END_ALLOW_THREADS
        }
    } else if (xfer_strided(fn, to_remote, ctx, d, s, pe) != 0) {
        goto out; /* strided nbi transfers complete before returning, which nbi allows */
    }
    result = Py_None;
    Py_INCREF(result);
out:
    Py_XDECREF(converted);
    return result;
}

#define DEF_XFER(name, kind)                                                                       \
    static PyObject *py_##name(PyObject *m, SHOALPY_ARGS)                                          \
    {                                                                                              \
        return xfer(kind, args, nargs, kwnames);                                                   \
    }
DEF_XFER(put, XFER_PUT)
DEF_XFER(get, XFER_GET)
DEF_XFER(put_nbi, XFER_PUT_NBI)
DEF_XFER(get_nbi, XFER_GET_NBI)

/* p(dest, value, pe[, ctx]): dest's first element on pe = value. */
static PyObject *py_p(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.p", 3, "dest", "value", "pe", "ctx");
    int pe, wpe;
    shmem_ctx_t ctx;
    PyArrayObject *a;
    shoalpy_scalar_t v;
    PyObject *arg[4];
    if (shoalpy_parse(&sig, args, nargs, kwnames, arg) != 0 ||
        shoalpy_pe_ctx_args(arg[2], arg[3], "shoal.p", &pe, &wpe, &ctx) != 0 ||
        shoalpy_array_arg(arg[0], "shoal.p", "dest", &a) != 0)
        return NULL;
    const shoalpy_type_t *t = &shoalpy_types[PyArray_TYPE(a)];
    if (t->p == NULL)
        return shoalpy_dtype_error("shoal.p", a, "standard RMA"), NULL;
    if (shoalpy_to_scalar(arg[1], PyArray_TYPE(a), "shoal.p", "value", &v) != 0 ||
        shoalpy_check_elem("shoal.p", "dest", a, wpe))
        return NULL;
    t->p(ctx, PyArray_DATA(a), &v, pe);
    Py_RETURN_NONE;
}

/* g(source, pe[, ctx]) -> source's first element on pe. */
static PyObject *py_g(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.g", 2, "source", "pe", "ctx");
    int pe, wpe;
    shmem_ctx_t ctx;
    PyArrayObject *a;
    shoalpy_scalar_t v;
    PyObject *arg[3];
    if (shoalpy_parse(&sig, args, nargs, kwnames, arg) != 0 ||
        shoalpy_pe_ctx_args(arg[1], arg[2], "shoal.g", &pe, &wpe, &ctx) != 0 ||
        shoalpy_array_arg(arg[0], "shoal.g", "source", &a) != 0)
        return NULL;
    const shoalpy_type_t *t = &shoalpy_types[PyArray_TYPE(a)];
    if (t->g == NULL)
        return shoalpy_dtype_error("shoal.g", a, "standard RMA"), NULL;
    if (shoalpy_check_elem("shoal.g", "source", a, wpe))
        return NULL;
    t->g(ctx, &v, PyArray_DATA(a), pe);
    return shoalpy_from_scalar(PyArray_TYPE(a), &v);
}

/* A uint64 symmetric signal array (its first element is the signal word). */
static int signal_arg(PyObject *o, const char *fn, int pe, PyArrayObject **a_p)
{
    if (shoalpy_array_arg(o, fn, "sig_addr", a_p) != 0)
        return -1;
    if (PyArray_TYPE(*a_p) != NPY_UINT64) {
        PyErr_Format(PyExc_TypeError, "%s: sig_addr must have dtype uint64", fn);
        return -1;
    }
    return shoalpy_check_elem(fn, "sig_addr", *a_p, pe);
}

/* put_signal(dest, source, sig_addr, signal, sig_op, pe[, ctx]), contiguous. */
#define PUT_SIGNAL_PARAMS "dest", "source", "sig_addr", "signal", "sig_op", "pe", "ctx"
static shoalpy_sig_t put_signal_sigs[] = {
    {"shoal.put_signal", {PUT_SIGNAL_PARAMS}, 7, 6, {NULL}},
    {"shoal.put_signal_nbi", {PUT_SIGNAL_PARAMS}, 7, 6, {NULL}},
};

static PyObject *put_signal(int nbi, SHOALPY_ARGS)
{
    const char *fn = put_signal_sigs[nbi].fn;
    int pe, wpe;
    shmem_ctx_t ctx;
    PyArrayObject *d, *s, *sig;
    long long signal, op;
    PyObject *a[7];
    if (shoalpy_parse(&put_signal_sigs[nbi], args, nargs, kwnames, a) != 0 ||
        shoalpy_pe_ctx_args(a[5], a[6], fn, &pe, &wpe, &ctx) != 0 ||
        shoalpy_symmetric_arg(a[0], fn, "dest", wpe, &d) != 0 ||
        shoalpy_array_arg(a[1], fn, "source", &s) != 0 || signal_arg(a[2], fn, wpe, &sig) ||
        shoalpy_int_arg(a[3], fn, "signal", &signal) != 0 ||
        shoalpy_int_arg(a[4], fn, "sig_op", &op) != 0)
        return NULL;
    if (op != SHMEM_SIGNAL_SET && op != SHMEM_SIGNAL_ADD) {
        PyErr_Format(PyExc_ValueError,
                     "%s: sig_op %lld is not a signal operation; use shoal.SIGNAL_SET or "
                     "shoal.SIGNAL_ADD",
                     fn, op);
        return NULL;
    }
    if (!PyArray_EquivTypes(PyArray_DESCR(d), PyArray_DESCR(s))) {
        PyErr_Format(PyExc_TypeError, "%s: dest and source have different dtypes", fn);
        return NULL;
    }
    if (!same_shape(d, s)) {
        PyErr_Format(PyExc_ValueError, "%s: dest and source have different shapes", fn);
        return NULL;
    }
    if (!PyArray_IS_C_CONTIGUOUS(d) || !PyArray_IS_C_CONTIGUOUS(s)) {
        PyErr_Format(PyExc_ValueError, "%s: dest and source must be contiguous", fn);
        return NULL;
    }
    void *dp = PyArray_DATA(d), *sp = PyArray_DATA(s);
    uint64_t *sa = PyArray_DATA(sig);
    size_t n = (size_t)PyArray_NBYTES(d);
    Py_BEGIN_ALLOW_THREADS if (nbi)
        shmem_ctx_putmem_signal_nbi(ctx, dp, sp, n, sa, (uint64_t)signal, (int)op, pe);
    else shmem_ctx_putmem_signal(ctx, dp, sp, n, sa, (uint64_t)signal, (int)op, pe);
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *py_put_signal(PyObject *m, SHOALPY_ARGS)
{
    return put_signal(0, args, nargs, kwnames);
}

static PyObject *py_put_signal_nbi(PyObject *m, SHOALPY_ARGS)
{
    return put_signal(1, args, nargs, kwnames);
}

static PyObject *py_signal_fetch(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(psig, "shoal.signal_fetch", 1, "sig_addr");
    PyArrayObject *sig;
    PyObject *a[1];
    if (shoalpy_parse(&psig, args, nargs, kwnames, a) != 0 ||
        signal_arg(a[0], "shoal.signal_fetch", shmem_my_pe(), &sig) != 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(shmem_signal_fetch(PyArray_DATA(sig)));
}

static PyObject *py_signal_wait_until(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(psig, "shoal.signal_wait_until", 3, "sig_addr", "cmp", "value");
    const char *fn = psig.fn;
    PyArrayObject *sig;
    int cmp;
    shoalpy_scalar_t v;
    PyObject *a[3];
    if (shoalpy_parse(&psig, args, nargs, kwnames, a) != 0 ||
        signal_arg(a[0], fn, shmem_my_pe(), &sig) || shoalpy_cmp_arg(a[1], fn, &cmp) != 0 ||
        shoalpy_to_scalar(a[2], NPY_UINT64, fn, "value", &v) != 0)
        return NULL;
    uint64_t r, *sa = PyArray_DATA(sig);
    Py_BEGIN_ALLOW_THREADS r = shmem_signal_wait_until(sa, cmp, v.ull);
    Py_END_ALLOW_THREADS return PyLong_FromUnsignedLongLong(r);
}

static shoalpy_sig_t ordering_sigs[] = {
    {"shoal.fence", {"ctx"}, 1, 0, {NULL}},
    {"shoal.quiet", {"ctx"}, 1, 0, {NULL}},
};

static PyObject *ordering(int quiet, SHOALPY_ARGS)
{
    const char *fn = ordering_sigs[quiet].fn;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    PyObject *a[1];
    if (shoalpy_parse(&ordering_sigs[quiet], args, nargs, kwnames, a) != 0)
        return NULL;
    if (a[0] != NULL && a[0] != Py_None) {
        int pe, wpe;
        PyObject *zero = PyLong_FromLong(0);
        int rc = shoalpy_pe_ctx_args(zero, a[0], fn, &pe, &wpe, &ctx);
        Py_DECREF(zero);
        if (rc != 0)
            return NULL;
    }
    if (quiet)
        shmem_ctx_quiet(ctx);
    else
        shmem_ctx_fence(ctx);
    Py_RETURN_NONE;
}

static PyObject *py_quiet(PyObject *m, SHOALPY_ARGS)
{
    return ordering(1, args, nargs, kwnames);
}

static PyObject *py_fence(PyObject *m, SHOALPY_ARGS)
{
    return ordering(0, args, nargs, kwnames);
}

PyMethodDef shoalpy_rma_methods[] = {
    SHOALPY_FASTCALL("put", py_put,
                     "put(dest, source, pe, ctx=None)\n--\n\n"
                     "Copy source into the symmetric array dest on PE pe.\n"
                     "Shapes and dtypes must match; non-contiguous arrays move by their strides."),
    SHOALPY_FASTCALL("get", py_get,
                     "get(dest, source, pe, ctx=None)\n--\n\n"
                     "Copy the symmetric array source on PE pe into dest."),
    SHOALPY_FASTCALL("put_nbi", py_put_nbi,
                     "put_nbi(dest, source, pe, ctx=None)\n--\n\n"
                     "A put that completes at the next quiet."),
    SHOALPY_FASTCALL("get_nbi", py_get_nbi,
                     "get_nbi(dest, source, pe, ctx=None)\n--\n\n"
                     "A get that completes at the next quiet."),
    SHOALPY_FASTCALL("p", py_p,
                     "p(dest, value, pe, ctx=None)\n--\n\nSet dest's first element on PE pe."),
    SHOALPY_FASTCALL("g", py_g,
                     "g(source, pe, ctx=None)\n--\n\nReturn source's first element on PE pe."),
    SHOALPY_FASTCALL("put_signal", py_put_signal,
                     "put_signal(dest, source, sig_addr, signal, sig_op, pe, ctx=None)\n--\n\n"
                     "Put, then update the uint64 signal sig_addr[0] on PE pe (sig_op is "
                     "SIGNAL_SET or SIGNAL_ADD)."),
    SHOALPY_FASTCALL("put_signal_nbi", py_put_signal_nbi,
                     "put_signal_nbi(dest, source, sig_addr, signal, sig_op, pe, ctx=None)\n"
                     "--\n\nput_signal that completes at the next quiet."),
    SHOALPY_FASTCALL("signal_fetch", py_signal_fetch,
                     "signal_fetch(sig_addr)\n--\n\nReturn the local signal sig_addr[0]."),
    SHOALPY_FASTCALL("signal_wait_until", py_signal_wait_until,
                     "signal_wait_until(sig_addr, cmp, value)\n--\n\n"
                     "Block until sig_addr[0] cmp value; return the signal's value. cmp is a "
                     "string ('==', '>=', ...), a shoal.Cmp or a shoal.CMP_* constant."),
    SHOALPY_FASTCALL("quiet", py_quiet,
                     "quiet(ctx=None)\n--\n\nComplete every put, AMO and nbi operation."),
    SHOALPY_FASTCALL("fence", py_fence, "fence(ctx=None)\n--\n\nOrder puts to each PE."),
    {NULL, NULL, 0, NULL},
};
