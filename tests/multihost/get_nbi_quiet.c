/*
 * Non-blocking gets from PEs on other hosts, completed by one quiet.
 *
 * Over UCX a quiet after gets waits for the gets' own requests (their
 * replies are their completion) instead of flushing; this checks that it
 * still completes every one of them. Each round, every PE refills its
 * source with values of the round, then every PE gets all of every other
 * PE's source in small pieces (hundreds of gets in flight per peer) plus
 * one large get, from two threads at once, each thread then calling
 * shmem_quiet and checking its own half word by word. Odd rounds mix in a
 * put_nbi to the peer before the quiet (a flush is then needed as well)
 * and check it on the target after a barrier. Stale or missing words name
 * the round, the thread, the peer and the word.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <shmem.h>

#include "mh_check.h"

#define WORDS 4096 /* per PE source, in longs */
#define PIECE 8    /* longs per small get */
#define ROUNDS 6

static long src[WORDS];
static long put_box[64]; /* [from PE] a word put_nbi'd by that PE */
static long *dst;        /* [npes][WORDS], private */
static int me, npes;
static long round_no;

static long value(int pe, long round, int word)
{
    return ((long)pe << 40) ^ (round << 20) ^ word;
}

typedef struct {
    int half; /* 0: words [0, WORDS/2), 1: the rest */
} job_t;

static void *getter(void *arg)
{
    const job_t *j = arg;
    const int lo = j->half * (WORDS / 2), hi = lo + WORDS / 2;
    for (int p = 0; p < npes; p++) {
        if (p == me)
            continue;
        long *d = dst + (size_t)p * WORDS;
        if (j->half == 0) {
            /* Small pieces: many requests in flight at once. */
            for (int w = lo; w < hi; w += PIECE)
                shmem_long_get_nbi(d + w, src + w, PIECE, p);
        } else {
            shmem_long_get_nbi(d + lo, src + lo, (size_t)(hi - lo), p); /* one large get */
        }
        if (round_no % 2 == 1 && j->half == 1 && me < 64)
            shmem_long_put_nbi(&put_box[me], &round_no, 1, p);
    }
    shmem_quiet();
    for (int p = 0; p < npes; p++) {
        if (p == me)
            continue;
        const long *d = dst + (size_t)p * WORDS;
        for (int w = lo; w < hi; w++)
            CHECK(d[w] == value(p, round_no, w),
                  "round %ld, thread %d: word %d got from PE %d is %#lx, expected %#lx after "
                  "shmem_quiet",
                  round_no, j->half, w, p, (unsigned long)d[w],
                  (unsigned long)value(p, round_no, w));
    }
    return NULL;
}

int main(void)
{
    int provided = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "SHMEM_THREAD_MULTIPLE not provided (%d)", provided);
    dst = calloc((size_t)npes * WORDS, sizeof(long));
    CHECK(dst != NULL, "out of memory");
    for (round_no = 0; round_no < ROUNDS; round_no++) {
        for (int w = 0; w < WORDS; w++)
            src[w] = value(me, round_no, w);
        shmem_barrier_all(); /* every source holds this round's values */
        pthread_t t[2];
        job_t jobs[2] = {{0}, {1}};
        for (int i = 0; i < 2; i++)
            CHECK(pthread_create(&t[i], NULL, getter, &jobs[i]) == 0, "pthread_create");
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        shmem_barrier_all(); /* every get of this round is done before sources change */
        if (round_no % 2 == 1)
            for (int p = 0; p < npes && p < 64; p++)
                CHECK(p == me || put_box[p] == round_no,
                      "round %ld: the put_nbi from PE %d holds %ld after its quiet and a barrier",
                      round_no, p, put_box[p]);
    }
    free(dst);
    if (me == 0)
        printf("get_nbi_quiet: %d PEs, %d rounds, every word checked\n", npes, ROUNDS);
    shmem_finalize();
    return 0;
}
