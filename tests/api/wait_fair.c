/*
 * wait_fair: fairness of the "any" waits (OpenSHMEM 1.5, 9.10).
 *
 * If entry i satisfies the condition, a series of calls must eventually
 * return i. Every PE owns an array of NF flags; flag i is set to a value
 * that names its writer by PE (i % npes), so the values cross between PEs.
 * Then each PE calls test_any, test_any_vector, wait_until_any and
 * wait_until_any_vector in a loop and must see every index within a bounded
 * number of calls (an implementation that always returns the lowest match
 * never sees index 1). test_some/wait_until_some must return every index in
 * one call, each once.
 */
#include "check.h"

#include <string.h>

#define NF 8
#define TRIES (4 * NF) /* calls allowed to see every index */

static int flags[NF];
static long lflags[NF];

static int writer(int i)
{
    return i % shmem_n_pes();
}
static int val(int i)
{
    return 100 + writer(i) * 16 + i;
}

/* Calls CALL (an expression giving an index) until every index was seen. */
#define SEE_ALL(name, CALL)                                                                        \
    do {                                                                                           \
        int seen_[NF] = {0}, nseen_ = 0;                                                           \
        for (int t_ = 0; t_ < TRIES && nseen_ < NF; t_++) {                                        \
            size_t r_ = (CALL);                                                                    \
            CHECK(r_ < NF, "%s returned %zu with every flag set", name, r_);                       \
            nseen_ += !seen_[r_];                                                                  \
            seen_[r_] = 1;                                                                         \
        }                                                                                          \
        CHECK(nseen_ == NF, "%s: %d calls returned only %d of %d set indices", name, TRIES,        \
              nseen_, NF);                                                                         \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < NF; i++)
        if (writer(i) == me)
            for (int pe = 0; pe < npes; pe++) {
                shmem_int_p(&flags[i], val(i), pe);
                shmem_long_p(&lflags[i], (long)val(i) << 33, pe);
            }
    shmem_quiet();
    /* Each wait needs the other PEs' puts: no barrier before the waits. */
    shmem_int_wait_until_all(flags, NF, NULL, SHMEM_CMP_GE, 100);
    shmem_long_wait_until_all(lflags, NF, NULL, SHMEM_CMP_GE, 100L << 33);
    for (int i = 0; i < NF; i++) {
        CHECK_VAL("flags", i, flags[i], val(i));
        CHECK_VAL("lflags", i, lflags[i], (long)val(i) << 33);
    }

    int cmpv[NF];
    long lcmpv[NF];
    for (int i = 0; i < NF; i++) {
        cmpv[i] = val(i);
        lcmpv[i] = (long)val(i) << 33;
    }
    SEE_ALL("shmem_int_test_any", shmem_int_test_any(flags, NF, NULL, SHMEM_CMP_GE, 100));
    SEE_ALL("shmem_long_wait_until_any",
            shmem_long_wait_until_any(lflags, NF, NULL, SHMEM_CMP_GE, 100L << 33));
    SEE_ALL("shmem_int_test_any_vector",
            shmem_int_test_any_vector(flags, NF, NULL, SHMEM_CMP_EQ, cmpv));
    SEE_ALL("shmem_long_wait_until_any_vector",
            shmem_long_wait_until_any_vector(lflags, NF, NULL, SHMEM_CMP_EQ, lcmpv));

    /* With a status array excluding the even indices, every odd one is seen. */
    int status[NF];
    for (int i = 0; i < NF; i++)
        status[i] = i % 2 == 0;
    int seen[NF] = {0};
    for (int t = 0; t < TRIES; t++) {
        size_t r = shmem_int_test_any(flags, NF, status, SHMEM_CMP_GE, 100);
        CHECK(r < NF && r % 2 == 1, "test_any with status returned %zu", r);
        seen[r] = 1;
    }
    for (int i = 1; i < NF; i += 2)
        CHECK(seen[i], "test_any with status never returned index %d", i);

    /* _some returns every satisfying index at once. */
    size_t idx[NF];
    memset(idx, 0xff, sizeof idx);
    size_t n = shmem_int_test_some(flags, NF, idx, NULL, SHMEM_CMP_GE, 100);
    CHECK_EQ("test_some count", n, (size_t)NF);
    n = shmem_long_wait_until_some(lflags, NF, idx, NULL, SHMEM_CMP_GE, 100L << 33);
    CHECK_EQ("wait_until_some count", n, (size_t)NF);
    int once[NF] = {0};
    for (size_t k = 0; k < n; k++) {
        CHECK(idx[k] < NF && !once[idx[k]], "wait_until_some index %zu bad or twice", idx[k]);
        once[idx[k]] = 1;
    }
    sht_pass("wait_fair");
    shmem_finalize();
    return 0;
}
