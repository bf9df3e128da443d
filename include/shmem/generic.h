/*
 * The C11 generic interface: shmem_put(dest, source, nelems, pe) and
 * shmem_put(ctx, dest, source, nelems, pe) select the typed routine from the
 * type of `dest` (or of the argument after `ctx`). The selections are built
 * from the _BASE type lists; fixed-width types are typedefs of those and
 * select the same routines.
 */
#ifndef SHMEM_GENERIC_H
#define SHMEM_GENERIC_H

/* The _Generic association lists read best one row a line, as written. */
/* clang-format off */

/* Called when no typed routine matches; the error attribute turns the call
 * into a compile-time error with this message. */
void shmem_generic_unsupported_type__()
    __attribute__((error("OpenSHMEM generic interface: unsupported argument type")));

#define SHMEM_G_ARG1_(a, ...) a
#define SHMEM_G_ARG2_(a, b, ...) b
#define SHMEM_G_ARG1(...) SHMEM_G_ARG1_(__VA_ARGS__, 0)
#define SHMEM_G_ARG2(...) SHMEM_G_ARG2_(__VA_ARGS__, 0, 0)

/* Association rows: `TYPE *: shmem_NAME_OP,` and the const-pointer variant. */
#define SHMEM_G_ROW(TYPE, NAME, OP) TYPE *: shmem_##NAME##_##OP,
#define SHMEM_G_ROW_CONST(TYPE, NAME, OP) TYPE *: shmem_##NAME##_##OP, const TYPE *: shmem_##NAME##_##OP,
#define SHMEM_G_CTX_ROW(TYPE, NAME, OP) TYPE *: shmem_ctx_##NAME##_##OP,
#define SHMEM_G_CTX_ROW_CONST(TYPE, NAME, OP) TYPE *: shmem_ctx_##NAME##_##OP, const TYPE *: shmem_ctx_##NAME##_##OP,

/* A family with a ctx form, keyed on the first pointer argument. */
#define SHMEM_G_SELECT(LIST, ROW, CTX_ROW, OP, ...)                                            \
    _Generic(SHMEM_G_ARG1(__VA_ARGS__),                                                        \
        shmem_ctx_t: _Generic(SHMEM_G_ARG2(__VA_ARGS__),                                       \
            LIST(CTX_ROW, OP) default: shmem_generic_unsupported_type__),                      \
        LIST(ROW, OP) default: shmem_generic_unsupported_type__)(__VA_ARGS__)

/* A family without a ctx form. */
#define SHMEM_G_SELECT_NOCTX(LIST, OP, ...)                                                    \
    _Generic(SHMEM_G_ARG1(__VA_ARGS__),                                                        \
        LIST(SHMEM_G_ROW, OP) default: shmem_generic_unsupported_type__)(__VA_ARGS__)

/* RMA */
#define shmem_put(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, put, __VA_ARGS__)
#define shmem_get(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, get, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, get_nbi, __VA_ARGS__)
#define shmem_p(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, p, __VA_ARGS__)
#define shmem_g(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW_CONST, SHMEM_G_CTX_ROW_CONST, g, __VA_ARGS__)
#define shmem_iput(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, iput, __VA_ARGS__)
#define shmem_iget(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, iget, __VA_ARGS__)
#define shmem_ibput(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, ibput, __VA_ARGS__)
#define shmem_ibget(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, ibget, __VA_ARGS__)

/* AMO */
#define shmem_atomic_fetch(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW_CONST, SHMEM_G_CTX_ROW_CONST, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_and, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_or, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_xor, __VA_ARGS__)
/* Non-blocking fetching AMOs are keyed on the `fetch` pointer. */
#define shmem_atomic_fetch_nbi(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM_G_SELECT(SHMEM_BITWISE_AMO_GENERIC, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_xor_nbi, __VA_ARGS__)

/* The deprecated (OpenSHMEM 1.3) generic AMO names, over the same types
 * as their shmem_atomic_* replacements: fetch, set and swap take the
 * extended AMO types, the others the standard AMO types. Each selects the
 * typed shmem_TYPENAME_atomic_* routine, so an int is swapped as 4 bytes and
 * a type outside the table is a compile error, never a wider access. This
 * shmem_swap replaces, in C11, the long-only shmem_swap of shmem.h. */
#define shmem_fetch(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW_CONST, SHMEM_G_CTX_ROW_CONST, atomic_fetch, __VA_ARGS__)
#define shmem_set(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_set, __VA_ARGS__)
#define shmem_swap(...) SHMEM_G_SELECT(SHMEM_EXTENDED_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_swap, __VA_ARGS__)
#define shmem_cswap(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_compare_swap, __VA_ARGS__)
#define shmem_finc(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_inc, __VA_ARGS__)
#define shmem_inc(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_inc, __VA_ARGS__)
#define shmem_fadd(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_fetch_add, __VA_ARGS__)
#define shmem_add(...) SHMEM_G_SELECT(SHMEM_STANDARD_AMO_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, atomic_add, __VA_ARGS__)

