/*
 * Every OpenSHMEM AMO from Python, on the first element of a symmetric array.
 * One table row per operation says which arguments it takes; one generic
 * routine parses them and calls the dtype's wrapper from shoalpy_types (NULL
 * where the specification's table has no row for the dtype: TypeError).
 *
 *   atomic_fetch(source, pe[, ctx]) -> value
 *   atomic_set / add / and / or / xor(dest, value, pe[, ctx])
 *   atomic_inc(dest, pe[, ctx]); atomic_fetch_inc(dest, pe[, ctx]) -> old
 *   atomic_swap / fetch_add / fetch_and / fetch_or / fetch_xor(dest, value, pe[, ctx]) -> old
 *   atomic_compare_swap(dest, cond, value, pe[, ctx]) -> old
 *   the _nbi fetching forms take a local `fetch` array first and return None;
 *   the old value is in fetch[0] after the next quiet.
 */
#include "shoalpy.h"

typedef struct {
    const char *name;
    const char *family; /* for the dtype error */
    unsigned char fetch_arg, cond, value, returns;
} amo_desc_t;

static const amo_desc_t amo_desc[SHOALPY_AMO_COUNT] = {
    [SHOALPY_AMO_FETCH] = {"shoal.atomic_fetch", "extended AMO", 0, 0, 0, 1},
    [SHOALPY_AMO_SET] = {"shoal.atomic_set", "extended AMO", 0, 0, 1, 0},
    [SHOALPY_AMO_SWAP] = {"shoal.atomic_swap", "extended AMO", 0, 0, 1, 1},
    [SHOALPY_AMO_COMPARE_SWAP] = {"shoal.atomic_compare_swap", "standard AMO", 0, 1, 1, 1},
    [SHOALPY_AMO_FETCH_INC] = {"shoal.atomic_fetch_inc", "standard AMO", 0, 0, 0, 1},
    [SHOALPY_AMO_INC] = {"shoal.atomic_inc", "standard AMO", 0, 0, 0, 0},
    [SHOALPY_AMO_FETCH_ADD] = {"shoal.atomic_fetch_add", "standard AMO", 0, 0, 1, 1},
    [SHOALPY_AMO_ADD] = {"shoal.atomic_add", "standard AMO", 0, 0, 1, 0},
    [SHOALPY_AMO_FETCH_AND] = {"shoal.atomic_fetch_and", "bitwise AMO", 0, 0, 1, 1},
    [SHOALPY_AMO_AND] = {"shoal.atomic_and", "bitwise AMO", 0, 0, 1, 0},
    [SHOALPY_AMO_FETCH_OR] = {"shoal.atomic_fetch_or", "bitwise AMO", 0, 0, 1, 1},
    [SHOALPY_AMO_OR] = {"shoal.atomic_or", "bitwise AMO", 0, 0, 1, 0},
    [SHOALPY_AMO_FETCH_XOR] = {"shoal.atomic_fetch_xor", "bitwise AMO", 0, 0, 1, 1},
    [SHOALPY_AMO_XOR] = {"shoal.atomic_xor", "bitwise AMO", 0, 0, 1, 0},
    [SHOALPY_AMO_FETCH_NBI] = {"shoal.atomic_fetch_nbi", "extended AMO", 1, 0, 0, 0},
    [SHOALPY_AMO_SWAP_NBI] = {"shoal.atomic_swap_nbi", "extended AMO", 1, 0, 1, 0},
    [SHOALPY_AMO_COMPARE_SWAP_NBI] = {"shoal.atomic_compare_swap_nbi", "standard AMO", 1, 1, 1, 0},
    [SHOALPY_AMO_FETCH_INC_NBI] = {"shoal.atomic_fetch_inc_nbi", "standard AMO", 1, 0, 0, 0},
    [SHOALPY_AMO_FETCH_ADD_NBI] = {"shoal.atomic_fetch_add_nbi", "standard AMO", 1, 0, 1, 0},
    [SHOALPY_AMO_FETCH_AND_NBI] = {"shoal.atomic_fetch_and_nbi", "bitwise AMO", 1, 0, 1, 0},
    [SHOALPY_AMO_FETCH_OR_NBI] = {"shoal.atomic_fetch_or_nbi", "bitwise AMO", 1, 0, 1, 0},
    [SHOALPY_AMO_FETCH_XOR_NBI] = {"shoal.atomic_fetch_xor_nbi", "bitwise AMO", 1, 0, 1, 0},
};

