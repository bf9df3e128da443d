/*
 * Point-to-point synchronization and locks from Python.
 *
 *   wait_until(ivar, cmp, value) and test(ivar, cmp, value) -> bool, on ivar[0];
 *   wait_until_all/any/some(ivars, cmp, value, status=None) on every element of
 *   ivars; the _vector forms take an array of values; test_all/any/some(...)
 *   never block. any returns an index or None, some an array of indices.
 *   set_lock/clear_lock/test_lock(lock) on a symmetric int64 (C long) array.
 *
 * Waits release the GIL, so other Python threads run meanwhile.
 */
#include "shoalpy.h"

typedef enum { W_ONE, W_ALL, W_ANY, W_SOME } wait_kind_t;

typedef struct {
    shoalpy_sig_t sig;
    wait_kind_t kind;
    int vector, test;
} wait_desc_t;

static PyObject *wait_call(wait_desc_t *w, SHOALPY_ARGS)
{
    const char *fn = w->sig.fn;
    PyArrayObject *ivars, *values = NULL, *status = NULL;
    PyObject *result = NULL, *a[4];
    int cmp;
    shoalpy_scalar_t value;
    if (shoalpy_parse(&w->sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_array_arg(a[0], fn, w->sig.names[0], &ivars) != 0 ||
        shoalpy_cmp_arg(a[1], fn, &cmp) != 0)
        return NULL;
    const int type = PyArray_TYPE(ivars);
    const shoalpy_sync_ops_t *ops = shoalpy_types[type].sync;
    if (ops == NULL)
        return shoalpy_dtype_error(fn, ivars, "point-to-point synchronization"), NULL;
    if (!PyArray_IS_C_CONTIGUOUS(ivars)) {
        PyErr_Format(PyExc_ValueError, "%s: ivars must be contiguous", fn);
        return NULL;
    }
    const size_t n = w->kind == W_ONE ? 1 : (size_t)PyArray_SIZE(ivars);
    if (w->kind == W_ONE && PyArray_SIZE(ivars) < 1) {
        PyErr_Format(PyExc_ValueError, "%s: ivar is empty", fn);
        return NULL;
    }
    void *iv = PyArray_DATA(ivars);
    if (shoalpy_check_addr(fn, "ivars", iv, n * (size_t)PyArray_ITEMSIZE(ivars), shmem_my_pe()))
        return NULL;
    if (w->vector) {
        Py_INCREF(PyArray_DESCR(ivars));
        values = (PyArrayObject *)PyArray_FromAny(a[2], PyArray_DESCR(ivars), 0, 0,
                                                  NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST, NULL);
        if (values == NULL)
            return NULL;
        if ((size_t)PyArray_SIZE(values) != n) {
            PyErr_Format(PyExc_ValueError, "%s: %zu ivars but %zd values", fn, n,
                         (Py_ssize_t)PyArray_SIZE(values));
            goto out;
        }
    } else if (shoalpy_to_scalar(a[2], type, fn, "value", &value) != 0) {
        return NULL;
    }
    const void *vp = w->vector ? PyArray_DATA(values) : (const void *)&value;
    if (w->kind != W_ONE && a[3] != NULL && a[3] != Py_None) {
        status = (PyArrayObject *)PyArray_FromAny(a[3], PyArray_DescrFromType(NPY_INT), 1, 1,
                                                  NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST, NULL);
        if (status == NULL)
            goto out;
        if ((size_t)PyArray_SIZE(status) != n) {
            PyErr_Format(PyExc_ValueError, "%s: %zu ivars but %zd status entries", fn, n,
                         (Py_ssize_t)PyArray_SIZE(status));
            goto out;
        }
    }
    const int *st = status ? PyArray_DATA(status) : NULL;
    size_t r = 0;
    PyArrayObject *idx = NULL;
    if (w->kind == W_SOME) {
        npy_intp len = (npy_intp)n;
        idx = (PyArrayObject *)PyArray_SimpleNew(1, &len, NPY_UINTP);
        if (idx == NULL)
            goto out;
    }
    size_t *ip = idx ? PyArray_DATA(idx) : NULL;
    if (w->test) {
        switch (w->kind) {
        case W_ONE:
            r = (size_t)ops->test(iv, cmp, vp);
            break;
        case W_ALL:
            r = (size_t)(w->vector ? ops->test_all_vector : ops->test_all)(iv, n, st, cmp, vp);
            break;
        case W_ANY:
            r = (w->vector ? ops->test_any_vector : ops->test_any)(iv, n, st, cmp, vp);
            break;
        case W_SOME:
            r = (w->vector ? ops->test_some_vector : ops->test_some)(iv, n, ip, st, cmp, vp);
            break;
        }
    } else {
        Py_BEGIN_ALLOW_THREADS switch (w->kind)
        {
        case W_ONE:
            ops->wait_until(iv, cmp, vp);
            break;
        case W_ALL:
            (w->vector ? ops->wait_until_all_vector : ops->wait_until_all)(iv, n, st, cmp, vp);
            break;
        case W_ANY:
            r = (w->vector ? ops->wait_until_any_vector : ops->wait_until_any)(iv, n, st, cmp, vp);
            break;
        case W_SOME:
            r = (w->vector ? ops->wait_until_some_vector : ops->wait_until_some)(iv, n, ip, st, cmp,
                                                                                 vp);
            break;
        }
        Py_END_ALLOW_THREADS
    }
    switch (w->kind) {
    case W_ONE:
    case W_ALL:
        result = w->test ? PyBool_FromLong((long)r) : (Py_INCREF(Py_None), Py_None);
        break;
    case W_ANY:
        result = r == SIZE_MAX ? (Py_INCREF(Py_None), Py_None) : PyLong_FromSize_t(r);
        break;
    case W_SOME: {
        PyObject *slice = PySequence_GetSlice((PyObject *)idx, 0, (Py_ssize_t)r);
        Py_DECREF(idx);
        result = slice;
        break;
    }
    }
out:
    Py_XDECREF(values);
    Py_XDECREF(status);
    return result;
}

/* W_ONE: (ivar, cmp, value); the others (ivars, cmp, value or values, status=None). */
#define DEF_WAIT(pyname, KIND, VECTOR, TEST)                                                       \
    static PyObject *py_##pyname(PyObject *m, SHOALPY_ARGS)                                        \
    {                                                                                              \
        static wait_desc_t w = {                                                                   \
            {"shoal." #pyname,                                                                     \
             {KIND == W_ONE ? "ivar" : "ivars", "cmp", VECTOR ? "values" : "value", "status"},     \
             KIND == W_ONE ? 3 : 4,                                                                \
             3,                                                                                    \
             {NULL}},                                                                              \
            KIND,                                                                                  \
            VECTOR,                                                                                \
            TEST};                                                                                 \
        return wait_call(&w, args, nargs, kwnames);                                                \
    }
DEF_WAIT(wait_until, W_ONE, 0, 0)
DEF_WAIT(wait_until_all, W_ALL, 0, 0)
DEF_WAIT(wait_until_any, W_ANY, 0, 0)
DEF_WAIT(wait_until_some, W_SOME, 0, 0)
DEF_WAIT(wait_until_all_vector, W_ALL, 1, 0)
DEF_WAIT(wait_until_any_vector, W_ANY, 1, 0)
DEF_WAIT(wait_until_some_vector, W_SOME, 1, 0)
DEF_WAIT(test, W_ONE, 0, 1)
DEF_WAIT(test_all, W_ALL, 0, 1)
DEF_WAIT(test_any, W_ANY, 0, 1)
DEF_WAIT(test_some, W_SOME, 0, 1)
DEF_WAIT(test_all_vector, W_ALL, 1, 1)
DEF_WAIT(test_any_vector, W_ANY, 1, 1)
DEF_WAIT(test_some_vector, W_SOME, 1, 1)

/* The lock word: a symmetric C long (int64 here) array's first element. */
static shoalpy_sig_t lock_sigs[] = {
    {"shoal.set_lock", {"lock"}, 1, 1, {NULL}},
    {"shoal.clear_lock", {"lock"}, 1, 1, {NULL}},
    {"shoal.test_lock", {"lock"}, 1, 1, {NULL}},
};

static int lock_arg(int which, SHOALPY_ARGS, long **lock_p)
{
    const char *fn = lock_sigs[which].fn;
    PyArrayObject *a;
    PyObject *arg[1];
    if (shoalpy_parse(&lock_sigs[which], args, nargs, kwnames, arg) != 0 ||
        shoalpy_array_arg(arg[0], fn, "lock", &a) != 0)
        return -1;
    if (PyArray_TYPE(a) != NPY_LONG) {
        PyErr_Format(PyExc_TypeError, "%s: lock must have dtype int64 (C long)", fn);
        return -1;
    }
    *lock_p = PyArray_DATA(a);
    return shoalpy_check_elem(fn, "lock", a, 0);
}

static PyObject *py_set_lock(PyObject *m, SHOALPY_ARGS)
{
    long *lock;
    if (lock_arg(0, args, nargs, kwnames, &lock) != 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS shmem_set_lock(lock);
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *py_clear_lock(PyObject *m, SHOALPY_ARGS)
{
    long *lock;
    if (lock_arg(1, args, nargs, kwnames, &lock) != 0)
        return NULL;
    shmem_clear_lock(lock);
    Py_RETURN_NONE;
}

static PyObject *py_test_lock(PyObject *m, SHOALPY_ARGS)
{
    long *lock;
    if (lock_arg(2, args, nargs, kwnames, &lock) != 0)
        return NULL;
    return PyBool_FromLong(shmem_test_lock(lock) == 0);
}

#define WAIT_ENTRY(name, sig, doc) SHOALPY_FASTCALL(#name, py_##name, #name sig "\n--\n\n" doc)
#define CMP_DOC                                                                                    \
    " cmp is a string ('==', '!=', '>', '>=', '<', '<='), a shoal.Cmp or a shoal.CMP_* constant."
#define STATUS_DOC " status (optional): one int per element, nonzero to exclude it."
PyMethodDef shoalpy_sync_methods[] = {
    WAIT_ENTRY(wait_until, "(ivar, cmp, value)", "Block until ivar[0] cmp value." CMP_DOC),
    WAIT_ENTRY(wait_until_all, "(ivars, cmp, value, status=None)",
               "Block until every element of ivars compares true." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(wait_until_any, "(ivars, cmp, value, status=None)",
               "Block until an element compares true; return its index." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(wait_until_some, "(ivars, cmp, value, status=None)",
               "Block until elements compare true; return their indices." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(wait_until_all_vector, "(ivars, cmp, values, status=None)",
               "wait_until_all with one value per element." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(wait_until_any_vector, "(ivars, cmp, values, status=None)",
               "wait_until_any with one value per element; return an index." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(wait_until_some_vector, "(ivars, cmp, values, status=None)",
               "wait_until_some with one value per element; return indices." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(test, "(ivar, cmp, value)", "Return whether ivar[0] cmp value." CMP_DOC),
    WAIT_ENTRY(test_all, "(ivars, cmp, value, status=None)",
               "Return whether every element compares true." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(test_any, "(ivars, cmp, value, status=None)",
               "Return the index of an element that compares true, or None." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(test_some, "(ivars, cmp, value, status=None)",
               "Return the indices of the elements that compare true." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(test_all_vector, "(ivars, cmp, values, status=None)",
               "test_all with one value per element." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(test_any_vector, "(ivars, cmp, values, status=None)",
               "test_any with one value per element." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(test_some_vector, "(ivars, cmp, values, status=None)",
               "test_some with one value per element." CMP_DOC STATUS_DOC),
    WAIT_ENTRY(set_lock, "(lock)", "Acquire the distributed lock (blocks)."),
    WAIT_ENTRY(clear_lock, "(lock)", "Release the lock."),
    WAIT_ENTRY(test_lock, "(lock)", "Take the lock if it is free; True if taken (never blocks)."),
    {NULL, NULL, 0, NULL},
};
