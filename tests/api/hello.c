/*
 * hello: the basics every other test relies on.  PE numbering, the version
 * and name queries, query_initialized around init/finalize (1.6), and a
 * barrier that really separates writes from reads: each PE puts its number
 * into a slot on every PE, and after the barrier every slot must be filled.
 */
#include "check.h"

#define MAX_PES 1024

static int seen_pe[MAX_PES];

int main(void)
{
#if SHOAL_TEST_HAVE_16
    int initialized = -1;
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "FAIL %s:%d: query_initialized before init: expected 0, seen %d\n",
                __FILE__, __LINE__, initialized);
        return 1;
    }
#endif

    shmem_init();

#if SHOAL_TEST_HAVE_16
    initialized = 0;
    shmem_query_initialized(&initialized);
    CHECK(initialized != 0, "query_initialized after init: expected nonzero, seen %d", initialized);
#endif

    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    CHECK(npes >= 1 && npes <= MAX_PES, "n_pes out of range: %d", npes);
    CHECK(me >= 0 && me < npes, "my_pe %d outside [0,%d)", me, npes);

    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "info_get_version: expected %d.%d from the header, seen %d.%d", SHMEM_MAJOR_VERSION,
          SHMEM_MINOR_VERSION, major, minor);
    CHECK(major == 1 && minor >= 4, "unexpected version %d.%d", major, minor);

    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    const char *nul = memchr(name, '\0', sizeof name);
    size_t len = nul ? (size_t)(nul - name) : sizeof name;
    CHECK(nul != NULL, "info_get_name: not NUL-terminated within %d bytes", SHMEM_MAX_NAME_LEN);
    CHECK(len > 0, "info_get_name returned an empty string");
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0,
          "info_get_name: expected SHMEM_VENDOR_STRING \"%s\", seen \"%s\"", SHMEM_VENDOR_STRING,
          name);

    /* Every PE tells every PE who it is. */
    for (int i = 0; i < npes; i++)
        seen_pe[i] = -1;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmem_int_p(&seen_pe[me], me + 1000, pe);
    shmem_barrier_all();
    for (int i = 0; i < npes; i++)
        CHECK_VAL("seen_pe", i, seen_pe[i], i + 1000);

    /* All PEs agree on n_pes: each reads PE 0's answer. */
    static int npes_on_pe;
    npes_on_pe = npes;
    shmem_barrier_all();
    CHECK_EQ("n_pes on PE 0", shmem_int_g(&npes_on_pe, 0), npes);

    /* Same version on all PEs. */
    static int version_on_pe[2];
    version_on_pe[0] = major;
    version_on_pe[1] = minor;
    shmem_barrier_all();
    int v0[2];
    shmem_int_get(v0, version_on_pe, 2, 0);
    CHECK(v0[0] == major && v0[1] == minor, "PE 0 has version %d.%d, I have %d.%d", v0[0], v0[1],
          major, minor);

    sht_pass("hello");
    shmem_finalize();

#if SHOAL_TEST_HAVE_16
    initialized = -1;
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "FAIL %s:%d: query_initialized after finalize: expected 0, seen %d\n",
                __FILE__, __LINE__, initialized);
        return 1;
    }
#endif
    return 0;
}
