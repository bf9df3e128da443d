/*
 * The job's key-value store: values published by PEs, found by (rank, key)
 * in a chained hash table that doubles when it fills. A GET may arrive
 * before the PUT it waits for; the entry is then created without a value and
 * remembers the waiting PEs, which server.c answers when the value arrives.
 * A second PUT of the same key replaces the value.
 */
#include <stdlib.h>
#include <string.h>

#include "shoalrun.h"

#define SR_KVS_INITIAL_BUCKETS 1024

static size_t hash(int rank, const char *key, uint32_t key_len)
{
    /* FNV-1a over the rank and the key bytes. */
    uint64_t h = 14695981039346656037ull;
    for (int i = 0; i < 4; i++) {
        h ^= (uint8_t)((unsigned)rank >> (8 * i));
        h *= 1099511628211ull;
    }
    for (uint32_t i = 0; i < key_len; i++) {
        h ^= (uint8_t)key[i];
        h *= 1099511628211ull;
    }
    return (size_t)h;
}

void sr_kvs_init(sr_kvs_t *kvs)
{
    kvs->nbuckets = SR_KVS_INITIAL_BUCKETS;
    kvs->buckets = sr_xmalloc(kvs->nbuckets * sizeof(*kvs->buckets));
    memset(kvs->buckets, 0, kvs->nbuckets * sizeof(*kvs->buckets));
    kvs->count = 0;
}

void sr_kvs_destroy(sr_kvs_t *kvs)
{
    for (size_t b = 0; b < kvs->nbuckets; b++) {
        sr_kvs_entry_t *e = kvs->buckets[b];
        while (e != NULL) {
            sr_kvs_entry_t *next = e->next;
            free(e->key);
            free(e->value);
            free(e->waiters);
            free(e);
            e = next;
        }
    }
    free(kvs->buckets);
    *kvs = (sr_kvs_t){0};
}

static void grow(sr_kvs_t *kvs)
{
    size_t nbuckets = kvs->nbuckets * 2;
    sr_kvs_entry_t **buckets = sr_xmalloc(nbuckets * sizeof(*buckets));

    memset(buckets, 0, nbuckets * sizeof(*buckets));
    for (size_t b = 0; b < kvs->nbuckets; b++) {
        sr_kvs_entry_t *e = kvs->buckets[b];
        while (e != NULL) {
            sr_kvs_entry_t *next = e->next;
            size_t nb = hash(e->rank, e->key, e->key_len) % nbuckets;
            e->next = buckets[nb];
            buckets[nb] = e;
            e = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets = buckets;
    kvs->nbuckets = nbuckets;
}

sr_kvs_entry_t *sr_kvs_find(sr_kvs_t *kvs, int rank, const char *key, uint32_t key_len, bool create)
{
    size_t b = hash(rank, key, key_len) % kvs->nbuckets;

    for (sr_kvs_entry_t *e = kvs->buckets[b]; e != NULL; e = e->next)
        if (e->rank == rank && e->key_len == key_len && memcmp(e->key, key, key_len) == 0)
            return e;
    if (!create)
        return NULL;

    sr_kvs_entry_t *e = sr_xmalloc(sizeof(*e));
    *e = (sr_kvs_entry_t){.rank = rank, .key_len = key_len};
    e->key = sr_xmalloc(key_len);
    memcpy(e->key, key, key_len);
    e->next = kvs->buckets[b];
    kvs->buckets[b] = e;
    if (++kvs->count > kvs->nbuckets)
        grow(kvs);
    return e;
}

void sr_kvs_set(sr_kvs_entry_t *e, const void *value, uint32_t len)
{
    e->value = sr_xrealloc(e->value, len);
    memcpy(e->value, value, len);
    e->value_len = len;
    e->has_value = true;
}

void sr_kvs_add_waiter(sr_kvs_entry_t *e, int rank)
{
    if (e->nwaiters == e->waiters_cap) {
        e->waiters_cap = e->waiters_cap ? 2 * e->waiters_cap : 4;
        e->waiters = sr_xrealloc(e->waiters, e->waiters_cap * sizeof(*e->waiters));
    }
    e->waiters[e->nwaiters++] = rank;
}
