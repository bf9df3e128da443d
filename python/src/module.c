/*
 * shoal._core: module set-up, symmetric arrays and the argument helpers every
 * family shares.
 *
 * Importing the module initializes Shoal (shmem_init_thread, THREAD_MULTIPLE,
 * since Python threads may call in with the GIL released). Symmetric globals
 * are turned off first: the data-segment remap would move the interpreter's
 * own .data/.bss, which must happen before any thread exists, and NumPy's BLAS
 * or torch may already have started threads; Python programs have no C globals
 * of their own to share anyway.
 *
 * Arrays: shoal._core.alloc makes an ndarray whose memory comes from
 * shmem_align and whose base is a SymBuf that owns it. Freeing is collective
 * (shoal.free -> shmem_free); a SymBuf collected without it keeps its memory
 * until shmem_finalize, because garbage collection runs at different moments
 * on different PEs and freeing there could hand memory back while a peer
 * still writes into it (see docs/python.md, "Freeing").
 */
#define SHOALPY_MODULE_C
#include "shoalpy.h"

#include <stdlib.h>
#include <string.h>

PyObject *shoalpy_error;

/* ---- argument helpers -------------------------------------------------------- */

int shoalpy_array_arg(PyObject *o, const char *fn, const char *what, PyArrayObject **a_p)
{
    if (PyArray_Check(o)) {
        *a_p = (PyArrayObject *)o;
        return 0;
    }
    PyErr_Format(PyExc_TypeError,
                 "%s: %s must be a NumPy array (symmetric ones come from shoal.empty, zeros, "
                 "ones, full or array), not %.100s",
                 fn, what, Py_TYPE(o)->tp_name);
    return -1;
}

/* The library's advice for memory that is not symmetric speaks of C; a
 * Python program makes symmetric memory otherwise. */
static const char c_advice[] = "(neither in the symmetric heap nor a global or static variable); "
                               "allocate it with shmem_malloc or make it global or static";
static const char py_advice[] = "(not in the symmetric heap); allocate it with shoal.zeros, "
                                "shoal.empty (or ones, full, array) or shoal.torch.zeros";

int shoalpy_check_addr(const char *fn, const char *what, const void *addr, size_t len, int pe)
{
    char msg[1024];
    if (SHOAL_PY_LIKELY(shmemx_addr_check(fn, what, addr, len, pe, msg, sizeof(msg)) == 0))
        return 0;
    char *c = strstr(msg, c_advice);
    if (c != NULL && (size_t)(c - msg) + sizeof(py_advice) <= sizeof(msg)) {
        const size_t tail = strlen(c + sizeof(c_advice) - 1);
        char rest[sizeof(msg)];
        memcpy(rest, c + sizeof(c_advice) - 1, tail + 1);
        snprintf(c, sizeof(msg) - (size_t)(c - msg), "%s%s", py_advice, rest);
    }
    PyErr_SetString(shoalpy_error, msg);
    return -1;
}

void shoalpy_extent(PyArrayObject *a, char **lo_p, size_t *len_p)
{
    char *lo = PyArray_BYTES(a);
    ptrdiff_t span = 0;
    const int nd = PyArray_NDIM(a);
    const npy_intp *shape = PyArray_DIMS(a), *strides = PyArray_STRIDES(a);
    *lo_p = lo;
    *len_p = 0;
    for (int i = 0; i < nd; i++) {
        if (shape[i] == 0)
            return;
        if (strides[i] < 0)
            lo += strides[i] * (shape[i] - 1);
        else
            span += strides[i] * (shape[i] - 1);
    }
    *lo_p = lo;
    *len_p = (size_t)(PyArray_BYTES(a) + span - lo) + (size_t)PyArray_ITEMSIZE(a);
}

