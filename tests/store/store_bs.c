/*
 * The store bootstrap on its own, without the rest of the library: this
 * program compiles every src/bootstrap/store/ source in and drives the ops table the
 * core uses. Started by hand like a PE (SHOAL_RANK, SHOAL_NPES, SHOAL_STORE,
 * secret); checks keys of many sizes (up to the 1 MiB limit, larger than any
 * socket or TLS record buffer), GETs that arrive before their PUT, GETs from
 * several threads at once, many barriers, and allgathers (one of them with
 * a 1 MiB value on PE 0, one with an empty value on PE 1). Prints "PE n kv
 * ok".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/store/store.h"
#include "bootstrap/store/proto.h"

#define KEYS 40
#define THREADS 4

static shoal_bootstrap_t bs;
static int failed;

static size_t value_len(int pe, int k)
{
    if (pe == 0 && k == 0)
        return SHOAL_STORE_MAX_VALUE;
    return (size_t)((pe * 7919 + k * 104729) % 70000);
}

static void fill(int pe, int k, unsigned char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (unsigned char)(pe * 31 + k * 7 + i * 13);
}

static void check_key(int pe, int k, unsigned char *buf, unsigned char *want)
{
    char key[32];
    size_t len = 0, expect = value_len(pe, k);
    snprintf(key, sizeof(key), "key-%d", k);
    if (shoal_bootstrap_get(&bs, pe, key, buf, SHOAL_STORE_MAX_VALUE, &len) != SHOAL_OK) {
        fprintf(stderr, "PE %d: get(%d, %s) failed\n", bs.rank, pe, key);
        failed = 1;
        return;
    }
    fill(pe, k, want, expect);
    if (len != expect || memcmp(buf, want, len) != 0) {
        fprintf(stderr, "PE %d: get(%d, %s): %zu bytes, expected %zu, or other content\n", bs.rank,
                pe, key, len, expect);
        failed = 1;
    }
}

static void *reader(void *arg)
{
    int t = (int)(long)arg;
    unsigned char *buf = malloc(SHOAL_STORE_MAX_VALUE), *want = malloc(SHOAL_STORE_MAX_VALUE);
    for (int pe = 0; pe < bs.npes; pe++)
        for (int k = t; k < KEYS; k += THREADS)
            check_key(pe, k, buf, want);
    free(buf);
    free(want);
    return NULL;
}

int main(void)
{
    unsigned char *buf = malloc(SHOAL_STORE_MAX_VALUE);
    pthread_t threads[THREADS];
    char key[32];

    if (shoal_bootstrap_store_init(&bs, 0) != SHOAL_OK) {
        fprintf(stderr, "store bootstrap init failed\n");
        return 10;
    }
    shoal_bootstrap_notify(&bs, SHOAL_BOOTSTRAP_EVENT_INITIALIZED);
    /* Readers first: most GETs arrive before the PUTs they wait for. */
    for (long t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, reader, (void *)t);
    for (int k = 0; k < KEYS; k++) {
        size_t len = value_len(bs.rank, k);
        fill(bs.rank, k, buf, len);
        snprintf(key, sizeof(key), "key-%d", k);
        if (shoal_bootstrap_put(&bs, key, buf, len) != SHOAL_OK)
            failed = 1;
    }
    shoal_bootstrap_fence(&bs);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    for (int i = 0; i < 100; i++)
        if (shoal_bootstrap_barrier(&bs) != SHOAL_OK)
            failed = 1;
    /* Allgathers: every PE's value, in rank order, byte for byte. */
    for (int k = 0; k < 3; k++) {
        shoal_bootstrap_gather_t all;
        size_t mine = k == 1 && bs.rank == 1 ? 0 : value_len(bs.rank, k);
        snprintf(key, sizeof(key), "ag-%d", k);
        fill(bs.rank, k, buf, mine);
        if (shoal_bootstrap_allgather(&bs, key, buf, mine, &all) != SHOAL_OK) {
            fprintf(stderr, "PE %d: allgather %s failed\n", bs.rank, key);
            failed = 1;
            continue;
        }
        unsigned char *want = malloc(SHOAL_STORE_MAX_VALUE);
        for (int pe = 0; pe < bs.npes; pe++) {
            size_t got_len, expect = k == 1 && pe == 1 ? 0 : value_len(pe, k);
            const void *got = shoal_bootstrap_gather_at(&all, pe, &got_len);
            fill(pe, k, want, expect);
            if (got_len != expect || memcmp(got, want, expect) != 0) {
                fprintf(stderr,
                        "PE %d: allgather %s: PE %d's value has %zu bytes, expected "
                        "%zu, or other content\n",
                        bs.rank, key, pe, got_len, expect);
                failed = 1;
            }
        }
        free(want);
        shoal_bootstrap_gather_free(&all);
    }
    /* A value larger than the caller's buffer is refused, not cut. */
    size_t len;
    if (bs.npes > 0 && shoal_bootstrap_get(&bs, 0, "key-0", buf, 10, &len) != SHOAL_ERR_TRUNCATED)
        failed = 1;
    shoal_bootstrap_barrier(&bs);
    shoal_bootstrap_notify(&bs, SHOAL_BOOTSTRAP_EVENT_FINALIZED);
    free(buf);
    if (failed)
        return 10;
    printf("PE %d kv ok\n", bs.rank);
    return 0;
}
