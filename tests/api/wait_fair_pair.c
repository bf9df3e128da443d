/*
 * wait_fair_pair: the "any" waits stay fair when a program polls several
 * arrays in turn (OpenSHMEM 1.5, 9.10: if entry i satisfies the condition,
 * a series of calls must eventually return i).
 *
 * Every PE owns arrays A and B with two satisfying entries each, written by
 * its right neighbour (itself at 1 PE) and announced with a flag after a
 * fence, so the values cross between PEs. Then it calls test_any on A, then
 * on B, and so on, and must see both entries of each array within a bounded
 * number of calls; the same for test_any_vector, wait_until_any and
 * wait_until_any_vector, with and without a status array that hides a third
 * satisfying entry, for several layouts of the entries (a cursor shared by
 * the two arrays sends both back to the same entry when both hold {0, 1}).
 * Last, 12 arrays polled in turn (more than a small per-array table may
 * hold) must still give back every entry within a generous bound.
 */
#include "check.h"

#define NA 6           /* elements per array */
#define TRIES (2 * NA) /* calls per array allowed to see both entries */
#define NMANY 12       /* arrays of the last check */
#define MANY_ROUNDS 200

static int ia[NA], ib[NA];
static long la[NA], lb[NA];
static uint64_t ua[NA], ub[NA];
static int many[NMANY][NA];
static long ready;

/* Entries set in the arrays for each layout: two that a call must return,
 * and a third that the status arrays hide. */
static const int layouts[][3] = {{0, 1, 4}, {1, 3, 5}, {0, NA - 1, 2}, {2, 3, 0}};
#define NLAYOUT ((int)(sizeof(layouts) / sizeof(layouts[0])))

static int is_set(int l, int i)
{
    return i == layouts[l][0] || i == layouts[l][1] || i == layouts[l][2];
}
static int is_hidden(int l, int i)
{
    return i == layouts[l][2];
}

/* The value the writer (the right neighbour of the owner) stores at i. */
static long val(int owner, int i)
{
    int writer = (owner + 1) % shmem_n_pes();
    return 1000 + writer * 16 + i;
}

/* The writer fills its left neighbour's arrays for layout l: set entries
 * get val(), the others 0; then the flag, after a fence. */
static void fill_left(int l, long round)
{
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    const int left = (me + npes - 1) % npes;
    for (int i = 0; i < NA; i++) {
        long v = is_set(l, i) ? val(left, i) : 0;
        shmem_int_p(&ia[i], (int)v, left);
        shmem_int_p(&ib[i], (int)v, left);
        shmem_long_p(&la[i], v, left);
        shmem_long_p(&lb[i], v, left);
        shmem_uint64_p(&ua[i], (uint64_t)v, left);
        shmem_uint64_p(&ub[i], (uint64_t)v, left);
        for (int k = 0; k < NMANY; k++)
            shmem_int_p(&many[k][i], (int)v, left);
    }
    shmem_fence();
    shmem_long_p(&ready, round, left);
}

/* Polls A then B with CALL_A / CALL_B (expressions giving an index) until
 * each has returned both of its unhidden set entries; every index returned
 * must be a set entry and, when HIDE, not the hidden one. */
#define SEE_PAIR(name, l, HIDE, CALL_A, CALL_B)                                                    \
    do {                                                                                           \
        int seen_a_[NA] = {0}, seen_b_[NA] = {0}, na_ = 0, nb_ = 0;                                \
        const int want_ = (HIDE) ? 2 : 3;                                                          \
        for (int t_ = 0; t_ < TRIES && (na_ < want_ || nb_ < want_); t_++) {                       \
            size_t ra_ = (CALL_A), rb_ = (CALL_B);                                                 \
            CHECK(ra_ < NA && is_set(l, (int)ra_) && !((HIDE) && is_hidden(l, (int)ra_)),          \
                  "%s on A (layout %d) returned %zu", name, l, ra_);                               \
            CHECK(rb_ < NA && is_set(l, (int)rb_) && !((HIDE) && is_hidden(l, (int)rb_)),          \
                  "%s on B (layout %d) returned %zu", name, l, rb_);                               \
            na_ += !seen_a_[ra_];                                                                  \
            seen_a_[ra_] = 1;                                                                      \
            nb_ += !seen_b_[rb_];                                                                  \
            seen_b_[rb_] = 1;                                                                      \
        }                                                                                          \
        CHECK(na_ == want_ && nb_ == want_,                                                        \
              "%s%s, A and B polled in turn (layout %d: set %d %d %d): %d calls each returned "    \
              "%d of A's and %d of B's %d set entries",                                            \
              name, (HIDE) ? " with status" : "", l, layouts[l][0], layouts[l][1], layouts[l][2],  \
              TRIES, na_, nb_, want_);                                                             \
    } while (0)

