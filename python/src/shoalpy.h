/*
 * The shared parts of shoal._core, the CPython extension behind the Python
 * package: the per-dtype operation table (built from the type tables in
 * include/shmem/types.h), argument helpers that raise instead of ending the
 * job, and the Team and Context types. Each family lives in its own file
 * (rma.c, amo.c, sync.c, coll.c, team.c); module.c holds init and arrays.
 *
 * Every entry point uses the fast-call convention with keywords and parses
 * its arguments with one parser (args.c; positional or keyword, by the names
 * in its docstring's text signature), then checks them in C: an array argument is checked with
 * PyArray_Check, its dtype number indexes shoalpy_types[] and the address goes through
 * shmemx_addr_check, which returns the library's own message where the C routine would end the job.
 * Bad input therefore raises before any library call is made, and the library is never left
 * half-way through an operation.
 */
#ifndef SHOALPY_H
#define SHOALPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL shoalpy_ARRAY_API
#ifndef SHOALPY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <shmem.h>
#include <shmemx.h>

#define SHOAL_PY_LIKELY(x) __builtin_expect(!!(x), 1)

/* shoal.Error: a library error, carrying the library's message. */
extern PyObject *shoalpy_error;

/* The AMO operations; each has one wrapper per allowed dtype. */
typedef enum {
    SHOALPY_AMO_FETCH,
    SHOALPY_AMO_SET,
    SHOALPY_AMO_SWAP, /* extended */
    SHOALPY_AMO_COMPARE_SWAP,
    SHOALPY_AMO_FETCH_INC,
    SHOALPY_AMO_INC, /* standard */
    SHOALPY_AMO_FETCH_ADD,
    SHOALPY_AMO_ADD,
    SHOALPY_AMO_FETCH_AND,
    SHOALPY_AMO_AND,
    SHOALPY_AMO_FETCH_OR, /* bitwise */
    SHOALPY_AMO_OR,
    SHOALPY_AMO_FETCH_XOR,
    SHOALPY_AMO_XOR,
    SHOALPY_AMO_FETCH_NBI,
    SHOALPY_AMO_SWAP_NBI,
    SHOALPY_AMO_COMPARE_SWAP_NBI,
    SHOALPY_AMO_FETCH_INC_NBI,
    SHOALPY_AMO_FETCH_ADD_NBI,
    SHOALPY_AMO_FETCH_AND_NBI,
    SHOALPY_AMO_FETCH_OR_NBI,
    SHOALPY_AMO_FETCH_XOR_NBI,
    SHOALPY_AMO_COUNT
} shoalpy_amo_t;

/* The team reductions, in the order of shoal's op names. */
typedef enum {
    SHOALPY_OP_AND,
    SHOALPY_OP_OR,
    SHOALPY_OP_XOR,
    SHOALPY_OP_MAX,
    SHOALPY_OP_MIN,
    SHOALPY_OP_SUM,
    SHOALPY_OP_PROD,
    SHOALPY_OP_INSCAN,
    SHOALPY_OP_EXSCAN,
    SHOALPY_OP_COUNT
} shoalpy_op_t;

/* A scalar of any supported dtype. */
typedef union {
    signed char sc;
    unsigned char uc;
    short s;
    unsigned short us;
    int i;
    unsigned u;
    long l;
    unsigned long ul;
    long long ll;
    unsigned long long ull;
    float f;
    double d;
    long double ld;
    float _Complex cf;
    double _Complex cd;
    char bytes[32];
} shoalpy_scalar_t;

typedef void (*shoalpy_p_fn)(shmem_ctx_t ctx, void *dest, const void *value, int pe);
typedef void (*shoalpy_g_fn)(shmem_ctx_t ctx, void *out, const void *source, int pe);
/* One signature for every AMO: fetch is where a fetched value goes. */
typedef void (*shoalpy_amo_fn)(shmem_ctx_t ctx, void *fetch, void *dest, const void *value,
                               const void *cond, int pe);
