/*
 * cxx_complex_c99: the complex reductions from C++ with C's complex types.
 * Programs written for C keep double _Complex and float _Complex arrays
 * when built as C++ (g++ and clang++ accept _Complex as an extension), and
 * public test suites do so; shmem.h takes them as well as std::complex<T>
 * (shmem/complex_cxx.h). This calls the team sum/prod reductions, the
 * scans and the active-set sum/prod _to_all forms with _Complex arrays,
 * and, in the same program, a std::complex<double> reduction, a nullptr
 * call with no elements and the profiling names, which must still resolve.
 * Every PE contributes values that depend on its number, so each result
 * combines every PE's data; real and imaginary parts are checked apart.
 */
#include <pshmem.h>
#include <shmem.h>

#include <cmath>
#include <complex>
#include <cstdio>

#define N 4

/* _Complex is an extension in C++: named once, with __extension__. */
__extension__ typedef double _Complex zc_t;
__extension__ typedef float _Complex fc_t;

static zc_t zsrc[N], zdst[N], zwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static fc_t fsrc[N], fdst[N], fwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static std::complex<double> ssrc[N], sdst[N];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static zc_t zc(double re, double im)
{
    zc_t z;
    __real__ z = re;
    __imag__ z = im;
    return z;
}

/* PE p's element i. */
static std::complex<double> val(int p, int i)
{
    return {double(p + 1), double(i - p)};
}

static void expect_ret(const char *what, int ret)
{
    if (ret != 0) {
        std::fprintf(stderr, "FAIL PE %d/%d: %s returned %d\n", shmem_my_pe(), shmem_n_pes(), what,
                     ret);
        shmem_global_exit(1);
    }
}

/* tol is relative to the size of the expected value (at least 1). */
static void expect(const char *what, int i, double re, double im, std::complex<double> want,
                   double tol)
{
    tol *= std::fmax(1.0, std::abs(want));
    if (std::fabs(re - want.real()) > tol || std::fabs(im - want.imag()) > tol) {
        std::fprintf(stderr, "FAIL PE %d/%d: %s[%d]: expected (%g,%g), seen (%g,%g)\n",
                     shmem_my_pe(), shmem_n_pes(), what, i, want.real(), want.imag(), re, im);
        shmem_global_exit(1);
    }
}

static void expect_z(const char *what, const zc_t *got, const std::complex<double> *want)
{
    for (int i = 0; i < N; i++)
        expect(what, i, __real__ got[i], __imag__ got[i], want[i], 1e-9);
}

static void expect_f(const char *what, const fc_t *got, const std::complex<double> *want)
{
    for (int i = 0; i < N; i++)
        expect(what, i, __real__ got[i], __imag__ got[i], want[i], 1e-3);
}

/* Sets this PE's sources to val(me, i) * scale and waits for every PE. */
static void fill(double scale)
{
    const int me = shmem_my_pe();
    for (int i = 0; i < N; i++) {
        std::complex<double> v = val(me, i) * scale;
        zsrc[i] = zc(v.real(), v.imag());
        __real__ fsrc[i] = float(v.real());
        __imag__ fsrc[i] = float(v.imag());
        ssrc[i] = v;
    }
    shmem_barrier_all();
}

int main()
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    std::complex<double> sum[N], prod[N], inscan[N], exscan[N];
    for (int i = 0; i < N; i++) {
        sum[i] = 0;
        prod[i] = 1;
        inscan[i] = 0;
        exscan[i] = 0;
        for (int p = 0; p < npes; p++) {
            sum[i] += val(p, i);
            prod[i] *= val(p, i) * 0.5;
            if (p <= me)
                inscan[i] += val(p, i);
            if (p < me)
                exscan[i] += val(p, i);
        }
    }

    fill(1.0);
    expect_ret("shmem_complexd_sum_reduce",
               shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zdst, zsrc, N));
    expect_z("shmem_complexd_sum_reduce (double _Complex)", zdst, sum);
    shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, N);
    expect_f("shmem_complexf_sum_reduce (float _Complex)", fdst, sum);
    /* std::complex in the same program still picks the routine itself. */
    shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, sdst, ssrc, N);
    for (int i = 0; i < N; i++)
        expect("shmem_complexd_sum_reduce (std::complex)", i, sdst[i].real(), sdst[i].imag(),
               sum[i], 1e-9);
    expect_ret("shmem_complexd_sum_reduce of no elements (nullptr)",
               shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, nullptr, nullptr, 0));
    shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, zdst, zsrc, N);
    expect_z("shmem_complexd_sum_inscan (double _Complex)", zdst, inscan);
    shmem_barrier_all();
    pshmem_complexf_sum_inscan(SHMEM_TEAM_WORLD, fdst, fsrc, N);
    expect_f("pshmem_complexf_sum_inscan (float _Complex)", fdst, inscan);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        zdst[i] = zc(-1, -1);
    shmem_barrier_all();
    shmem_complexd_sum_exscan(SHMEM_TEAM_WORLD, zdst, zsrc, N);
    if (me > 0) /* PE 0's exscan result is undefined */
        expect_z("shmem_complexd_sum_exscan (double _Complex)", zdst, exscan);

    fill(0.5);
    shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, zdst, zsrc, N);
    expect_z("shmem_complexd_prod_reduce (double _Complex)", zdst, prod);
    pshmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, N);
    expect_f("pshmem_complexf_prod_reduce (float _Complex)", fdst, prod);

    /* The deprecated active-set forms over every PE; each psync use is
     * separated by a barrier. */
    shmem_complexd_prod_to_all(zdst, zsrc, N, 0, 0, npes, zwrk, psync);
    expect_z("shmem_complexd_prod_to_all (double _Complex)", zdst, prod);
    shmem_barrier_all();
    shmem_complexf_prod_to_all(fdst, fsrc, N, 0, 0, npes, fwrk, psync);
    expect_f("shmem_complexf_prod_to_all (float _Complex)", fdst, prod);
    fill(1.0);
    shmem_complexd_sum_to_all(zdst, zsrc, N, 0, 0, npes, zwrk, psync);
    expect_z("shmem_complexd_sum_to_all (double _Complex)", zdst, sum);
    shmem_barrier_all();
    shmem_complexf_sum_to_all(fdst, fsrc, N, 0, 0, npes, fwrk, psync);
    expect_f("shmem_complexf_sum_to_all (float _Complex)", fdst, sum);

    shmem_barrier_all();
    if (me == 0)
        std::printf("PASS cxx_complex_c99 (%d PEs)\n", npes);
    shmem_finalize();
    return 0;
}