static void check_layout(int l)
{
    const int me = shmem_my_pe();
    int status[NA], *st;
    int icmp[NA];
    long lcmp[NA];
    uint64_t ucmp[NA];
    for (int i = 0; i < NA; i++) {
        status[i] = is_hidden(l, i);
        icmp[i] = (int)val(me, i);
        lcmp[i] = val(me, i);
        ucmp[i] = (uint64_t)val(me, i);
    }
    for (int hide = 0; hide < 2; hide++) {
        st = hide ? status : NULL;
        SEE_PAIR("shmem_int_test_any", l, hide, shmem_int_test_any(ia, NA, st, SHMEM_CMP_GE, 1000),
                 shmem_int_test_any(ib, NA, st, SHMEM_CMP_GE, 1000));
        SEE_PAIR("shmem_long_test_any_vector", l, hide,
                 shmem_long_test_any_vector(la, NA, st, SHMEM_CMP_EQ, lcmp),
                 shmem_long_test_any_vector(lb, NA, st, SHMEM_CMP_EQ, lcmp));
        SEE_PAIR("shmem_long_wait_until_any", l, hide,
                 shmem_long_wait_until_any(la, NA, st, SHMEM_CMP_NE, 0),
                 shmem_long_wait_until_any(lb, NA, st, SHMEM_CMP_NE, 0));
        SEE_PAIR("shmem_uint64_wait_until_any_vector", l, hide,
                 shmem_uint64_wait_until_any_vector(ua, NA, st, SHMEM_CMP_EQ, ucmp),
                 shmem_uint64_wait_until_any_vector(ub, NA, st, SHMEM_CMP_EQ, ucmp));
        /* Mixed: a test on one array, a wait on the other. */
        SEE_PAIR("shmem_int_test_any_vector/wait_until_any", l, hide,
                 shmem_int_test_any_vector(ia, NA, st, SHMEM_CMP_EQ, icmp),
                 shmem_int_wait_until_any(ib, NA, st, SHMEM_CMP_GT, 999));
    }

    /* Many arrays in turn: every set entry of each comes back. */
    int seen[NMANY][NA];
    memset(seen, 0, sizeof seen);
    for (int r = 0; r < MANY_ROUNDS; r++)
        for (int k = 0; k < NMANY; k++) {
            size_t x = shmem_int_test_any(many[k], NA, NULL, SHMEM_CMP_GE, 1000);
            CHECK(x < NA && is_set(l, (int)x), "test_any on array %d of %d returned %zu", k, NMANY,
                  x);
            seen[k][x] = 1;
        }
    for (int k = 0; k < NMANY; k++)
        for (int i = 0; i < NA; i++)
            CHECK(seen[k][i] == is_set(l, i),
                  "%d arrays polled in turn, %d rounds: array %d index %d (set: %d) seen %d", NMANY,
                  MANY_ROUNDS, k, i, is_set(l, i), seen[k][i]);
}

int main(void)
{
    shmem_init();
    for (int l = 0; l < NLAYOUT; l++) {
        fill_left(l, l + 1);
        /* The values come from the right neighbour: wait for its flag. */
        shmem_long_wait_until(&ready, SHMEM_CMP_EQ, l + 1);
        for (int i = 0; i < NA; i++)
            CHECK_VAL("A as written by the right PE", i, la[i],
                      is_set(l, i) ? val(shmem_my_pe(), i) : 0L);
        check_layout(l);
        /* Every PE is done reading before the next layout is written. */
        shmem_barrier_all();
    }
    sht_pass("wait_fair_pair");
    shmem_finalize();
    return 0;
}