typedef int (*shoalpy_reduce_fn)(shmem_team_t team, void *dest, const void *source, size_t n);
/* The point-to-point synchronization family (wait_until and test). */
typedef struct {
    void (*wait_until)(void *ivar, int cmp, const void *value);
    int (*test)(void *ivar, int cmp, const void *value);
    void (*wait_until_all)(void *ivars, size_t n, const int *status, int cmp, const void *value);
    size_t (*wait_until_any)(void *ivars, size_t n, const int *status, int cmp, const void *value);
    size_t (*wait_until_some)(void *ivars, size_t n, size_t *idx, const int *status, int cmp,
                              const void *value);
    void (*wait_until_all_vector)(void *ivars, size_t n, const int *status, int cmp,
                                  const void *values);
    size_t (*wait_until_any_vector)(void *ivars, size_t n, const int *status, int cmp,
                                    const void *values);
    size_t (*wait_until_some_vector)(void *ivars, size_t n, size_t *idx, const int *status, int cmp,
                                     const void *values);
    int (*test_all)(void *ivars, size_t n, const int *status, int cmp, const void *value);
    size_t (*test_any)(void *ivars, size_t n, const int *status, int cmp, const void *value);
    size_t (*test_some)(void *ivars, size_t n, size_t *idx, const int *status, int cmp,
                        const void *value);
    int (*test_all_vector)(void *ivars, size_t n, const int *status, int cmp, const void *values);
    size_t (*test_any_vector)(void *ivars, size_t n, const int *status, int cmp,
                              const void *values);
    size_t (*test_some_vector)(void *ivars, size_t n, size_t *idx, const int *status, int cmp,
                               const void *values);
} shoalpy_sync_ops_t;

/* What Shoal can do with one NumPy dtype (indexed by type number); a NULL
 * entry means the specification's tables do not allow the dtype there. */
typedef struct {
    const char *name; /* the OpenSHMEM TYPENAME, for messages */
    shoalpy_p_fn p;
    shoalpy_g_fn g;
    shoalpy_amo_fn amo[SHOALPY_AMO_COUNT];
    shoalpy_reduce_fn reduce[SHOALPY_OP_COUNT];
    const shoalpy_sync_ops_t *sync;
} shoalpy_type_t;

extern shoalpy_type_t shoalpy_types[NPY_NTYPES];
void shoalpy_types_init(void);

/* ---- Team and Context objects (team.c) ------------------------------------ */
typedef struct {
    PyObject_HEAD shmem_team_t team;
    int predefined; /* WORLD and SHARED are never destroyed */
} shoalpy_team_obj_t;

typedef struct {
    PyObject_HEAD shmem_ctx_t ctx;
    PyObject *team; /* the Team the context was made on, or NULL for WORLD */
} shoalpy_ctx_obj_t;

extern PyTypeObject shoalpy_team_type;
extern PyTypeObject shoalpy_ctx_type;
int shoalpy_team_add_types(PyObject *module);
extern PyMethodDef shoalpy_team_methods[];

/* The team argument of a collective (NULL or None: WORLD); 0 or -1 raised. */
int shoalpy_team_arg(PyObject *o, const char *fn, shmem_team_t *team_p);

/* Every team member's `mine` (collective over the team), in team order, in
 * symmetric scratch memory made at import; NULL with an exception set. */
size_t *shoalpy_collect_counts(shmem_team_t team, size_t mine);
int shoalpy_scratch_init(void);

/* The PE argument of an RMA/AMO call, with its optional context: checks the
 * range against the context's team, and gives the world PE for the address
 * check. Returns 0, or -1 with an exception set. */
int shoalpy_pe_ctx_args(PyObject *pe_obj, PyObject *ctx_obj, const char *fn, int *pe_p,
                        int *world_pe_p, shmem_ctx_t *ctx_p);

/* ---- argument helpers (module.c) ------------------------------------------ */
/* `o` as an ndarray, or TypeError naming the argument. */
int shoalpy_array_arg(PyObject *o, const char *fn, const char *what, PyArrayObject **a_p);
/* Raises shoal.Error with the library's message unless `len` bytes at addr are
 * symmetric and reachable on world PE pe. */
int shoalpy_check_addr(const char *fn, const char *what, const void *addr, size_t len, int pe);
/* The symmetric array `o` whose whole extent (any strides) is on PE pe. */
int shoalpy_symmetric_arg(PyObject *o, const char *fn, const char *what, int pe,
                          PyArrayObject **a_p);
/* Array calls that work on the first element (p, g, atomics, signals,
 * locks): ValueError for an empty array, else the address check of one
 * element on world PE pe. */
int shoalpy_check_elem(const char *fn, const char *what, PyArrayObject *a, int pe);
/* Whether an array base chain ends at a SymBuf freed by shoal.free, and the
 * shoal.Error saying so (module.c); shoalpy_array_arg checks it. */
