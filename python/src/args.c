/*
 * The one argument parser of shoal._core. Every entry point takes
 * (args, nargs, kwnames) (METH_FASTCALL | METH_KEYWORDS) and describes its
 * parameters with a static shoalpy_sig_t; shoalpy_parse (shoalpy.h) handles
 * the common positional call inline, and this file the rest: keywords,
 * missing, repeated and unknown arguments, each raised as a TypeError that
 * names the call (shoal.put) and the parameter as Python spells it.
 *
 * Also here: the comparison argument of waits and signal waits, which takes
 * shoal.CMP_* integers, shoal.Cmp members and strings, and the Cmp enum.
 */
#include "shoalpy.h"

#include <string.h>

/* The interned name objects of s, made once; -1 with an exception set. */
static int sig_intern(shoalpy_sig_t *s)
{
    if (s->n == 0 || s->kw[s->n - 1] != NULL) /* made in order: the last one means all */
        return 0;
    for (int i = 0; i < s->n; i++) {
        if (s->kw[i] != NULL)
            continue; /* made by an earlier call that then ran out of memory */
        PyObject *k = PyUnicode_InternFromString(s->names[i]);
        if (k == NULL)
            return -1;
        s->kw[i] = k; /* kept for the life of the process, like the table itself */
    }
    return 0;
}

/* The parameter index called `key`, or -1. */
static int sig_find(const shoalpy_sig_t *s, PyObject *key)
{
    for (int i = 0; i < s->n; i++)
        if (s->kw[i] == key)
            return i;
    for (int i = 0; i < s->n; i++) { /* a name built at run time (**kwargs) */
        int eq = PyUnicode_Compare(s->kw[i], key);
        if (eq == 0)
            return i;
        if (eq == -1 && PyErr_Occurred())
            PyErr_Clear();
    }
    return -1;
}

static int count_error(const shoalpy_sig_t *s, Py_ssize_t given)
{
    if (s->required == s->n)
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s (%zd given)", s->fn,
                     s->n, s->n == 1 ? "" : "s", given);
    else
        PyErr_Format(PyExc_TypeError, "%s() takes %d to %d positional arguments (%zd given)", s->fn,
                     s->required, s->n, given);
    return -1;
}

int shoalpy_parse_kw(shoalpy_sig_t *s, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     PyObject **out)
{
    if (nargs > s->n)
        return count_error(s, nargs);
    for (Py_ssize_t i = 0; i < s->n; i++)
        out[i] = i < nargs ? args[i] : NULL;
    const Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nkw > 0 && sig_intern(s) != 0)
        return -1;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        const int i = sig_find(s, key);
        if (i < 0) {
            if (s->n == 0)
                PyErr_Format(PyExc_TypeError, "%s() takes no arguments (keyword %R given)", s->fn,
                             key);
            else
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", s->fn,
                             key);
            return -1;
        }
        if (out[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", s->fn,
                         s->names[i]);
            return -1;
        }
        out[i] = args[nargs + k];
    }
    for (int i = 0; i < s->required; i++)
        if (out[i] == NULL) {
            if (s->required < s->n)
                PyErr_Format(PyExc_TypeError,
                             "%s() takes %d to %d arguments; '%s' (position %d) is missing", s->fn,
                             s->required, s->n, s->names[i], i + 1);
            else
                PyErr_Format(PyExc_TypeError,
                             "%s() takes %d arguments; '%s' (position %d) is missing", s->fn,
                             s->required, s->names[i], i + 1);
            return -1;
        }
    return 0;
}

/* ---- cmp ------------------------------------------------------------------------- */

/* Each comparison's spellings: the operator and the short name (the style of
 * shoal's op names: lower case). */
static const struct {
    const char *sym, *name;
    int value;
} cmp_names[] = {
    {"==", "eq", SHMEM_CMP_EQ}, {"!=", "ne", SHMEM_CMP_NE}, {">", "gt", SHMEM_CMP_GT},
    {">=", "ge", SHMEM_CMP_GE}, {"<", "lt", SHMEM_CMP_LT},  {"<=", "le", SHMEM_CMP_LE},
};
#define CMP_COUNT (sizeof(cmp_names) / sizeof(cmp_names[0]))

int shoalpy_cmp_arg(PyObject *o, const char *fn, int *cmp_p)
{
    if (PyUnicode_Check(o)) {
        const char *name = PyUnicode_AsUTF8(o);
        if (name == NULL)
            return -1;
        for (size_t i = 0; i < CMP_COUNT; i++)
            if (strcmp(name, cmp_names[i].sym) == 0 || strcmp(name, cmp_names[i].name) == 0) {
                *cmp_p = cmp_names[i].value;
                return 0;
            }
        PyErr_Format(PyExc_ValueError,
                     "%s: cmp %R is not a comparison; use one of '==', '!=', '>', '>=', '<', "
                     "'<=' (or 'eq', 'ne', 'gt', 'ge', 'lt', 'le', or shoal.Cmp.EQ ...)",
                     fn, o);
        return -1;
    }
    if (!PyLong_Check(o) && !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: cmp must be a string such as '>=', a shoal.Cmp or a shoal.CMP_* "
                     "constant, not %.100s",
                     fn, Py_TYPE(o)->tp_name);
        return -1;
    }
    long long c;
    if (shoalpy_int_arg(o, fn, "cmp", &c) != 0)
        return -1;
    for (size_t i = 0; i < CMP_COUNT; i++)
        if (c == cmp_names[i].value) {
            *cmp_p = (int)c;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "%s: cmp %lld is not a comparison; use shoal.CMP_EQ, CMP_NE, CMP_GT, CMP_GE, "
                 "CMP_LT or CMP_LE, a shoal.Cmp, or a string such as '>='",
                 fn, c);
    return -1;
}

int shoalpy_cmp_add_enum(PyObject *m)
{
    PyObject *enum_mod = PyImport_ImportModule("enum");
    if (enum_mod == NULL)
        return -1;
    PyObject *members = PyList_New(0), *cls = NULL;
    if (members == NULL)
        goto out;
    for (size_t i = 0; i < CMP_COUNT; i++) {
        char upper[3] = {(char)(cmp_names[i].name[0] - 'a' + 'A'),
                         (char)(cmp_names[i].name[1] - 'a' + 'A'), 0};
        PyObject *pair = Py_BuildValue("(si)", upper, cmp_names[i].value);
        if (pair == NULL || PyList_Append(members, pair) != 0) {
            Py_XDECREF(pair);
            goto out;
        }
        Py_DECREF(pair);
    }
    cls = PyObject_CallMethod(enum_mod, "IntEnum", "sO", "Cmp", members);
    if (cls == NULL)
        goto out;
    PyObject *mod = PyUnicode_FromString("shoal");
    PyObject *doc = PyUnicode_FromString("The comparisons of waits and tests: EQ, NE, GT, GE, LT, "
                                         "LE (equal to shoal.CMP_*).");
    const int rc = mod == NULL || doc == NULL || PyObject_SetAttrString(cls, "__module__", mod) ||
                   PyObject_SetAttrString(cls, "__doc__", doc) ||
                   PyModule_AddObjectRef(m, "Cmp", cls) < 0;
    Py_XDECREF(mod);
    Py_XDECREF(doc);
    (void)rc; /* an exception is set when rc is nonzero */
out:
    Py_XDECREF(cls);
    Py_XDECREF(members);
    Py_DECREF(enum_mod);
    return PyErr_Occurred() ? -1 : 0;
}
