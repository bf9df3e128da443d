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

/* One AMO: its parameters (dest or source, then cond and value where it takes
 * them, pe, ctx; the _nbi fetching forms start with fetch), the family named
 * in a dtype error, and whether it returns the fetched value. */
typedef struct {
    shoalpy_sig_t sig;
    const char *family;
    unsigned char fetch_arg, cond, value, returns;
} amo_desc_t;

#define AMO_SIG(name, required, ...)                                                               \
    {                                                                                              \
        "shoal." name, {__VA_ARGS__}, required + 1, required,                                      \
        {                                                                                          \
            NULL                                                                                   \
        }                                                                                          \
    }
#define ROW0(name, fam)                                                                            \
    {                                                                                              \
        AMO_SIG(name, 2, "dest", "pe", "ctx"), fam, 0, 0, 0, 1                                     \
    }
#define ROW0_VOID(name, fam)                                                                       \
    {                                                                                              \
        AMO_SIG(name, 2, "dest", "pe", "ctx"), fam, 0, 0, 0, 0                                     \
    }
#define ROW1(name, fam, ret)                                                                       \
    {                                                                                              \
        AMO_SIG(name, 3, "dest", "value", "pe", "ctx"), fam, 0, 0, 1, ret                          \
    }
#define ROW_NBI1(name, fam)                                                                        \
    {                                                                                              \
        AMO_SIG(name, 4, "fetch", "dest", "value", "pe", "ctx"), fam, 1, 0, 1, 0                   \
    }

static amo_desc_t amo_desc[SHOALPY_AMO_COUNT] = {
    [SHOALPY_AMO_FETCH] = {AMO_SIG("atomic_fetch", 2, "source", "pe", "ctx"), "extended AMO", 0, 0,
                           0, 1},
    [SHOALPY_AMO_SET] = ROW1("atomic_set", "extended AMO", 0),
    [SHOALPY_AMO_SWAP] = ROW1("atomic_swap", "extended AMO", 1),
    [SHOALPY_AMO_COMPARE_SWAP] = {AMO_SIG("atomic_compare_swap", 4, "dest", "cond", "value", "pe",
                                          "ctx"),
                                  "standard AMO", 0, 1, 1, 1},
    [SHOALPY_AMO_FETCH_INC] = ROW0("atomic_fetch_inc", "standard AMO"),
    [SHOALPY_AMO_INC] = ROW0_VOID("atomic_inc", "standard AMO"),
    [SHOALPY_AMO_FETCH_ADD] = ROW1("atomic_fetch_add", "standard AMO", 1),
    [SHOALPY_AMO_ADD] = ROW1("atomic_add", "standard AMO", 0),
    [SHOALPY_AMO_FETCH_AND] = ROW1("atomic_fetch_and", "bitwise AMO", 1),
    [SHOALPY_AMO_AND] = ROW1("atomic_and", "bitwise AMO", 0),
    [SHOALPY_AMO_FETCH_OR] = ROW1("atomic_fetch_or", "bitwise AMO", 1),
    [SHOALPY_AMO_OR] = ROW1("atomic_or", "bitwise AMO", 0),
    [SHOALPY_AMO_FETCH_XOR] = ROW1("atomic_fetch_xor", "bitwise AMO", 1),
    [SHOALPY_AMO_XOR] = ROW1("atomic_xor", "bitwise AMO", 0),
    [SHOALPY_AMO_FETCH_NBI] = {AMO_SIG("atomic_fetch_nbi", 3, "fetch", "source", "pe", "ctx"),
                               "extended AMO", 1, 0, 0, 0},
    [SHOALPY_AMO_SWAP_NBI] = ROW_NBI1("atomic_swap_nbi", "extended AMO"),
    [SHOALPY_AMO_COMPARE_SWAP_NBI] = {AMO_SIG("atomic_compare_swap_nbi", 5, "fetch", "dest", "cond",
                                              "value", "pe", "ctx"),
                                      "standard AMO", 1, 1, 1, 0},
    [SHOALPY_AMO_FETCH_INC_NBI] = {AMO_SIG("atomic_fetch_inc_nbi", 3, "fetch", "dest", "pe", "ctx"),
                                   "standard AMO", 1, 0, 0, 0},
    [SHOALPY_AMO_FETCH_ADD_NBI] = ROW_NBI1("atomic_fetch_add_nbi", "standard AMO"),
    [SHOALPY_AMO_FETCH_AND_NBI] = ROW_NBI1("atomic_fetch_and_nbi", "bitwise AMO"),
    [SHOALPY_AMO_FETCH_OR_NBI] = ROW_NBI1("atomic_fetch_or_nbi", "bitwise AMO"),
    [SHOALPY_AMO_FETCH_XOR_NBI] = ROW_NBI1("atomic_fetch_xor_nbi", "bitwise AMO"),
};