int shoalpy_symmetric_arg(PyObject *o, const char *fn, const char *what, int pe,
                          PyArrayObject **a_p)
{
    if (shoalpy_array_arg(o, fn, what, a_p) != 0)
        return -1;
    PyArrayObject *a = *a_p;
    if (SHOAL_PY_LIKELY(PyArray_IS_C_CONTIGUOUS(a)))
        return shoalpy_check_addr(fn, what, PyArray_DATA(a), (size_t)PyArray_NBYTES(a), pe);
    char *lo;
    size_t len;
    shoalpy_extent(a, &lo, &len);
    return shoalpy_check_addr(fn, what, lo, len, pe);
}

int shoalpy_dtype_error(const char *fn, PyArrayObject *a, const char *family)
{
    PyObject *name = PyObject_Str((PyObject *)PyArray_DESCR(a));
    PyErr_Format(PyExc_TypeError, "%s: dtype %s is not one of the %s types of OpenSHMEM", fn,
                 name ? PyUnicode_AsUTF8(name) : "?", family);
    Py_XDECREF(name);
    return -1;
}

int shoalpy_int_arg(PyObject *o, const char *fn, const char *what, long long *out)
{
    int overflow = 0;
    if (!PyLong_Check(o) && !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s: %s must be an integer, not %.100s", fn, what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow) {
        PyErr_Format(PyExc_ValueError, "%s: %s is out of range", fn, what);
        return -1;
    }
    *out = v;
    return 0;
}

/* Range of a signed or unsigned integer dtype of `size` bytes. */
static int int_fits(long long v, unsigned long long u, int is_signed, int size)
{
    if (size >= 8)
        return 1;
    const int bits = size * 8;
    if (is_signed)
        return v >= -(1LL << (bits - 1)) && v < (1LL << (bits - 1));
    return u < (1ULL << bits);
}

int shoalpy_to_scalar(PyObject *o, int type_num, const char *fn, const char *what,
                      shoalpy_scalar_t *out)
{
    switch (type_num) {
    case NPY_FLOAT:
    case NPY_DOUBLE:
    case NPY_LONGDOUBLE: {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred())
            goto type_error;
        if (type_num == NPY_FLOAT)
            out->f = (float)d;
        else if (type_num == NPY_DOUBLE)
            out->d = d;
        else
            out->ld = d;
        return 0;
    }
    case NPY_CFLOAT:
    case NPY_CDOUBLE: {
        Py_complex c = PyComplex_AsCComplex(o);
        if (c.real == -1.0 && PyErr_Occurred())
            goto type_error;
        if (type_num == NPY_CFLOAT)
            out->cf = (float)c.real + (float)c.imag * 1.0fi;
        else
            out->cd = c.real + c.imag * 1.0i;
        return 0;
    }
    default:
        break;
    }
    if (!PyTypeNum_ISINTEGER(type_num)) /* bool, half, strings, objects, ... */
        goto type_error;
    const int is_signed = PyTypeNum_ISSIGNED(type_num);
    const int size = (int)PyArray_DescrFromType(type_num)->elsize;
    if (!PyLong_Check(o) && !PyIndex_Check(o))
        goto type_error;
    long long v = 0;
    unsigned long long u = 0;
    int overflow = 0;
    if (is_signed) {
        v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
    } else {
        PyObject *idx = PyNumber_Index(o);
        if (idx == NULL)
            return -1;
        u = PyLong_AsUnsignedLongLong(idx);
        Py_DECREF(idx);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            overflow = 1;
        }
    }
    if (overflow || !int_fits(v, u, is_signed, size)) {
        PyErr_Format(PyExc_ValueError, "%s: %s %R does not fit the array's dtype", fn, what, o);
        return -1;
    }
    switch (size) {
    case 1:
        out->uc = (unsigned char)(is_signed ? (unsigned long long)v : u);
        break;
    case 2:
        out->us = (unsigned short)(is_signed ? (unsigned long long)v : u);
        break;
    case 4:
        out->u = (unsigned)(is_signed ? (unsigned long long)v : u);
        break;
    default:
        out->ull = is_signed ? (unsigned long long)v : u;
        break;
    }
    return 0;
type_error:
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "%s: %s must be a number of the array's dtype, not %.100s", fn,
                 what, Py_TYPE(o)->tp_name);
    return -1;
}