static inline PyObject *amo_call(shoalpy_amo_t op, PyObject *const *args, Py_ssize_t nargs)
{
    const amo_desc_t *o = &amo_desc[op];
    const Py_ssize_t fixed = 2 + o->fetch_arg + o->cond + o->value; /* + dest, pe */
    int pe, wpe;
    shmem_ctx_t ctx;
    PyArrayObject *dest, *fetch = NULL;
    shoalpy_scalar_t value, cond, result;
    if (shoalpy_nargs(o->name, nargs, fixed, fixed + 1) != 0 ||
        shoalpy_pe_ctx_args(args[fixed - 1], nargs > fixed ? args[fixed] : NULL, o->name, &pe, &wpe,
                            &ctx) != 0)
        return NULL;
    Py_ssize_t i = 0;
    if (o->fetch_arg && shoalpy_array_arg(args[i++], o->name, "fetch", &fetch) != 0)
        return NULL;
    if (shoalpy_array_arg(args[i++], o->name, "dest", &dest) != 0)
        return NULL;
    const int type = PyArray_TYPE(dest);
    const shoalpy_amo_fn f = shoalpy_types[type].amo[op];
    if (f == NULL)
        return shoalpy_dtype_error(o->name, dest, o->family), NULL;
    if (o->cond && shoalpy_to_scalar(args[i++], type, o->name, "cond", &cond) != 0)
        return NULL;
    if (o->value && shoalpy_to_scalar(args[i++], type, o->name, "value", &value) != 0)
        return NULL;
    const size_t size = (size_t)PyArray_ITEMSIZE(dest);
    void *dp = PyArray_DATA(dest);
    if (shoalpy_check_elem(o->name, "dest", dest, wpe) != 0)
        return NULL;
    if (((uintptr_t)dp & (size - 1)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s: dest is not aligned to its %zu-byte type", o->name,
                     size);
        return NULL;
    }
    void *fp = &result;
    if (fetch != NULL) {
        if (PyArray_TYPE(fetch) != type || !PyArray_ISWRITEABLE(fetch) || PyArray_SIZE(fetch) < 1) {
            PyErr_Format(PyExc_TypeError,
                         "%s: fetch must be a writable array of dest's dtype with an element",
                         o->name);
            return NULL;
        }
        fp = PyArray_DATA(fetch);
    }
    f(ctx, fp, dp, &value, &cond, pe);
    if (o->returns)
        return shoalpy_from_scalar(type, &result);
    Py_RETURN_NONE;
}

#define DEF_AMO(name, OP)                                                                          \
    static PyObject *py_##name(PyObject *m, PyObject *const *args, Py_ssize_t nargs)               \
    {                                                                                              \
        return amo_call(SHOALPY_AMO_##OP, args, nargs);                                            \
    }
DEF_AMO(fetch, FETCH)
DEF_AMO(set, SET)
DEF_AMO(swap, SWAP)
DEF_AMO(compare_swap, COMPARE_SWAP)
DEF_AMO(fetch_inc, FETCH_INC)
DEF_AMO(inc, INC)
DEF_AMO(fetch_add, FETCH_ADD)
DEF_AMO(add, ADD)
DEF_AMO(fetch_and, FETCH_AND)
DEF_AMO(and, AND)
DEF_AMO(fetch_or, FETCH_OR)
DEF_AMO(or, OR)
DEF_AMO(fetch_xor, FETCH_XOR)
DEF_AMO(xor, XOR)
DEF_AMO(fetch_nbi, FETCH_NBI)
DEF_AMO(swap_nbi, SWAP_NBI)
DEF_AMO(compare_swap_nbi, COMPARE_SWAP_NBI)
DEF_AMO(fetch_inc_nbi, FETCH_INC_NBI)
DEF_AMO(fetch_add_nbi, FETCH_ADD_NBI)
DEF_AMO(fetch_and_nbi, FETCH_AND_NBI)
DEF_AMO(fetch_or_nbi, FETCH_OR_NBI)
DEF_AMO(fetch_xor_nbi, FETCH_XOR_NBI)

#define AMO_ENTRY(name, doc) SHOALPY_FASTCALL("atomic_" #name, py_##name, doc)
PyMethodDef shoalpy_amo_methods[] = {
    AMO_ENTRY(fetch, "atomic_fetch(source, pe, ctx=None) -> source[0] on pe."),
    AMO_ENTRY(set, "atomic_set(dest, value, pe, ctx=None)."),
    AMO_ENTRY(swap, "atomic_swap(dest, value, pe, ctx=None) -> old value."),
    AMO_ENTRY(compare_swap, "atomic_compare_swap(dest, cond, value, pe, ctx=None) -> old value."),
    AMO_ENTRY(fetch_inc, "atomic_fetch_inc(dest, pe, ctx=None) -> old value."),
    AMO_ENTRY(inc, "atomic_inc(dest, pe, ctx=None)."),
    AMO_ENTRY(fetch_add, "atomic_fetch_add(dest, value, pe, ctx=None) -> old value."),
    AMO_ENTRY(add, "atomic_add(dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_and, "atomic_fetch_and(dest, value, pe, ctx=None) -> old value."),
    AMO_ENTRY(and, "atomic_and(dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_or, "atomic_fetch_or(dest, value, pe, ctx=None) -> old value."),
    AMO_ENTRY(or, "atomic_or(dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_xor, "atomic_fetch_xor(dest, value, pe, ctx=None) -> old value."),
    AMO_ENTRY(xor, "atomic_xor(dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_nbi, "atomic_fetch_nbi(fetch, source, pe, ctx=None): fetch[0] at quiet."),
    AMO_ENTRY(swap_nbi, "atomic_swap_nbi(fetch, dest, value, pe, ctx=None)."),
    AMO_ENTRY(compare_swap_nbi, "atomic_compare_swap_nbi(fetch, dest, cond, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_inc_nbi, "atomic_fetch_inc_nbi(fetch, dest, pe, ctx=None)."),
    AMO_ENTRY(fetch_add_nbi, "atomic_fetch_add_nbi(fetch, dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_and_nbi, "atomic_fetch_and_nbi(fetch, dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_or_nbi, "atomic_fetch_or_nbi(fetch, dest, value, pe, ctx=None)."),
    AMO_ENTRY(fetch_xor_nbi, "atomic_fetch_xor_nbi(fetch, dest, value, pe, ctx=None)."),
    {NULL, NULL, 0, NULL},
};
