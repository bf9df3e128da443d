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
 * (shoal.free -> shmem_free). A SymBuf collected without it cannot free
 * there (garbage collection runs at different moments on different PEs, and
 * a peer may still write into its copy); the next collective allocation
 * gives back what every PE has collected, at a point where all PEs agree
 * (see "SymBuf" below and docs/python.md, "Freeing"). A freed SymBuf keeps
 * ptr NULL, which the array conversion checks, so a freed array raises.
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
        PyObject *base = PyArray_BASE(*a_p);
        if (SHOAL_PY_LIKELY(base == NULL || !shoalpy_symbuf_freed(base)))
            return 0;
        return shoalpy_freed_error(fn, what);
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

int shoalpy_check_elem(const char *fn, const char *what, PyArrayObject *a, int pe)
{
    if (PyArray_SIZE(a) == 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: %s is empty; the call works on its first element (pass a[i:], "
                     "not a[i:i])",
                     fn, what);
        return -1;
    }
    return shoalpy_check_addr(fn, what, PyArray_DATA(a), (size_t)PyArray_ITEMSIZE(a), pe);
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

/* Every allocation made by alloc has an entry in heap_tab, in allocation order
 * (seq rising). Allocations and frees are collective, so every PE's table
 * holds the same allocations in the same order; only `collected` differs
 * between PEs: it is set when this PE's SymBuf is garbage-collected without
 * shoal.free. The memory cannot be given back then (shmem_free is collective
 * and a peer may still use its copy), so each alloc first combines the PEs'
 * collected flags (one OR-reduction over the complemented bitmap, which is an
 * AND of the flags) and frees, in table order on every PE, what every PE has
 * collected. The same reduction carries the requested size (as size and
 * ~size: OR(size) & OR(~size) is 0 exactly when every PE asked for the same
 * size), so a mismatch raises on every PE instead of ending the job. */
typedef struct {
    uint64_t seq;
    void *ptr;
    size_t size;
    int collected;
} symbuf_entry_t;

static struct {
    symbuf_entry_t *v;
    size_t n, cap;
    uint64_t next_seq;
    size_t live_bytes; /* every entry's size */
    size_t kept_bytes; /* entries collected here, not yet given back */
    uint64_t *red_src; /* symmetric scratch of the agreement reduction */
    uint64_t *red_dst;
} heap_tab;

/* Words of one reduction round: size and ~size, then bitmap words. */
#define SYMBUF_RED_WORDS 256

typedef struct {
    PyObject_HEAD void *ptr; /* NULL once freed by shoal.free: the "freed" flag */
    size_t size;
    uint64_t seq;
} symbuf_t;

static PyTypeObject symbuf_type;

static symbuf_entry_t *entry_find(uint64_t seq)
{
    size_t lo = 0, hi = heap_tab.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (heap_tab.v[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < heap_tab.n && heap_tab.v[lo].seq == seq ? &heap_tab.v[lo] : NULL;
}

static int entry_add(void *ptr, size_t size, uint64_t *seq_p)
{
    if (heap_tab.n == heap_tab.cap) {
        size_t cap = heap_tab.cap ? 2 * heap_tab.cap : 64;
        symbuf_entry_t *v = PyMem_Realloc(heap_tab.v, cap * sizeof(*v));
        if (v == NULL)
            return -1;
        heap_tab.v = v;
        heap_tab.cap = cap;
    }
    *seq_p = heap_tab.next_seq++;
    heap_tab.v[heap_tab.n++] = (symbuf_entry_t){*seq_p, ptr, size, 0};
    heap_tab.live_bytes += size;
    return 0;
}

static void entry_remove(symbuf_entry_t *e)
{
    heap_tab.live_bytes -= e->size;
    if (e->collected)
        heap_tab.kept_bytes -= e->size;
    size_t i = (size_t)(e - heap_tab.v);
    memmove(e, e + 1, (heap_tab.n - i - 1) * sizeof(*e));
    heap_tab.n--;
}

/* Frees, on every PE alike, the entries every PE has collected, and tells
 * whether every PE asked for `size` bytes (*same_p). Collective over
 * TEAM_WORLD; the table is the same length everywhere, so every PE runs the
 * same number of rounds. 0, or -1 with an exception set. */
static int symbuf_agree(size_t size, int *same_p)
{
    const size_t n = heap_tab.n;
    unsigned char *all = n ? PyMem_Calloc(n, 1) : NULL; /* collected on every PE */
    if (n && all == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    size_t done = 0;
    int first = 1, rc = 0;
    while (first || done < n) {
        uint64_t *src = heap_tab.red_src, *dst = heap_tab.red_dst;
        size_t w = 0;
        if (first) {
            src[w++] = (uint64_t)size;
            src[w++] = ~(uint64_t)size;
        }
        const size_t begin = done;
        while (w < SYMBUF_RED_WORDS && done < n) {
            uint64_t bits = 0;
            for (int b = 0; b < 64 && done < n; b++, done++)
                if (!heap_tab.v[done].collected)
                    bits |= (uint64_t)1 << b;
            src[w++] = bits; /* 1 = still held here */
        }
        Py_BEGIN_ALLOW_THREADS rc = shmem_uint64_or_reduce(SHMEM_TEAM_WORLD, dst, src, w);
        Py_END_ALLOW_THREADS if (rc != 0) break;
        size_t r = 0;
        if (first) {
            *same_p = (dst[0] & dst[1]) == 0;
            r = 2;
        }
        for (size_t i = begin; i < done; i++)
            all[i] = !(dst[r + (i - begin) / 64] >> ((i - begin) % 64) & 1);
        first = 0;
    }
    if (rc != 0) {
        PyMem_Free(all);
        PyErr_SetString(shoalpy_error, "shoal: combining the collected arrays failed");
        return -1;
    }
    /* Take the agreed blocks out of the table with the GIL held (another
     * thread's SymBuf may be collected meanwhile), then give them back, oldest
     * first, as every PE does; without room for the list, free them in place
     * with the GIL held, so that every PE still frees the same blocks. */
    size_t keep = 0, nfree = 0;
    for (size_t i = 0; i < n; i++)
        nfree += all[i];
    void **gone = nfree > 0 ? PyMem_Malloc(nfree * sizeof(*gone)) : NULL;
    nfree = 0;
    for (size_t i = 0; i < n; i++) {
        symbuf_entry_t e = heap_tab.v[i];
        if (!all[i]) {
            heap_tab.v[keep++] = e;
            continue;
        }
        heap_tab.live_bytes -= e.size;
        heap_tab.kept_bytes -= e.size;
        if (gone != NULL)
            gone[nfree++] = e.ptr;
        else
            shmem_free(e.ptr);
    }
    heap_tab.n = keep;
    PyMem_Free(all);
    if (nfree > 0) {
        Py_BEGIN_ALLOW_THREADS for (size_t i = 0; i < nfree; i++) shmem_free(gone[i]);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(gone);
    return 0;
}

static void symbuf_dealloc(symbuf_t *self)
{
    if (self->ptr != NULL) { /* collected without shoal.free: given back by a later alloc */
        symbuf_entry_t *e = entry_find(self->seq);
        if (e != NULL && !e->collected) {
            e->collected = 1;
            heap_tab.kept_bytes += e->size;
        }
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *symbuf_get_freed(symbuf_t *self, void *closure)
{
    return PyBool_FromLong(self->ptr == NULL);
}

static PyGetSetDef symbuf_getset[] = {
    {"freed", (getter)symbuf_get_freed, NULL,
     "Whether shoal.free released this allocation (shoal.torch checks it for tensors).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject symbuf_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "shoal._core.SymBuf",
    .tp_basicsize = sizeof(symbuf_t),
    .tp_dealloc = (destructor)symbuf_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_getset = symbuf_getset,
    .tp_doc = "The owner of one symmetric allocation (the base of a symmetric array).",
};

int shoalpy_freed_error(const char *fn, const char *what)
{
    PyErr_Format(shoalpy_error,
                 "%s: %s: this array was freed (by shoal.free); its memory may belong to "
                 "another array now",
                 fn, what);
    return -1;
}

int shoalpy_symbuf_freed(PyObject *base)
{
    while (base != NULL && PyArray_Check(base))
        base = PyArray_BASE((PyArrayObject *)base);
    return base != NULL && Py_TYPE(base) == &symbuf_type && ((symbuf_t *)base)->ptr == NULL;
}

/* "shoal.zeros" when the Python function calling alloc is one of the package's
 * own (shoal/__init__.py), else "shoal.alloc": the call the user made. */
static void caller_name(char *buf, size_t len)
{
    snprintf(buf, len, "shoal.alloc");
    PyFrameObject *f = PyEval_GetFrame();
    if (f == NULL)
        return;
    PyCodeObject *code = PyFrame_GetCode(f);
    PyObject *file = PyObject_GetAttrString((PyObject *)code, "co_filename");
    PyObject *name = PyObject_GetAttrString((PyObject *)code, "co_name");
    const char *fs = file != NULL ? PyUnicode_AsUTF8(file) : NULL;
    const char *ns = name != NULL ? PyUnicode_AsUTF8(name) : NULL;
    size_t fl = fs != NULL ? strlen(fs) : 0;
    if (fs != NULL && ns != NULL && fl >= 17 && strcmp(fs + fl - 17, "shoal/__init__.py") == 0)
        snprintf(buf, len, "shoal.%s", ns);
    PyErr_Clear();
    Py_XDECREF(file);
    Py_XDECREF(name);
    Py_DECREF(code);
}

/* Every PE's requested size differs somewhere: raise on every PE, naming the
 * PEs whose size differs from PE 0's (so the traceback of such a PE shows
 * the call that differed). */
static void mismatch_error(const char *fn, size_t nbytes, PyArray_Dims *shape, PyArray_Descr *descr)
{
    size_t *sizes = shoalpy_collect_counts(SHMEM_TEAM_WORLD, nbytes);
    if (sizes == NULL)
        return;
    char list[256] = "";
    size_t used = 0;
    int shown = 0, npes = shmem_n_pes();
    for (int pe = 1; pe < npes; pe++) {
        if (sizes[pe] == sizes[0])
            continue;
        if (shown++ == 8) {
            used += (size_t)snprintf(list + used, sizeof(list) - used, ", ...");
            break;
        }
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%sPE %d: %zu",
                                 shown > 1 ? ", " : "", pe, sizes[pe]);
        if (used >= sizeof(list))
            break;
    }
    PyObject *shp = PyArray_IntTupleFromIntp(shape->len, shape->ptr);
    PyErr_Format(shoalpy_error,
                 "%s: the PEs asked for different sizes in a collective allocation: this PE "
                 "(%d) asked for %zu bytes (shape %R, dtype %S); PE 0 for %zu bytes, and "
                 "differing from it %s. Every PE must allocate the same shape and dtype, in the "
                 "same order",
                 fn, shmem_my_pe(), nbytes, shp ? shp : Py_None, (PyObject *)descr, sizes[0], list);
    Py_XDECREF(shp);
}

static void heap_full_error(const char *fn, size_t nbytes)
{
    size_t total, used, largest, collected = 0;
    shmemx_heap_info(&total, &used, &largest);
    for (size_t i = 0; i < heap_tab.n; i++)
        collected += heap_tab.v[i].collected != 0;
    PyErr_Format(PyExc_MemoryError,
                 "%s: the symmetric heap cannot hold %zu more bytes (%zu of %zu used, largest "
                 "free block %zu). It is held by %zu live array(s) (%zu bytes) and %zu (%zu bytes) "
                 "dropped on this PE but still referenced on another PE (given back once every "
                 "PE has dropped them). Release arrays you no longer need at once with "
                 "shoal.free(a) (collective) or shoal.torch.free(t), or raise "
                 "SHMEM_SYMMETRIC_SIZE",
                 fn, nbytes, used, total, largest, heap_tab.n - collected,
                 heap_tab.live_bytes - heap_tab.kept_bytes, collected, heap_tab.kept_bytes);
}

/* One collective allocation of nbytes (0 becomes 1): agree first (giving back
 * what every PE dropped, checking the size), then allocate; when the heap is
 * full, collect garbage and agree once more before giving up. Every PE takes
 * the same path: the heap is the same everywhere. NULL with an exception set. */
static symbuf_t *symbuf_new(size_t nbytes, PyArray_Dims *shape, PyArray_Descr *descr)
{
    char fn[64];
    int same = 1;
    const size_t size = nbytes ? nbytes : 1;
    if (symbuf_agree(size, &same) != 0)
        return NULL;
    if (!same) {
        caller_name(fn, sizeof(fn));
        mismatch_error(fn, size, shape, descr);
        return NULL;
    }
    symbuf_t *buf = PyObject_New(symbuf_t, &symbuf_type);
    if (buf == NULL)
        return NULL;
    buf->ptr = NULL;
    buf->size = size;
    for (int attempt = 0; attempt < 2; attempt++) {
        void *p = NULL;
        size_t total, used, largest;
        shmemx_heap_info(&total, &used, &largest); /* the same on every PE */
        /* A request no free block can hold waits for the garbage collector
         * first (the library would grow the heap, or warn to raise
         * SHMEM_SYMMETRIC_SIZE, where dropping arrays may be the answer);
         * after it, the library grows the heap if it may. */
        if (largest >= size || attempt == 1) {
            Py_BEGIN_ALLOW_THREADS p = shmem_align(64, size);
            Py_END_ALLOW_THREADS
        }
        if (p != NULL) {
            if (entry_add(p, size, &buf->seq) != 0) {
                Py_BEGIN_ALLOW_THREADS shmem_free(p); /* every PE fails alike or not */
                Py_END_ALLOW_THREADS Py_DECREF(buf);
                return (symbuf_t *)PyErr_NoMemory();
            }
            buf->ptr = p;
            return buf;
        }
        if (attempt == 0) { /* arrays in reference cycles: drop them, then agree again */
            PyGC_Collect();
            if (symbuf_agree(size, &same) != 0) {
                Py_DECREF(buf);
                return NULL;
            }
        }
    }
    caller_name(fn, sizeof(fn));
    heap_full_error(fn, nbytes);
    Py_DECREF(buf);
    return NULL;
}

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
    symbuf_t *buf = symbuf_new(nbytes, &shape, descr);
    if (buf == NULL)
        goto free_descr;
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, descr, shape.len, shape.ptr, NULL, buf->ptr,
                                         NPY_ARRAY_CARRAY, NULL);
    descr = NULL; /* stolen */
    if (arr == NULL)
        Py_DECREF(buf); /* collected: a later alloc gives the memory back */
    else if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)buf) != 0)
        Py_CLEAR(arr); /* the base was stolen, and goes with the array */
    if (arr == NULL) {
        PyMem_Free(shape.ptr);
        return NULL;
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

/* shoal.free(a): a must be the whole array (or a view of all of it, as a
 * reshape or a transpose is); its SymBuf is marked freed, so any later use
 * of a or its views raises. 0, or -1 with an exception set. */
static int symbuf_release(PyObject *o)
{
    symbuf_t *buf = symbuf_of(o);
    if (buf == NULL) {
        PyErr_SetString(PyExc_ValueError, "shoal.free: the array was not made by shoal.empty, "
                                          "zeros, ones, full or array");
        return -1;
    }
    if (buf->ptr == NULL) {
        PyErr_SetString(PyExc_ValueError, "shoal.free: the array was already freed");
        return -1;
    }
    char *lo;
    size_t len;
    shoalpy_extent((PyArrayObject *)o, &lo, &len);
    if (lo != buf->ptr || (len != buf->size && !(len == 0 && buf->size == 1))) {
        PyErr_Format(PyExc_ValueError,
                     "shoal.free: the array is a part of a symmetric array (%zu of its %zu bytes, "
                     "from byte %td); only the whole array can be freed: pass the array that "
                     "shoal.zeros, empty, ones, full or array returned",
                     len, buf->size, lo - (char *)buf->ptr);
        return -1;
    }
    symbuf_entry_t *e = entry_find(buf->seq);
    if (e != NULL)
        entry_remove(e);
    void *p = buf->ptr;
    buf->ptr = NULL;
    Py_BEGIN_ALLOW_THREADS shmem_free(p);
    Py_END_ALLOW_THREADS return 0;
}

static PyObject *py_free(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal.free", 1, "a");
    PyObject *a[1];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    if (symbuf_release(a[0]) != 0)
        return NULL;
    Py_RETURN_NONE;
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

/* trace_begin(name) / trace_end(name=None): shmemx_trace_begin/_end, for
 * shoal.trace_range (shoal/__init__.py). */
static PyObject *py_trace_range(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                                int begin)
{
    SHOALPY_SIG(begin_sig, "shoal.trace_begin", 1, "name");
    SHOALPY_SIG(end_sig, "shoal.trace_end", 0, "name");
    PyObject *a[1];
    if (shoalpy_parse(begin ? &begin_sig : &end_sig, args, nargs, kwnames, a) != 0)
        return NULL;
    const char *name = NULL;
    if (a[0] != NULL && a[0] != Py_None) {
        if (!PyUnicode_Check(a[0]))
            return PyErr_Format(PyExc_TypeError, "%s: name must be a str, not %s",
                                begin ? begin_sig.fn : end_sig.fn, Py_TYPE(a[0])->tp_name);
        name = PyUnicode_AsUTF8(a[0]);
        if (name == NULL)
            return NULL;
    } else if (begin) {
        return PyErr_Format(PyExc_TypeError, "%s: name must be a str, not None", begin_sig.fn);
    }
    if (begin)
        shmemx_trace_begin(name);
    else
        shmemx_trace_end(name);
    shmemx_trace_caller(NULL);
    Py_RETURN_NONE;
}

static PyObject *py_trace_begin(PyObject *m, SHOALPY_ARGS)
{
    return py_trace_range(args, nargs, kwnames, 1);
}

static PyObject *py_trace_end(PyObject *m, SHOALPY_ARGS)
{
    return py_trace_range(args, nargs, kwnames, 0);
}

static PyObject *py_kept_bytes(PyObject *m, PyObject *unused)
{
    return PyLong_FromSize_t(heap_tab.kept_bytes);
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
    shmemx_trace_caller("shoal.barrier_all");
    Py_BEGIN_ALLOW_THREADS shmem_barrier_all();
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

static PyObject *py_sync_all(PyObject *m, PyObject *unused)
{
    shmemx_trace_caller("shoal.sync_all");
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
    SHOALPY_FASTCALL("trace_begin", py_trace_begin,
                     "trace_begin(name)\n--\n\nOpen a user range on this thread's trace track "
                     "(shoal.trace_range is the with-statement form)."),
    SHOALPY_FASTCALL("trace_end", py_trace_end,
                     "trace_end(name=None)\n--\n\nClose this thread's latest open trace range."),
    {"kept_bytes", py_kept_bytes, METH_NOARGS,
     "kept_bytes()\n--\n\nBytes of arrays this PE collected without shoal.free that are not given "
     "back yet (the next allocation gives back what every PE has collected)."},
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
    shmemx_trace_caller("import shoal"); /* the module's own allocations, traced */
    if (forget_job_key() < 0)
        return NULL;
    shoalpy_types_init();
    if (PyType_Ready(&symbuf_type) < 0)
        return NULL;
    heap_tab.red_src = shmem_malloc(2 * SYMBUF_RED_WORDS * sizeof(uint64_t));
    if (heap_tab.red_src == NULL) {
        PyErr_SetString(PyExc_ImportError, "shoal: no symmetric memory for the allocation table");
        return NULL;
    }
    heap_tab.red_dst = heap_tab.red_src + SYMBUF_RED_WORDS;
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
        PyModule_AddFunctions(m, shoalpy_register_methods) < 0 ||
        shoalpy_register_add_types(m) < 0 || PyModule_AddFunctions(m, shoalpy_team_methods) < 0 ||
        shoalpy_team_add_types(m) < 0 || shoalpy_cmp_add_enum(m) < 0)
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