/* Point-to-point synchronization */
#define shmem_wait_until(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until, __VA_ARGS__)
#define shmem_wait_until_all(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until_all, __VA_ARGS__)
#define shmem_wait_until_any(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until_any, __VA_ARGS__)
#define shmem_wait_until_some(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until_some, __VA_ARGS__)
#define shmem_wait_until_all_vector(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until_all_vector, __VA_ARGS__)
#define shmem_wait_until_any_vector(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until_any_vector, __VA_ARGS__)
#define shmem_wait_until_some_vector(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, wait_until_some_vector, __VA_ARGS__)
#define shmem_test(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test, __VA_ARGS__)
#define shmem_test_all(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test_all, __VA_ARGS__)
#define shmem_test_any(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test_any, __VA_ARGS__)
#define shmem_test_some(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test_some, __VA_ARGS__)
#define shmem_test_all_vector(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test_all_vector, __VA_ARGS__)
#define shmem_test_any_vector(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test_any_vector, __VA_ARGS__)
#define shmem_test_some_vector(...) SHMEM_G_SELECT_NOCTX(SHMEM_SYNC_BASE, test_some_vector, __VA_ARGS__)

/* Signals: keyed on dest, with or without ctx. */
#define shmem_put_signal(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEM_G_SELECT(SHMEM_RMA_BASE, SHMEM_G_ROW, SHMEM_G_CTX_ROW, put_signal_nbi, __VA_ARGS__)

/* shmem_signal_add/set(ctx, sig_addr, signal, pe) select the ctx routine. */
#define shmem_signal_add(...)                                                                  \
    _Generic(SHMEM_G_ARG1(__VA_ARGS__), shmem_ctx_t: shmem_ctx_signal_add,                     \
             default: shmem_signal_add)(__VA_ARGS__)
#define shmem_signal_set(...)                                                                  \
    _Generic(SHMEM_G_ARG1(__VA_ARGS__), shmem_ctx_t: shmem_ctx_signal_set,                     \
             default: shmem_signal_set)(__VA_ARGS__)

/* shmem_sync(team) is the team sync; shmem_sync(PE_start, logPE_stride, PE_size, pSync)
 * the deprecated active-set one: chosen by the number of arguments. */
#define SHMEM_G_NARGS_(_1, _2, _3, _4, _5, _6, N, ...) N
#define SHMEM_G_NARGS(...) SHMEM_G_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM_G_CAT_(a, b) a##b
#define SHMEM_G_CAT(a, b) SHMEM_G_CAT_(a, b)
#define SHMEM_G_SYNC_1 shmem_team_sync
#define SHMEM_G_SYNC_4 shmem_sync
#define shmem_sync(...) SHMEM_G_CAT(SHMEM_G_SYNC_, SHMEM_G_NARGS(__VA_ARGS__))(__VA_ARGS__)

/* Team collectives: keyed on dest, the argument after the team. */
#define SHMEM_G_SELECT_TEAM(LIST, OP, ...)                                                     \
    _Generic(SHMEM_G_ARG2(__VA_ARGS__),                                                        \
        LIST(SHMEM_G_ROW, OP) default: shmem_generic_unsupported_type__)(__VA_ARGS__)
#define shmem_broadcast(...) SHMEM_G_SELECT_TEAM(SHMEM_RMA_BASE, broadcast, __VA_ARGS__)
#define shmem_collect(...) SHMEM_G_SELECT_TEAM(SHMEM_RMA_BASE, collect, __VA_ARGS__)
#define shmem_fcollect(...) SHMEM_G_SELECT_TEAM(SHMEM_RMA_BASE, fcollect, __VA_ARGS__)
#define shmem_alltoall(...) SHMEM_G_SELECT_TEAM(SHMEM_RMA_BASE, alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) SHMEM_G_SELECT_TEAM(SHMEM_RMA_BASE, alltoalls, __VA_ARGS__)
/* Bitwise reductions also take the signed fixed-width types, which are not
 * among the unsigned base rows. */
#define SHMEM_G_REDUCE_BITWISE(X, ...)                                                         \
    SHMEM_REDUCE_BITWISE_BASE(X, __VA_ARGS__)                                                  \
    X(int8_t, int8, __VA_ARGS__)                                                               \
    X(int16_t, int16, __VA_ARGS__)                                                             \
    X(int32_t, int32, __VA_ARGS__)                                                             \
    X(int64_t, int64, __VA_ARGS__)
#define shmem_and_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_G_REDUCE_BITWISE, and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_G_REDUCE_BITWISE, or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_G_REDUCE_BITWISE, xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_REDUCE_MINMAX_BASE, max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_REDUCE_MINMAX_BASE, min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_REDUCE_ARITH_BASE, sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) SHMEM_G_SELECT_TEAM(SHMEM_REDUCE_ARITH_BASE, prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...) SHMEM_G_SELECT_TEAM(SHMEM_REDUCE_ARITH_BASE, sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) SHMEM_G_SELECT_TEAM(SHMEM_REDUCE_ARITH_BASE, sum_exscan, __VA_ARGS__)

/* clang-format on */

#endif
