/*
 * cxx_complex: the complex reductions from C++ (built with g++ and clang++).
 * C++ callers pass std::complex<double> * and std::complex<float> * to
 * shmem_complexd_* and shmem_complexf_*: team sum/prod reductions, the
 * active-set sum/prod _to_all forms and the sum scan. Every PE contributes
 * values that depend on its number, so each result combines every PE's data.
 */
#include <shmem.h>

#include <complex>
#include <cstdio>
#include <cstdlib>

#define N 4

static std::complex<double> zsrc[N], zdst[N], zwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static std::complex<float> csrc[N], cdst[N], cwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static void fail(const char *what, int i, std::complex<double> seen, std::complex<double> want) {
  std::fprintf(stderr, "FAIL PE %d/%d: %s[%d]: expected (%g,%g), seen (%g,%g)\n", shmem_my_pe(),
               shmem_n_pes(), what, i, want.real(), want.imag(), seen.real(), seen.imag());
  shmem_global_exit(1);
}

template <typename T> static void expect(const char *what, const T *got, const T *want) {
  for (int i = 0; i < N; i++)
    if (std::abs(std::complex<double>(got[i]) - std::complex<double>(want[i])) > 1e-3)
      fail(what, i, got[i], want[i]);
}

/* PE p's element i. */
static std::complex<double> val(int p, int i) { return {double(p + 1), double(i - p)}; }

int main() {
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
    psync[i] = SHMEM_SYNC_VALUE;
  std::complex<double> zsum[N], zprod[N], zscan[N];
  std::complex<float> csum[N], cprod[N];
  for (int i = 0; i < N; i++) {
    zsrc[i] = val(me, i);
    csrc[i] = std::complex<float>(val(me, i));
    zsum[i] = 0;
    zprod[i] = 1;
    zscan[i] = 0;
    for (int p = 0; p < npes; p++) {
      zsum[i] += val(p, i);
      zprod[i] *= val(p, i) * 0.5;
      if (p <= me)
        zscan[i] += val(p, i);
    }
    csum[i] = std::complex<float>(zsum[i]);
  }
  shmem_barrier_all();

  if (shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zdst, zsrc, N) != 0)
    fail("complexd_sum_reduce return", 0, 0, 0);
  expect("shmem_complexd_sum_reduce", zdst, zsum);
  shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, cdst, csrc, N);
  expect("shmem_complexf_sum_reduce", cdst, csum);

  for (int i = 0; i < N; i++)
    zsrc[i] = val(me, i) * 0.5;
  shmem_barrier_all();
  shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, zdst, zsrc, N);
  expect("shmem_complexd_prod_reduce", zdst, zprod);
  for (int i = 0; i < N; i++) {
    csrc[i] = std::complex<float>(val(me, i) * 0.5);
    cprod[i] = std::complex<float>(zprod[i]);
  }
  shmem_barrier_all();
  shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, cdst, csrc, N);
  expect("shmem_complexf_prod_reduce", cdst, cprod);

  /* The deprecated active-set forms over every PE. */
  for (int i = 0; i < N; i++) {
    zsrc[i] = val(me, i);
    csrc[i] = std::complex<float>(val(me, i));
  }
  shmem_barrier_all();
  shmem_complexd_sum_to_all(zdst, zsrc, N, 0, 0, npes, zwrk, psync);
  expect("shmem_complexd_sum_to_all", zdst, zsum);
  shmem_barrier_all();
  shmem_complexf_sum_to_all(cdst, csrc, N, 0, 0, npes, cwrk, psync);
  expect("shmem_complexf_sum_to_all", cdst, csum);
  shmem_barrier_all();

  shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, zdst, zsrc, N);
  expect("shmem_complexd_sum_inscan", zdst, zscan);

  shmem_barrier_all();
  if (me == 0)
    std::printf("PASS cxx_complex (%d PEs)\n", npes);
  shmem_finalize();
  return 0;
}
