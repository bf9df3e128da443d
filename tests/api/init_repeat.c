/*
 * init_repeat: repeated initialization.
 *
 * OpenSHMEM 1.6 (shmem_init): the initialization routines may be called
 * multiple times; each call needs a matching shmem_finalize, the library is
 * not finalized until the last matching shmem_finalize, and it may be
 * initialized again afterwards.  shmem_query_initialized reports nonzero
 * exactly while an initialization is outstanding.
 *
 * Before 1.6 a second shmem_init is undefined, so against an older library
 * this only checks the common case of one init and one finalize around real
 * communication.
 */
#include "check.h"

#define N 16

static int slot[N];
static long survivor; /* a global written before finalize, read after */

#define CHECK_SURVIVOR(expect, when)                                                               \
    do {                                                                                           \
        long s_ = SHT_READ(long, &survivor);                                                       \
        if (s_ != (expect)) {                                                                      \
            fprintf(stderr, "FAIL %s:%d: global variable %s: expected %ld, seen %ld\n", __FILE__,  \
                    __LINE__, when, (long)(expect), s_);                                           \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* A round of communication that proves the library is usable: every PE
 * writes into its right neighbour's static array and its heap block. */
static void exchange(int round)
{
    int me = shmem_my_pe();
    int right = sht_right(), left = sht_left();
    int *heap = shmem_malloc(N * sizeof(int));
    CHECK(heap != NULL, "round %d: shmem_malloc returned NULL", round);
    int src[N];
    for (int i = 0; i < N; i++) {
        src[i] = round * 10000 + me * 100 + i;
        slot[i] = -1;
        heap[i] = -1;
    }
    shmem_barrier_all();
    shmem_int_put(slot, src, N, right);
    shmem_int_put(heap, src, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        CHECK_VAL("static slot", i, slot[i], round * 10000 + left * 100 + i);
        CHECK_VAL("heap slot", i, heap[i], round * 10000 + left * 100 + i);
    }
    shmem_barrier_all();
    shmem_free(heap);
}

#if SHOAL_TEST_HAVE_16
static int query(void)
{
    int v = -12345;
    shmem_query_initialized(&v);
    return v;
}

/* Used only where shmem_my_pe may not be called. */
#define CHECK_STATE(expect_nonzero, when)                                                          \
    do {                                                                                           \
        int q_ = query();                                                                          \
        if ((q_ != 0) != (expect_nonzero)) {                                                       \
            fprintf(stderr, "FAIL %s:%d: query_initialized %s: expected %s, seen %d\n", __FILE__,  \
                    __LINE__, when, (expect_nonzero) ? "nonzero" : "0", q_);                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
#endif

int main(void)
{
#if SHOAL_TEST_HAVE_16
    CHECK_STATE(0, "before the first init");

    shmem_init();
    CHECK_STATE(1, "after the first init");
    int npes = shmem_n_pes();
    int me = shmem_my_pe();
    exchange(1);

    /* Nested init, through shmem_init_thread: still one library, same PE
     * numbering, and a valid thread level reported consistently. */
    int provided = -1, queried = -2;
    CHECK_EQ("shmem_init_thread return", shmem_init_thread(SHMEM_THREAD_SINGLE, &provided), 0);
    CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
              provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE,
          "shmem_init_thread provided %d", provided);
    shmem_query_thread(&queried);
    CHECK_EQ("shmem_query_thread after nested init_thread", queried, provided);
    CHECK_STATE(1, "after the nested init");
    CHECK_EQ("n_pes after nested init", shmem_n_pes(), npes);
    CHECK_EQ("my_pe after nested init", shmem_my_pe(), me);
    exchange(2);

    /* First finalize matches the nested init: library stays initialized. */
    shmem_finalize();
    CHECK_STATE(1, "after the first of two finalizes");
    exchange(3);

    survivor = 4242 + me;
    shmem_finalize();
    CHECK_STATE(0, "after the last finalize");
    /* The program goes on after finalize; its globals keep their values. */
    CHECK_SURVIVOR(4242 + me, "after finalize");
    survivor = 77 + me;

    /* Re-initialize after a full finalize. */
    shmem_init();
    CHECK_STATE(1, "after re-init");
    CHECK_EQ("n_pes after re-init", shmem_n_pes(), npes);
    CHECK_EQ("my_pe after re-init", shmem_my_pe(), me);
    CHECK_SURVIVOR(77 + me, "written between finalize and re-init");
    exchange(4);

    /* And once more, nested inside the re-initialized library. */
    shmem_init();
    exchange(5);
    shmem_finalize();
    CHECK_STATE(1, "after nested finalize in the second life");
    sht_pass("init_repeat");
    shmem_finalize();
    CHECK_STATE(0, "at the end");
#else
    shmem_init();
    int me = shmem_my_pe();
    exchange(1);
    exchange(2);
    sht_pass("init_repeat (1.4 subset)");
    survivor = 4242 + me;
    shmem_finalize();
    CHECK_SURVIVOR(4242 + me, "after finalize");
#endif
    return 0;
}