PyObject *shoalpy_from_scalar(int type_num, const void *value)
{
    const shoalpy_scalar_t *s = value;
    switch (type_num) {
    case NPY_BYTE:
        return PyLong_FromLong(s->sc);
    case NPY_UBYTE:
        return PyLong_FromLong(s->uc);
    case NPY_SHORT:
        return PyLong_FromLong(s->s);
    case NPY_USHORT:
        return PyLong_FromLong(s->us);
    case NPY_INT:
        return PyLong_FromLong(s->i);
    case NPY_UINT:
        return PyLong_FromUnsignedLong(s->u);
    case NPY_LONG:
        return PyLong_FromLong(s->l);
    case NPY_ULONG:
        return PyLong_FromUnsignedLong(s->ul);
    case NPY_LONGLONG:
        return PyLong_FromLongLong(s->ll);
    case NPY_ULONGLONG:
        return PyLong_FromUnsignedLongLong(s->ull);
    case NPY_FLOAT:
        return PyFloat_FromDouble(s->f);
    case NPY_DOUBLE:
        return PyFloat_FromDouble(s->d);
    case NPY_LONGDOUBLE:
        return PyFloat_FromDouble((double)s->ld);
    case NPY_CFLOAT:
        return PyComplex_FromDoubles(__real__ s->cf, __imag__ s->cf);
    case NPY_CDOUBLE:
        return PyComplex_FromDoubles(__real__ s->cd, __imag__ s->cd);
    default:
        break;
    }
    PyErr_SetString(PyExc_TypeError, "unsupported dtype");
    return NULL;
}

/* ---- SymBuf: the owner of one symmetric allocation ----------------------------- */

typedef struct {
    PyObject_HEAD void *ptr;
    size_t size;
} symbuf_t;

static size_t symbuf_kept_bytes; /* collected without shoal.free: kept until finalize */

static void symbuf_dealloc(symbuf_t *self)
{
    if (self->ptr != NULL)
        symbuf_kept_bytes += self->size;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject symbuf_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "shoal._core.SymBuf",
    .tp_basicsize = sizeof(symbuf_t),
    .tp_dealloc = (destructor)symbuf_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The owner of one symmetric allocation (the base of a symmetric array).",
};

/* alloc(shape, dtype, fill): a symmetric array, collective over all PEs.
 * fill is None (empty), or a value every element is set to; every PE has
 * filled its copy before any PE returns. */
