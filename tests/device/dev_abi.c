/*
 * The checked device ABI (<shmemx.h>: SHMEMX_DEV_ABI_VERSION): a program
 * whose headers describe another shmemx_dev_t than libshoal's is refused at
 * shmemx_dev_create, with both versions and sizes named, -1 on every PE,
 * the handle left as it was, and the job goes on.
 *
 * Built twice from this file. dev_abi_other is compiled with
 * -DSHMEMX_DEV_ABI_VERSION_TEST_OVERRIDE=99, a program of another ABI: its
 * plain shmemx_dev_create(&d) must fail. dev_abi has the real headers: a
 * handle of another size is refused; one PE of another ABI fails every PE
 * (no PE is left waiting in the collective); then the real call works, and
 * the plain exported function (device ABI 1, for callers without the macro)
 * works exactly when libshoal is ABI 1. Each PE reads back its own stderr
 * around the calls to check the message: one line, from the first PE that
 * refuses. Run with the stand-in driver (SHOAL_CUDA_LIBRARY) for the
 * successful view.
 */
#include <shmem.h>
#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../api/check.h"

static int me, npes;
static int saved_fd = -1;
static FILE *capture;

/* From here to captured(), this PE's stderr goes to a temporary file. */
static void capture_start(void)
{
    fflush(stderr);
    capture = tmpfile();
    CHECK(capture != NULL, "a temporary file for stderr");
    saved_fd = dup(STDERR_FILENO);
    CHECK(saved_fd >= 0 && dup2(fileno(capture), STDERR_FILENO) >= 0, "redirecting stderr");
}

/* What this PE wrote to stderr since capture_start (also passed on). */
static void captured(char *text, size_t len)
{
    fflush(stderr);
    dup2(saved_fd, STDERR_FILENO);
    close(saved_fd);
    rewind(capture);
    size_t n = fread(text, 1, len - 1, capture);
    text[n] = '\0';
    fclose(capture);
    fputs(text, stderr); /* the job's log keeps it */
}

static int lines(const char *text)
{
    int n = 0;
    for (; *text != '\0'; text++)
        n += *text == '\n';
    return n;
}

/* The handle's bytes before the call, to check nothing was written. */
static void fill(shmemx_dev_t *d)
{
    memset(d, 0xa5, sizeof(*d));
}

static int untouched(const shmemx_dev_t *d)
{
    const unsigned char *b = (const unsigned char *)d;
    for (size_t i = 0; i < sizeof(*d); i++)
        if (b[i] != 0xa5)
            return 0;
    return 1;
}

/* One refused call: -1 here, the handle untouched, exactly one line on
 * PE `logger` holding `want` and "(on NFAILED of NPES PEs", none on the
 * others. */
static void expect_refused(int rc, const shmemx_dev_t *d, int logger, int nfailed, const char *want,
                           const char *what)
{
    char text[4096], on[64];
    captured(text, sizeof(text));
    CHECK(rc == -1, "%s: shmemx_dev_create returned %d, not -1", what, rc);
    CHECK(untouched(d), "%s: the refused call wrote into the handle", what);
    if (me == logger) {
        snprintf(on, sizeof(on), "(on %d of %d PEs", nfailed, npes);
        CHECK(strstr(text, want) != NULL && strstr(text, on) != NULL && lines(text) == 1,
              "%s: PE %d's message should name \"%s\" and say \"%s\"; it logged: %s", what, me,
              want, on, text);
    } else {
        CHECK(lines(text) == 0, "%s: only PE %d should log; PE %d logged: %s", what, logger, me,
              text);
    }
    shmem_barrier_all(); /* the job goes on */
}

#ifdef SHMEMX_DEV_ABI_VERSION_TEST_OVERRIDE
static void run(void)
{
    shmemx_dev_t d;
    char want[160];
    snprintf(want, sizeof(want),
             "shmemx_dev_create: this program's <shmemx.h> is device ABI %d (handle %zu bytes), "
             "libshoal is ABI ",
             SHMEMX_DEV_ABI_VERSION_TEST_OVERRIDE, sizeof(d));
    fill(&d);
    capture_start();
    int rc = shmemx_dev_create(&d);
    expect_refused(rc, &d, 0, npes, want, "a program of device ABI 99");
    if (me == 0)
        printf("PASS dev_abi_other: a program of device ABI %d is refused at %d PEs\n",
               SHMEMX_DEV_ABI_VERSION_TEST_OVERRIDE, npes);
}
#else
static void run(void)
{
    shmemx_dev_t d;
    char want[200];

    /* A handle of another size (a program whose struct grew). */
    snprintf(want, sizeof(want),
             "this program's <shmemx.h> is device ABI %d (handle %zu bytes), libshoal is ABI %d "
             "(%zu bytes): rebuild the program",
             SHMEMX_DEV_ABI_VERSION, sizeof(d) + 8, SHMEMX_DEV_ABI_VERSION, sizeof(d));
    fill(&d);
    capture_start();
    int rc = shmemx_dev_create_abi(&d, SHMEMX_DEV_ABI_VERSION, sizeof(d) + 8);
    expect_refused(rc, &d, 0, npes, want, "a handle 8 bytes larger");

    /* Only the last PE's program is of another version: every PE fails. */
    const int odd = npes - 1;
    snprintf(want, sizeof(want),
             "this program's <shmemx.h> is device ABI %d (handle %zu bytes), libshoal is ABI %d",
             SHMEMX_DEV_ABI_VERSION + 1, sizeof(d), SHMEMX_DEV_ABI_VERSION);
    fill(&d);
    capture_start();
    rc = shmemx_dev_create_abi(&d, me == odd ? SHMEMX_DEV_ABI_VERSION + 1 : SHMEMX_DEV_ABI_VERSION,
                               sizeof(d));
    expect_refused(rc, &d, odd, 1, want, "one PE of another version");

    /* The program's own ABI. */
    CHECK(shmemx_dev_create(&d) == 0, "shmemx_dev_create with the installed headers");
    CHECK(d.version == SHMEMX_DEV_ABI_VERSION && d.bytes == sizeof(d) && d.my_pe == me &&
              d.npes == npes,
          "the view says version %u, %u bytes, PE %d of %d", d.version, d.bytes, d.my_pe, d.npes);

    /* The plain function stands for ABI 1 (callers through a pointer). */
    int (*plain)(shmemx_dev_t *) = &shmemx_dev_create;
    shmemx_dev_t d1;
    fill(&d1);
    rc = plain(&d1);
    if (SHMEMX_DEV_ABI_VERSION == 1)
        CHECK(rc == 0 && memcmp(&d, &d1, sizeof(d)) == 0,
              "the plain shmemx_dev_create (ABI 1) gives the same view (rc %d)", rc);
    else
        CHECK(rc == -1 && untouched(&d1), "the plain shmemx_dev_create (ABI 1) is refused");
    shmem_barrier_all();
    if (me == 0)
        printf("PASS dev_abi: other sizes and versions refused, the program's own accepted, at "
               "%d PEs\n",
               npes);
}
#endif

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    run();
    shmem_finalize();
    return 0;
}
