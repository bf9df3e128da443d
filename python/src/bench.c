/*
 * shoal._core._bench_c: the C side of bench/programs/py_overhead.py. Times the same
 * calls the benchmark makes from Python, from C in the same process, so the
 * table compares the two in one run on one machine state. Not API.
 */
#include "shoalpy.h"

#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* _bench_c(op, iters, pe, remote, local) -> seconds per call. */
static PyObject *py_bench_c(PyObject *m, SHOALPY_ARGS)
{
    SHOALPY_SIG(sig, "shoal._core._bench_c", 5, "op", "iters", "pe", "remote", "local");
    long long iters, pe;
    PyArrayObject *r, *l;
    PyObject *a[5];
    if (shoalpy_parse(&sig, args, nargs, kwnames, a) != 0)
        return NULL;
    args = a;
    if (!PyUnicode_Check(args[0]) || shoalpy_int_arg(args[1], "_bench_c", "iters", &iters) != 0 ||
        shoalpy_int_arg(args[2], "_bench_c", "pe", &pe) != 0 ||
        shoalpy_symmetric_arg(args[3], "_bench_c", "remote", (int)pe, &r) != 0 ||
        shoalpy_array_arg(args[4], "_bench_c", "local", &l) != 0)
        return NULL;
    const char *op = PyUnicode_AsUTF8(args[0]);
    long *rp = PyArray_DATA(r), *lp = PyArray_DATA(l), sink = 0;
    size_t nb = (size_t)PyArray_NBYTES(l);
    double t0 = 0, t1 = 0;
    Py_BEGIN_ALLOW_THREADS t0 = now_s();
    if (strcmp(op, "p") == 0)
        for (long long i = 0; i < iters; i++)
            shmem_long_p(rp, (long)i, (int)pe);
    else if (strcmp(op, "get") == 0)
        for (long long i = 0; i < iters; i++)
            shmem_getmem(lp, rp, 8, (int)pe);
    else if (strcmp(op, "fetch_add") == 0)
        for (long long i = 0; i < iters; i++)
            sink += shmem_long_atomic_fetch_add(rp, 1, (int)pe);
    else if (strcmp(op, "barrier_all") == 0)
        for (long long i = 0; i < iters; i++)
            shmem_barrier_all();
    else if (strcmp(op, "put") == 0)
        for (long long i = 0; i < iters; i++)
            shmem_putmem(rp, lp, nb, (int)pe);
    t1 = now_s();
    Py_END_ALLOW_THREADS(void) sink;
    return PyFloat_FromDouble((t1 - t0) / (double)iters);
}

PyMethodDef shoalpy_bench_methods[] = {
    SHOALPY_FASTCALL("_bench_c", py_bench_c,
                     "_bench_c(op, iters, pe, remote, local)\n--\n\n"
                     "C timing loop for bench/programs/py_overhead.py (not API)."),
    {NULL, NULL, 0, NULL},
};
