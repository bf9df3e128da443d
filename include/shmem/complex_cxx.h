/*
 * C++ only: the complex reductions and scans also take C's complex types.
 *
 * In C++ the complex routines are declared with std::complex<double> and
 * std::complex<float> (shmem/types.h). Programs written for C often keep
 * double _Complex and float _Complex arrays when built as C++ (g++ and
 * clang++ accept _Complex as an extension), and some implementations
 * declare only those. Both layouts are the same (the real part, then the
 * imaginary part), so the overloads here pass a C complex array on to the
 * same C symbol. Each is a template that only double _Complex (for
 * complexd) or float _Complex (for complexf) can instantiate: for any other
 * argument deduction fails and the overload drops out, so a call with
 * std::complex arrays or with nullptr still resolves to the routine itself.
 *
 * Included by shmem.h and pshmem.h after their extern "C" blocks, with
 * SHMEM_FN set as for shmem/routines.h (no include guard for the same
 * reason); not meant to be included on its own.
 */
#ifndef SHMEM_FN
#error "include <shmem.h> or <pshmem.h>, not <shmem/complex_cxx.h>"
#endif

#if defined(__cplusplus) && defined(__GNUC__)

#ifndef SHMEM_COMPLEX_CXX_TRAITS
#define SHMEM_COMPLEX_CXX_TRAITS
namespace shoal_cxx
{
/* __extension__: _Complex is a GNU extension in C++ (-Wpedantic). */
__extension__ typedef double _Complex c_complexd;
__extension__ typedef float _Complex c_complexf;

/* if_c_complex<T, S, R>::type is R when T is the C complex type laid out as
 * S, and does not exist otherwise. */
template <typename T, typename S, typename R> struct if_c_complex {
};
template <typename R> struct if_c_complex<c_complexd, std::complex<double>, R> {
    typedef R type;
};
template <typename R> struct if_c_complex<c_complexf, std::complex<float>, R> {
    typedef R type;
};
} // namespace shoal_cxx

/* The complex types of the reduction tables, as C++ names them and as C does. */
#define SHMEM_CXX_COMPLEX(X, ...)                                                                  \
    X(std::complex<double>, complexd, __VA_ARGS__)                                                 \
    X(std::complex<float>, complexf, __VA_ARGS__)
#endif

/* shmem_complexd_sum_reduce, _prod_reduce, _sum_inscan, _sum_exscan. */
#define SHMEM_CXX_TEAM_REDUCE(S, NAME, OP)                                                         \
    template <typename T>                                                                          \
    inline typename shoal_cxx::if_c_complex<T, S, int>::type SHMEM_FN(shmem_##NAME##_##OP)(        \
        shmem_team_t team, T * dest, const T *source, size_t nelems)                               \
    {                                                                                              \
        return SHMEM_FN(shmem_##NAME##_##OP)(team, reinterpret_cast<S *>(dest),                    \
                                             reinterpret_cast<const S *>(source), nelems);         \
    }
SHMEM_CXX_COMPLEX(SHMEM_CXX_TEAM_REDUCE, sum_reduce)
SHMEM_CXX_COMPLEX(SHMEM_CXX_TEAM_REDUCE, prod_reduce)
SHMEM_CXX_COMPLEX(SHMEM_CXX_TEAM_REDUCE, sum_inscan)
SHMEM_CXX_COMPLEX(SHMEM_CXX_TEAM_REDUCE, sum_exscan)
#undef SHMEM_CXX_TEAM_REDUCE

/* The deprecated active-set shmem_complexd_sum_to_all and _prod_to_all. */
#define SHMEM_CXX_TO_ALL(S, NAME, OP)                                                              \
    template <typename T>                                                                          \
    inline typename shoal_cxx::if_c_complex<T, S, void>::type SHMEM_FN(                            \
        shmem_##NAME##_##OP##_to_all)(T * dest, const T *source, int nreduce, int PE_start,        \
                                      int logPE_stride, int PE_size, T *pWrk, long *pSync)         \
    {                                                                                              \
        SHMEM_FN(shmem_##NAME##_##OP##_to_all)                                                     \
        (reinterpret_cast<S *>(dest), reinterpret_cast<const S *>(source), nreduce, PE_start,      \
         logPE_stride, PE_size, reinterpret_cast<S *>(pWrk), pSync);                               \
    }
SHMEM_CXX_COMPLEX(SHMEM_CXX_TO_ALL, sum)
SHMEM_CXX_COMPLEX(SHMEM_CXX_TO_ALL, prod)
#undef SHMEM_CXX_TO_ALL

#endif