static PyObject *py_alloc(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal._core.alloc", 3, "shape", "dtype", "fill");
    PyArray_Descr *descr = NULL;
    PyArray_Dims shape = {NULL, 0};
    PyObject *a[3];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    args = a; /* the body reads args[0 .. 2] */
    if (!PyArray_IntpConverter(args[0], &shape))
        return NULL;
    if (!PyArray_DescrConverter(args[1], &descr))
        goto free_shape;
    if (PyDataType_REFCHK(descr) || descr->elsize == 0) {
        PyErr_SetString(PyExc_TypeError, "alloc: dtype must be a fixed-size plain-data type");
        goto free_descr;
    }
    size_t nbytes = (size_t)descr->elsize;
    for (int i = 0; i < shape.len; i++) {
        if (shape.ptr[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "alloc: negative dimension");
            goto free_descr;
        }
        nbytes *= (size_t)shape.ptr[i];
    }
    symbuf_t *buf = PyObject_New(symbuf_t, &symbuf_type);
    if (buf == NULL)
        goto free_descr;
    buf->size = nbytes ? nbytes : 1;
    Py_BEGIN_ALLOW_THREADS buf->ptr = shmem_align(64, buf->size);
    Py_END_ALLOW_THREADS if (buf->ptr == NULL)
    {
        size_t total, used, largest;
        shmemx_heap_info(&total, &used, &largest);
        PyErr_Format(PyExc_MemoryError,
                     "alloc: the symmetric heap cannot hold %zu more bytes (%zu of %zu used, "
                     "largest free block %zu); raise SHMEM_SYMMETRIC_SIZE",
                     nbytes, used, total, largest);
        Py_DECREF(buf);
        goto free_descr;
    }
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, shape.len, shape.ptr, NULL, buf->ptr,
                                         NPY_ARRAY_CARRAY, NULL);
    descr = NULL; /* stolen */
    if (arr == NULL || PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)buf) != 0) {
        Py_XDECREF(arr);
        return NULL; /* the memory stays allocated; every PE got here alike */
    }
    if (args[2] != Py_None) {
        /* Every PE got the same value, so every PE fails alike or fills alike; the
         * barrier keeps a fast peer from writing into a copy still being filled. */
        if (PyArray_FillWithScalar((PyArrayObject *)arr, args[2]) != 0) {
            Py_DECREF(arr);
            PyMem_Free(shape.ptr);
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS shmem_barrier_all();
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(shape.ptr);
    return arr;
free_descr:
    Py_XDECREF(descr);
free_shape:
    PyMem_Free(shape.ptr);
    return NULL;
}

/* The SymBuf that owns `a`'s memory, or NULL (no exception) when none. */
static symbuf_t *symbuf_of(PyObject *a)
{
    while (a != NULL && PyArray_Check(a))
        a = PyArray_BASE((PyArrayObject *)a);
    return a != NULL && Py_TYPE(a) == &symbuf_type ? (symbuf_t *)a : NULL;
}

static PyObject *py_free(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.free", 1, "a");
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    args = a; /* the body reads args[0] */
    symbuf_t *buf = symbuf_of(args[0]);
    if (buf == NULL) {
        PyErr_SetString(PyExc_ValueError,
                        "free: the array was not made by shoal.empty, zeros, ones, full or array");
        return NULL;
    }
    if (buf->ptr == NULL) {
        PyErr_SetString(PyExc_ValueError, "free: the array was already freed");
        return NULL;
    }
    void *p = buf->ptr;
    buf->ptr = NULL;
    Py_BEGIN_ALLOW_THREADS shmem_free(p);
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *py_is_symmetric(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.is_symmetric", 1, "a");
    PyArrayObject *a;
    PyObject *arg[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, arg) != 0 ||
        shoalpy_array_arg(arg[0], sig.fn, "a", &a) != 0)
        return NULL;
    char *lo;
    size_t len;
    shoalpy_extent(a, &lo, &len);
    return PyBool_FromLong(shmemx_addr_check(NULL, NULL, lo, len, shmem_my_pe(), NULL, 0) == 0);
}

static PyObject *py_kept_bytes(PyObject *m, PyObject *unused)
{
    return PyLong_FromSize_t(symbuf_kept_bytes);
}

/* peer(a, pe): a's copy on pe, where this process maps it. */
static PyObject *py_peer(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.peer", 2, "a", "pe");
    PyArrayObject *a;
    long long pe;
    PyObject *arg[2];
    if (shoalpy_parse(&sig, args, nargs, kwnames, arg) != 0 ||
        shoalpy_int_arg(arg[1], sig.fn, "pe", &pe))
        return NULL;
    if (pe < INT32_MIN || pe > INT32_MAX)
        pe = -1;
    if (shoalpy_symmetric_arg(arg[0], "shoal.peer", "a", (int)pe, &a) != 0)
        return NULL;
    char *p = shmem_ptr(PyArray_DATA(a), (int)pe);
    if (p == NULL) {
        PyErr_Format(shoalpy_error,
                     "shoal.peer: PE %lld's memory is not mapped by PE %d (it is on another "
                     "host); use get/put instead",
                     pe, shmem_my_pe());
        return NULL;
    }
    PyArray_Descr *d = PyArray_DESCR(a);
    Py_INCREF(d);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, d, PyArray_NDIM(a), PyArray_DIMS(a),
                                       PyArray_STRIDES(a), p, NPY_ARRAY_WRITEABLE, NULL);
    if (v == NULL)
        return NULL;
    Py_INCREF(a);
    if (PyArray_SetBaseObject((PyArrayObject *)v, (PyObject *)a) != 0) {
        Py_DECREF(v);
        return NULL;
    }
    PyArray_UpdateFlags((PyArrayObject *)v, NPY_ARRAY_UPDATE_ALL);
    return v;
}