static inline PyObject *amo_call(shoalpy_amo_t op, SHOALPY_ARGS)
{
    amo_desc_t *o = &amo_desc[op];
    const char *fn = o->sig.fn;
    const int fixed = o->sig.required; /* the last required one is pe; ctx follows */
    int pe, wpe;
    shmem_ctx_t ctx;
    PyArrayObject *dest, *fetch = NULL;
    shoalpy_scalar_t value, cond, result;
    PyObject *a[SHOALPY_MAX_PARAMS];
    if (shoalpy_parse(&o->sig, args, nargs, kwnames, a) != 0 ||
        shoalpy_pe_ctx_args(a[fixed - 1], a[fixed], fn, &pe, &wpe, &ctx) != 0)
        return NULL;
    int i = 0;
    if (o->fetch_arg && shoalpy_array_arg(a[i++], fn, "fetch", &fetch) != 0)
        return NULL;
    const char *dest_name = o->sig.names[i];
    if (shoalpy_array_arg(a[i++], fn, dest_name, &dest) != 0)
        return NULL;
    const int type = PyArray_TYPE(dest);
    const shoalpy_amo_fn f = shoalpy_types[type].amo[op];
    if (f == NULL)
        return shoalpy_dtype_error(fn, dest, o->family), NULL;
    if (o->cond && shoalpy_to_scalar(a[i++], type, fn, "cond", &cond) != 0)
        return NULL;
    if (o->value && shoalpy_to_scalar(a[i++], type, fn, "value", &value) != 0)
        return NULL;
    const size_t size = (size_t)PyArray_ITEMSIZE(dest);
    void *dp = PyArray_DATA(dest);
    if (shoalpy_check_elem(fn, dest_name, dest, wpe) != 0)
        return NULL;
    if (((uintptr_t)dp & (size - 1)) != 0) {
        PyErr_Format(PyExc_ValueError, "%s: %s is not aligned to its %zu-byte type", fn, dest_name,
                     size);
        return NULL;
    }
    void *fp = &result;
    if (fetch != NULL) {
        if (PyArray_TYPE(fetch) != type || !PyArray_ISWRITEABLE(fetch) || PyArray_SIZE(fetch) < 1) {
            PyErr_Format(PyExc_TypeError,
                         "%s: fetch must be a writable array of %s's dtype with an element", fn,
                         dest_name);
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
    static PyObject *py_##name(PyObject *m, SHOALPY_ARGS)                                          \
    {                                                                                              \
        return amo_call(SHOALPY_AMO_##OP, args, nargs, kwnames);                                   \
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

/* The doc of each: its text signature, then what it does. */
#define AMO_ENTRY(name, sig, doc)                                                                  \
    SHOALPY_FASTCALL("atomic_" #name, py_##name, "atomic_" #name sig "\n--\n\n" doc)
PyMethodDef shoalpy_amo_methods[] = {
    AMO_ENTRY(fetch, "(source, pe, ctx=None)", "Return source[0] on PE pe."),
    AMO_ENTRY(set, "(dest, value, pe, ctx=None)", "Set dest[0] on PE pe to value."),
    AMO_ENTRY(swap, "(dest, value, pe, ctx=None)", "Set dest[0] on pe; return the old value."),
    AMO_ENTRY(compare_swap, "(dest, cond, value, pe, ctx=None)",
              "Set dest[0] on pe to value if it equals cond; return the old value."),
    AMO_ENTRY(fetch_inc, "(dest, pe, ctx=None)", "Add 1 to dest[0] on pe; return the old value."),
    AMO_ENTRY(inc, "(dest, pe, ctx=None)", "Add 1 to dest[0] on pe."),
    AMO_ENTRY(fetch_add, "(dest, value, pe, ctx=None)",
              "Add value to dest[0] on pe; return the old value."),
    AMO_ENTRY(add, "(dest, value, pe, ctx=None)", "Add value to dest[0] on pe."),
    AMO_ENTRY(fetch_and, "(dest, value, pe, ctx=None)",
              "dest[0] &= value on pe; return the old value."),
    AMO_ENTRY(and, "(dest, value, pe, ctx=None)", "dest[0] &= value on pe."),
    AMO_ENTRY(fetch_or, "(dest, value, pe, ctx=None)",
              "dest[0] |= value on pe; return the old value."),
    AMO_ENTRY(or, "(dest, value, pe, ctx=None)", "dest[0] |= value on pe."),
    AMO_ENTRY(fetch_xor, "(dest, value, pe, ctx=None)",
              "dest[0] ^= value on pe; return the old value."),
    AMO_ENTRY(xor, "(dest, value, pe, ctx=None)", "dest[0] ^= value on pe."),
    AMO_ENTRY(fetch_nbi, "(fetch, source, pe, ctx=None)",
              "atomic_fetch into fetch[0], complete at the next quiet."),
    AMO_ENTRY(swap_nbi, "(fetch, dest, value, pe, ctx=None)",
              "atomic_swap; the old value is in fetch[0] after the next quiet."),
    AMO_ENTRY(compare_swap_nbi, "(fetch, dest, cond, value, pe, ctx=None)",
              "atomic_compare_swap; the old value is in fetch[0] after the next quiet."),
    AMO_ENTRY(fetch_inc_nbi, "(fetch, dest, pe, ctx=None)",
              "atomic_fetch_inc; the old value is in fetch[0] after the next quiet."),
    AMO_ENTRY(fetch_add_nbi, "(fetch, dest, value, pe, ctx=None)",
              "atomic_fetch_add; the old value is in fetch[0] after the next quiet."),
    AMO_ENTRY(fetch_and_nbi, "(fetch, dest, value, pe, ctx=None)",
              "atomic_fetch_and; the old value is in fetch[0] after the next quiet."),
    AMO_ENTRY(fetch_or_nbi, "(fetch, dest, value, pe, ctx=None)",
              "atomic_fetch_or; the old value is in fetch[0] after the next quiet."),
    AMO_ENTRY(fetch_xor_nbi, "(fetch, dest, value, pe, ctx=None)",
              "atomic_fetch_xor; the old value is in fetch[0] after the next quiet."),
    {NULL, NULL, 0, NULL},
};