int shoalpy_symbuf_freed(PyObject *base);
int shoalpy_freed_error(const char *fn, const char *what);
/* TypeError naming the dtype and the family it is not allowed in. */
int shoalpy_dtype_error(const char *fn, PyArrayObject *a, const char *family);
/* A Python number converted to the dtype `type_num` (range checked). */
int shoalpy_to_scalar(PyObject *o, int type_num, const char *fn, const char *what,
                      shoalpy_scalar_t *out);
PyObject *shoalpy_from_scalar(int type_num, const void *value);
int shoalpy_int_arg(PyObject *o, const char *fn, const char *what, long long *out);
/* cmp: an integer (shoal.CMP_EQ, a shoal.Cmp member) or a string ("==", "eq", ...). */
int shoalpy_cmp_arg(PyObject *o, const char *fn, int *cmp_p);
/* Adds shoal.Cmp (an IntEnum: EQ, NE, GT, GE, LT, LE) to the module. */
int shoalpy_cmp_add_enum(PyObject *module);

/* ---- the argument parser (args.c) ----------------------------------------- */
/* One entry point's parameters, in order, each positional or keyword; the
 * first `required` must be given, the rest default to NULL (the entry point
 * treats NULL as the documented default). The names are the ones in the
 * docstring's text signature and in docs/python.md. `kw` caches the names as
 * interned strings on the first call with keywords, so CPython's own
 * (interned) keyword names match by pointer. */
#define SHOALPY_MAX_PARAMS 8
typedef struct {
    const char *fn; /* "shoal.put": named in every message */
    const char *names[SHOALPY_MAX_PARAMS];
    unsigned char n, required;
    PyObject *kw[SHOALPY_MAX_PARAMS];
} shoalpy_sig_t;

/* The slow path: keywords, or a count out of range (raises naming fn and the
 * parameter). */
int shoalpy_parse_kw(shoalpy_sig_t *s, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     PyObject **out);

/* Fills out[0 .. s->n) with the arguments by position (NULL where not given);
 * 0, or -1 with TypeError set. Positional calls in range stay inline.
 * Every entry point parses first, so this is also where the library learns
 * the Python name its calls are traced under (shoal.put, not the
 * shmem_ctx_putmem it calls); the entry points without arguments name
 * themselves with shmemx_trace_caller. */
static inline int shoalpy_parse(shoalpy_sig_t *s, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames, PyObject **out)
{
    shmemx_trace_caller(s->fn);
    if (SHOAL_PY_LIKELY(kwnames == NULL && nargs >= s->required && nargs <= s->n)) {
        Py_ssize_t i = 0;
        for (; i < nargs; i++)
            out[i] = args[i];
        for (; i < s->n; i++)
            out[i] = NULL;
        return 0;
    }
    return shoalpy_parse_kw(s, args, nargs, kwnames, out);
}

/* Declares `static shoalpy_sig_t var` for entry point fn with `required`
 * required parameters followed by the optional ones. */
#define SHOALPY_SIG(var, fn, required, ...)                                                        \
    static shoalpy_sig_t var = {fn,                                                                \
                                {__VA_ARGS__},                                                     \
                                sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *),      \
                                required,                                                          \
                                {NULL}}
/* The extent in bytes an array spans from its lowest byte, and that byte. */
void shoalpy_extent(PyArrayObject *a, char **lo_p, size_t *len_p);

/* Blocking calls release the GIL from this many bytes on, and always for waits. */
#define SHOALPY_NOGIL_BYTES (64 * 1024)

extern PyMethodDef shoalpy_rma_methods[];
extern PyMethodDef shoalpy_amo_methods[];
extern PyMethodDef shoalpy_sync_methods[];
extern PyMethodDef shoalpy_coll_methods[];
extern PyMethodDef shoalpy_bench_methods[];
extern PyMethodDef shoalpy_register_methods[];
/* Readies the type behind shoal.register's views (register.c). */
int shoalpy_register_add_types(PyObject *module);

/* A method table row for an entry point taking (self, args, nargs, kwnames).
 * Its doc starts with the text signature, "name(params)\n--\n\n", so that
 * inspect.signature and help() show the parameters. */
#define SHOALPY_FASTCALL(name, fn, doc)                                                            \
    {                                                                                              \
        name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc                  \
    }

/* The fast-call-with-keywords parameter list every entry point has. */
#define SHOALPY_ARGS PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

#endif
