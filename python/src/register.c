/*
 * shoal.register / shoal.unregister: a NumPy array's own memory made
 * symmetric (shmemx_buffer_register), and the view that stands for the
 * registration.
 *
 * register(a) is collective: every PE passes a C-contiguous, writeable
 * array of the same size in bytes (its address may differ). It returns a
 * view of a's memory whose base is a RegBuf, which keeps `a` alive while the
 * registration lasts; RMA, AMO, signals and collectives accept the view (and
 * `a` itself: the memory is what is registered). unregister(view) ends it,
 * collectively; later calls on the memory raise shoal.Error with the
 * library's message, as for any memory that is not symmetric.
 *
 * Arguments that are wrong the same way on every PE (not an array, not
 * contiguous) raise before any collective call. What only the library
 * knows (overlap with symmetric memory, a memory kind it cannot share,
 * sizes that differ between PEs) makes it return non-zero on every PE,
 * after the PE concerned logged why; every PE then raises shoal.Error.
 */
#include "shoalpy.h"

typedef struct {
    PyObject_HEAD PyObject *owner; /* the array whose memory is registered */
    void *ptr;                     /* NULL once unregistered */
    size_t size;
} regbuf_t;

static void regbuf_dealloc(regbuf_t *self)
{
    /* Dropped while registered: the registration stays (unregistering is
     * collective and garbage collection is not), and so does the memory. */
    if (self->ptr == NULL)
        Py_XDECREF(self->owner);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *regbuf_get_registered(regbuf_t *self, void *closure)
{
    return PyBool_FromLong(self->ptr != NULL);
}

static PyGetSetDef regbuf_getset[] = {
    {"registered", (getter)regbuf_get_registered, NULL,
     "Whether the memory is still registered (shoal.unregister ends it).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject regbuf_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "shoal._core.RegBuf",
    .tp_basicsize = sizeof(regbuf_t),
    .tp_dealloc = (destructor)regbuf_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = regbuf_getset,
    .tp_doc = "A registration of an array's memory (the base of the view shoal.register "
              "returns).",
};

/* register(a): collective. */
static PyObject *py_register(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.register", 1, "a");
    PyObject *arg[1];
    PyArrayObject *a;
    if (shoalpy_parse(&sig, args, nargs, kwnames, arg) != 0 ||
        shoalpy_array_arg(arg[0], sig.fn, "a", &a) != 0)
        return NULL;
    if (!PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a) || PyArray_NBYTES(a) == 0) {
        PyErr_Format(PyExc_ValueError,
                     "shoal.register: a must be a non-empty, C-contiguous, writeable array (pass "
                     "numpy.ascontiguousarray(a), the same size on every PE)");
        return NULL;
    }
    regbuf_t *buf = PyObject_New(regbuf_t, &regbuf_type);
    if (buf == NULL)
        return NULL;
    buf->owner = NULL;
    buf->ptr = NULL;
    buf->size = (size_t)PyArray_NBYTES(a);
    void *ptr = PyArray_DATA(a);
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = shmemx_buffer_register(ptr, buf->size);
    Py_END_ALLOW_THREADS if (rc != 0)
    {
        Py_DECREF(buf);
        PyErr_Format(shoalpy_error,
                     "shoal.register: the PEs did not register their arrays (this PE: %zu bytes "
                     "at %p); the library's message on the PE whose array it refused says why: "
                     "sizes that differ between PEs, memory that is symmetric or registered "
                     "already, or memory Shoal cannot share (register arrays NumPy allocated)",
                     (size_t)PyArray_NBYTES(a), ptr);
        return NULL;
    }
    Py_INCREF(a);
    buf->owner = (PyObject *)a;
    buf->ptr = ptr;
    PyArray_Descr *d = PyArray_DESCR(a);
    Py_INCREF(d);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, d, PyArray_NDIM(a), PyArray_DIMS(a),
                                       PyArray_STRIDES(a), ptr, NPY_ARRAY_CARRAY, NULL);
    if (v == NULL || PyArray_SetBaseObject((PyArrayObject *)v, (PyObject *)buf) != 0) {
        Py_XDECREF(v); /* the registration stays, as for a dropped view */
        return NULL;
    }
    return v;
}

/* The RegBuf behind a view that register returned, or NULL. */
static regbuf_t *regbuf_of(PyObject *a)
{
    while (a != NULL && PyArray_Check(a)) {
        PyObject *base = PyArray_BASE((PyArrayObject *)a);
        if (base != NULL && Py_TYPE(base) == &regbuf_type)
            return (regbuf_t *)base;
        a = base;
    }
    return NULL;
}

/* unregister(a): collective; a is the view register returned. */
static PyObject *py_unregister(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.unregister", 1, "a");
    PyObject *arg[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, arg) != 0)
        return NULL;
    regbuf_t *buf = regbuf_of(arg[0]);
    if (buf == NULL) {
        PyErr_SetString(PyExc_ValueError, "shoal.unregister: a is not an array that "
                                          "shoal.register returned (nor a view of one)");
        return NULL;
    }
    if (buf->ptr == NULL) {
        PyErr_SetString(PyExc_ValueError, "shoal.unregister: a was unregistered already");
        return NULL;
    }
    int rc;
    void *ptr = buf->ptr;
    Py_BEGIN_ALLOW_THREADS rc = shmemx_buffer_unregister(ptr);
    Py_END_ALLOW_THREADS if (rc != 0)
    {
        PyErr_SetString(shoalpy_error, "shoal.unregister: some PE did not have the array "
                                       "registered (its message says which); every PE "
                                       "unregisters the arrays it registered, in the same order");
        return NULL;
    }
    buf->ptr = NULL;
    Py_RETURN_NONE;
}

PyMethodDef shoalpy_register_methods[] = {
    SHOALPY_FASTCALL("register", py_register,
                     "register(a)\n--\n\n"
                     "Make the array a's own memory symmetric (collective; the same size in bytes "
                     "on every PE); returns a view of it that every call accepts."),
    SHOALPY_FASTCALL("unregister", py_unregister,
                     "unregister(a)\n--\n\n"
                     "End the registration of a, a view shoal.register returned (collective)."),
    {NULL, NULL, 0, NULL},
};

int shoalpy_register_add_types(PyObject *module)
{
    (void)module; /* reached through the views, not by name */
    return PyType_Ready(&regbuf_type);
}
