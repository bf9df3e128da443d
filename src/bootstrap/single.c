/*
 * The one-PE bootstrap: a program started without a launcher is a job of one
 * PE. Its key-value store is a small local list, so the core runs the same
 * code path as in a real job.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <stdio.h>

#include "bootstrap/bootstrap.h"

typedef struct single_entry {
    struct single_entry *next;
    char *key;
    size_t len;
    unsigned char value[];
} single_entry_t;

static shoal_status_t single_put(shoal_bootstrap_t *bs, const char *key, const void *value,
                                 size_t len)
{
    single_entry_t *e = malloc(sizeof(*e) + len);
    if (e == NULL)
        return SHOAL_ERR_NOMEM;
    e->key = strdup(key);
    if (e->key == NULL) {
        free(e);
        return SHOAL_ERR_NOMEM;
    }
    e->len = len;
    memcpy(e->value, value, len);
    e->next = bs->priv;
    bs->priv = e;
    return SHOAL_OK;
}

static shoal_status_t single_get(shoal_bootstrap_t *bs, int pe, const char *key, void *value,
                                 size_t max_len, size_t *len_p)
{
    if (pe != 0)
        return SHOAL_ERR_INVALID;
    for (single_entry_t *e = bs->priv; e != NULL; e = e->next) {
        if (strcmp(e->key, key) != 0)
            continue;
        if (e->len > max_len)
            return SHOAL_ERR_TRUNCATED;
        memcpy(value, e->value, e->len);
        if (len_p)
            *len_p = e->len;
        return SHOAL_OK;
    }
    return SHOAL_ERR_NOT_FOUND;
}

static shoal_status_t single_nop(shoal_bootstrap_t *bs)
{
    (void)bs;
    return SHOAL_OK;
}

static void single_abort(shoal_bootstrap_t *bs, int status, const char *msg)
{
    (void)bs;
    if (msg && *msg)
        fprintf(stderr, "%s\n", msg);
    fflush(NULL);
    _exit(status);
}

static void single_finalize(shoal_bootstrap_t *bs)
{
    single_entry_t *e = bs->priv;
    while (e != NULL) {
        single_entry_t *next = e->next;
        free(e->key);
        free(e);
        e = next;
    }
    bs->priv = NULL;
}

static const shoal_bootstrap_ops_t single_ops = {
    .version = SHOAL_BOOTSTRAP_VERSION,
    .name = "single",
    .put = single_put,
    .get = single_get,
    .fence = single_nop,
    .barrier = single_nop,
    .notify = NULL,
    .abort = single_abort,
    .finalize = single_finalize,
    .allgather = shoal_bootstrap_allgather_by_gets,
};

shoal_status_t shoal_bootstrap_single_init(shoal_bootstrap_t *bs)
{
    memset(bs, 0, sizeof(*bs));
    bs->ops = &single_ops;
    bs->rank = 0;
    bs->npes = 1;
    bs->local_rank = 0;
    bs->local_npes = 1;
    snprintf(bs->job_id, sizeof(bs->job_id), "single-%ld", (long)getpid());
    return SHOAL_OK;
}