/* ---- job-wide calls ---------------------------------------------------------- */

static PyObject *py_my_pe(PyObject *m, PyObject *unused)
{
    return PyLong_FromLong(shmem_my_pe());
}
static PyObject *py_n_pes(PyObject *m, PyObject *unused)
{
    return PyLong_FromLong(shmem_n_pes());
}

static PyObject *py_barrier_all(PyObject *m, PyObject *unused)
{
    Py_BEGIN_ALLOW_THREADS shmem_barrier_all();
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *py_sync_all(PyObject *m, PyObject *unused)
{
    Py_BEGIN_ALLOW_THREADS shmem_sync_all();
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *py_pe_accessible(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.pe_accessible", 1, "pe");
    long long pe;
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_int_arg(a[0], sig.fn, "pe", &pe) != 0)
        return NULL;
    return PyBool_FromLong(pe >= 0 && pe < shmem_n_pes() && shmem_pe_accessible((int)pe));
}

static PyObject *py_heap_info(PyObject *m, PyObject *unused)
{
    size_t total, used, largest;
    shmemx_heap_info(&total, &used, &largest);
    return Py_BuildValue("(nnn)", (Py_ssize_t)total, (Py_ssize_t)used, (Py_ssize_t)largest);
}

static PyObject *py_global_exit(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.global_exit", 1, "status");
    long long status;
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_int_arg(a[0], sig.fn, "status", &status) != 0)
        return NULL;
    fflush(NULL);
    shmem_global_exit((int)status);
    Py_RETURN_NONE;
}

static PyObject *py_info(PyObject *m, PyObject *unused)
{
    int major, minor;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    return Py_BuildValue("(iis)", major, minor, name);
}

