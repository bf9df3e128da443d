/*
 * The hosts of a PE set (host_layout.h). Each answer is computed once and kept
 * in a list that only grows until finalize; readers walk it without a lock
 * (entries are published with release stores and never change), writers
 * append under a mutex.
 */
#include <stdlib.h>

#include "core/error.h"
#include "core/host_layout.h"

typedef struct hosts_entry {
    struct hosts_entry *next;
    int start, stride, size;
    shoal_hosts_t hosts;
} hosts_entry_t;

static hosts_entry_t *cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static const shoal_hosts_t one_host = {.nhosts = 1};

static void hosts_compute(const char *fn, const shoal_peset_t *set, shoal_hosts_t *h)
{
    const int me_node = shoal.node[shoal_peset_world(set, set->my_index)];
    unsigned char *seen = calloc((size_t)SHOAL_NPES, 1);
    h->local = malloc(sizeof(int) * (size_t)set->size);
    h->leaders = malloc(sizeof(int) * (size_t)set->size);
    if (seen == NULL || h->local == NULL || h->leaders == NULL)
        shoal_fatal("%s: cannot allocate %d words of private scratch memory", fn, set->size);
    h->nhosts = h->nlocal = 0;
    h->my_host = -1;
    for (int i = 0; i < set->size; i++) {
        int node = shoal.node[shoal_peset_world(set, i)];
        if (!seen[node]) {
            seen[node] = 1;
            if (node == me_node)
                h->my_host = h->nhosts;
            h->leaders[h->nhosts++] = i;
        }
        if (node == me_node)
            h->local[h->nlocal++] = i;
    }
    free(seen);
    h->leader = h->local[0];
}

static const shoal_hosts_t *hosts_find(const shoal_peset_t *set)
{
    for (hosts_entry_t *e = __atomic_load_n(&cache, __ATOMIC_ACQUIRE); e != NULL; e = e->next)
        if (e->start == set->start && e->stride == set->stride && e->size == set->size)
            return &e->hosts;
    return NULL;
}

const shoal_hosts_t *shoal_hosts_of(const char *fn, const shoal_peset_t *set)
{
    if (!shoal.route.net)
        return &one_host; /* every PE is on this host */
    const shoal_hosts_t *h = hosts_find(set);
    if (h != NULL)
        return h;
    pthread_mutex_lock(&cache_lock);
    h = hosts_find(set);
    if (h == NULL) {
        hosts_entry_t *e = calloc(1, sizeof(*e));
        if (e == NULL)
            shoal_fatal("%s: cannot allocate a host layout", fn);
        e->start = set->start;
        e->stride = set->stride;
        e->size = set->size;
        hosts_compute(fn, set, &e->hosts);
        e->next = cache;
        __atomic_store_n(&cache, e, __ATOMIC_RELEASE);
        h = &e->hosts;
    }
    pthread_mutex_unlock(&cache_lock);
    return h;
}

void shoal_hosts_finalize(void)
{
    pthread_mutex_lock(&cache_lock);
    hosts_entry_t *e = cache;
    cache = NULL;
    pthread_mutex_unlock(&cache_lock);
    while (e != NULL) {
        hosts_entry_t *next = e->next;
        free(e->hosts.local);
        free(e->hosts.leaders);
        free(e);
        e = next;
    }
}