static PyMethodDef module_methods[] = {
    SHOALPY_FASTCALL("alloc", py_alloc,
                     "alloc(shape, dtype, fill)\n--\n\n"
                     "A symmetric ndarray (collective); fill None leaves it uninitialized."),
    SHOALPY_FASTCALL("free", py_free, "free(a)\n--\n\nRelease a symmetric array (collective)."),
    SHOALPY_FASTCALL("is_symmetric", py_is_symmetric,
                     "is_symmetric(a)\n--\n\nWhether the array's memory is symmetric."),
    SHOALPY_FASTCALL("peer", py_peer, "peer(a, pe)\n--\n\nA view of PE pe's copy of a."),
    SHOALPY_FASTCALL("pe_accessible", py_pe_accessible,
                     "pe_accessible(pe)\n--\n\nWhether PE pe can be reached."),
    SHOALPY_FASTCALL("global_exit", py_global_exit,
                     "global_exit(status)\n--\n\nEnd every PE with the exit status status."),
    {"kept_bytes", py_kept_bytes, METH_NOARGS,
     "kept_bytes()\n--\n\nBytes of arrays collected without shoal.free, kept until finalize."},
    {"my_pe", py_my_pe, METH_NOARGS, "my_pe()\n--\n\nThis PE's number in TEAM_WORLD."},
    {"n_pes", py_n_pes, METH_NOARGS, "n_pes()\n--\n\nThe number of PEs."},
    {"barrier_all", py_barrier_all, METH_NOARGS,
     "barrier_all()\n--\n\nQuiet, then wait for every PE."},
    {"sync_all", py_sync_all, METH_NOARGS, "sync_all()\n--\n\nWait for every PE (no quiet)."},
    {"heap_info", py_heap_info, METH_NOARGS,
     "heap_info()\n--\n\n(total, used, largest_free) bytes of the symmetric heap."},
    {"info", py_info, METH_NOARGS, "info()\n--\n\n(major, minor, vendor name)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "shoal._core",
    "The C core of the shoal package: every call parses its arguments and dispatches on dtype in "
    "C, over libshoal.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

/* Runs after the interpreter has finalized, with the process's exit status
 * (glibc on_exit; registered after shmem_init, so before the library's own
 * handler). A clean exit finalizes, so a Python program need not call
 * anything; any other status leaves the job to the launcher, as in C, rather
 * than waiting in finalize for peers that may never come. */
static void exit_handler(int status, void *arg)
{
    (void)arg;
    if (status == 0)
        shmem_finalize();
}

/* shmem_init took the job key out of the process's environment (unless
 * SHOAL_JOB_KEY_INHERIT); os.environ, read when the interpreter started,
 * still holds its copy, which subprocess(env=os.environ) or os.environ.copy()
 * would hand on. Drops that copy too (os.environb shares it). */
static int forget_job_key(void)
{
    if (getenv("SHOAL_JOB_KEY") != NULL)
        return 0; /* kept on purpose */
    PyObject *os = PyImport_ImportModule("os");
    PyObject *env_map = os != NULL ? PyObject_GetAttrString(os, "environ") : NULL;
    PyObject *gone = env_map != NULL
                         ? PyObject_CallMethod(env_map, "pop", "sO", "SHOAL_JOB_KEY", Py_None)
                         : NULL;
    Py_XDECREF(gone);
    Py_XDECREF(env_map);
    Py_XDECREF(os);
    return gone != NULL ? 0 : -1;
}

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    /* Python's own .data must never be remapped (see the top of this file). */
    setenv("SHOAL_SYMMETRIC_GLOBALS", "0", 1);
    int provided;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0) {
        PyErr_SetString(PyExc_ImportError, "shoal: shmem_init_thread failed");
        return NULL;
    }
    on_exit(exit_handler, NULL);
    if (forget_job_key() < 0)
        return NULL;
    shoalpy_types_init();
    if (PyType_Ready(&symbuf_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    shoalpy_error = PyErr_NewExceptionWithDoc(
        "shoal.Error", "An error reported by the Shoal library, with its message.",
        PyExc_RuntimeError, NULL);
    if (shoalpy_error == NULL || PyModule_AddObjectRef(m, "Error", shoalpy_error) < 0 ||
        PyModule_AddFunctions(m, shoalpy_rma_methods) < 0 ||
        PyModule_AddFunctions(m, shoalpy_amo_methods) < 0 ||
        PyModule_AddFunctions(m, shoalpy_sync_methods) < 0 ||
        PyModule_AddFunctions(m, shoalpy_coll_methods) < 0 ||
        PyModule_AddFunctions(m, shoalpy_bench_methods) < 0 ||
        PyModule_AddFunctions(m, shoalpy_team_methods) < 0 || shoalpy_team_add_types(m) < 0 ||
        shoalpy_cmp_add_enum(m) < 0)
        goto fail;
    struct {
        const char *name;
        long value;
    } constants[] = {
        {"CMP_EQ", SHMEM_CMP_EQ},
        {"CMP_NE", SHMEM_CMP_NE},
        {"CMP_GT", SHMEM_CMP_GT},
        {"CMP_GE", SHMEM_CMP_GE},
        {"CMP_LT", SHMEM_CMP_LT},
        {"CMP_LE", SHMEM_CMP_LE},
        {"SIGNAL_SET", SHMEM_SIGNAL_SET},
        {"SIGNAL_ADD", SHMEM_SIGNAL_ADD},
        {"CTX_SERIALIZED", SHMEM_CTX_SERIALIZED},
        {"CTX_PRIVATE", SHMEM_CTX_PRIVATE},
        {"CTX_NOSTORE", SHMEM_CTX_NOSTORE},
        {"TEAM_NUM_CONTEXTS", SHMEM_TEAM_NUM_CONTEXTS},
        {"THREAD_LEVEL", provided},
    };
    for (size_t i = 0; i < sizeof(constants) / sizeof(constants[0]); i++)
        if (PyModule_AddIntConstant(m, constants[i].name, constants[i].value) < 0)
            goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
