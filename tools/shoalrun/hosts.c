/*
 * The hosts of a multi-host job and where its PEs go. --host gives
 * "name[:slots]" items, --hostfile Open MPI's "name [slots=N]" lines; a host
 * named twice adds its slots up. PEs are placed as mpirun's default
 * (--map-by slot): each host's slots are filled in the order the hosts were
 * named, so ranks are block-wise by host; -N puts that many on every host
 * instead. More PEs than slots is an error unless --oversubscribe, which
 * deals the rest out one per host in turn.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shoalrun.h"

typedef struct {
    sr_host_t *hosts;
    int count;
} host_set_t;

/* A number of slots: 1 to SR_MAX_NPES, digits only. */
static bool parse_slots(const char *text, size_t len, int *slots_p)
{
    long v = 0;
    if (len == 0 || len > 5)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)text[i]))
            return false;
        v = v * 10 + (text[i] - '0');
    }
    if (v < 1 || v > SR_MAX_NPES)
        return false;
    *slots_p = (int)v;
    return true;
}

static void add_host(host_set_t *set, const char *name, size_t len, int slots)
{
    for (int k = 0; k < set->count; k++)
        if (strlen(set->hosts[k].name) == len && memcmp(set->hosts[k].name, name, len) == 0) {
            set->hosts[k].slots += slots;
            if (set->hosts[k].slots > SR_MAX_NPES)
                set->hosts[k].slots = SR_MAX_NPES;
            return;
        }
    set->hosts = sr_xrealloc(set->hosts, (size_t)(set->count + 1) * sizeof(*set->hosts));
    sr_host_t *h = &set->hosts[set->count++];
    *h = (sr_host_t){.name = sr_xmalloc(len + 1), .slots = slots};
    memcpy(h->name, name, len);
    h->name[len] = '\0';
}

/* A host name: what a shell command line and our own lists can carry. */
static bool valid_name(const char *name, size_t len)
{
    if (len == 0 || len > 255)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)name[i]) && strchr("-._@", name[i]) == NULL)
            return false;
    return true;
}

static int parse_host_list(host_set_t *set, const char *list)
{
    const char *p = list;
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *colon = memchr(p, ':', len);
        size_t name_len = colon ? (size_t)(colon - p) : len;
        int slots = 1;
        if (!valid_name(p, name_len) ||
            (colon && !parse_slots(colon + 1, len - name_len - 1, &slots))) {
            sr_msg("--host expects HOST[:SLOTS],... (SLOTS from 1 to %d), got '%.*s' in '%s'",
                   SR_MAX_NPES, (int)len, p, list);
            return -1;
        }
        add_host(set, p, name_len, slots);
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static int parse_hostfile(host_set_t *set, const char *path)
{
    FILE *f = fopen(path, "r");
    char line[1024];
    int lineno = 0;

    if (f == NULL) {
        sr_msg("--hostfile %s: cannot open it: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        line[strcspn(line, "#\n")] = '\0';
        char *save = NULL, *name = strtok_r(line, " \t\r", &save);
        if (name == NULL)
            continue; /* blank or a comment */
        int slots = 1;
        bool ok = valid_name(name, strlen(name));
        for (char *tok; ok && (tok = strtok_r(NULL, " \t\r", &save)) != NULL;) {
            if (strncmp(tok, "slots=", 6) == 0)
                ok = parse_slots(tok + 6, strlen(tok + 6), &slots);
            else if (strncmp(tok, "max_slots=", 10) == 0 || strncmp(tok, "max-slots=", 10) == 0)
                ok =
                    parse_slots(tok + 10, strlen(tok + 10), &(int){0}); /* a limit: ours is slots */
            else
                ok = false;
        }
        if (!ok) {
            sr_msg("--hostfile %s line %d: expected 'HOST [slots=N]' (N from 1 to %d)", path,
                   lineno, SR_MAX_NPES);
            fclose(f);
            return -1;
        }
        add_host(set, name, strlen(name), slots);
    }
    fclose(f);
    if (set->count == 0) {
        sr_msg("--hostfile %s names no host", path);
        return -1;
    }
    return 0;
}

/* Sets each host's share of the job and drops the hosts left without PEs. */
static int place(sr_options_t *opts, host_set_t *set)
{
    long total = 0;
    int left;

    for (int k = 0; k < set->count; k++)
        total += opts->npernode > 0 ? opts->npernode : set->hosts[k].slots;
    if (!opts->npes_given)
        opts->npes = total > SR_MAX_NPES ? SR_MAX_NPES + 1 : (int)total;
    if (opts->npes > SR_MAX_NPES) {
        sr_msg("the hosts' %ld slots make more than %d PEs; give -n", total, SR_MAX_NPES);
        return -1;
    }
    if (opts->npes > total && opts->npernode > 0) {
        sr_msg("-n %d is more than -N %d PEs on each of %d hosts", opts->npes, opts->npernode,
               set->count);
        return -1;
    }
    if (opts->npes > total && !opts->oversubscribe) {
        sr_msg("-n %d is more than the %ld slots of the %d hosts; name more slots "
               "(HOST:SLOTS, slots=N) or give --oversubscribe",
               opts->npes, total, set->count);
        return -1;
    }
    left = opts->npes;
    for (int k = 0; k < set->count; k++) {
        int cap = opts->npernode > 0 ? opts->npernode : set->hosts[k].slots;
        set->hosts[k].npes = left < cap ? left : cap;
        left -= set->hosts[k].npes;
    }
    for (int k = 0; left > 0; k = (k + 1) % set->count, left--)
        set->hosts[k].npes++; /* --oversubscribe */

    int kept = 0, rank = 0;
    for (int k = 0; k < set->count; k++) {
        if (set->hosts[k].npes == 0) {
            free(set->hosts[k].name);
            continue;
        }
        set->hosts[kept] = set->hosts[k];
        set->hosts[kept].first_rank = rank;
        rank += set->hosts[kept].npes;
        kept++;
    }
    set->count = kept;
    return 0;
}

int sr_hosts_load(sr_options_t *opts, sr_host_t **hosts_p, int *nhosts_p)
{
    host_set_t set = {0};
    int rc = opts->hostfile ? parse_hostfile(&set, opts->hostfile)
                            : parse_host_list(&set, opts->host_list);
    if (rc == 0)
        rc = place(opts, &set);
    if (rc != 0) {
        for (int k = 0; k < set.count; k++)
            free(set.hosts[k].name);
        free(set.hosts);
        return -1;
    }
    *hosts_p = set.hosts;
    *nhosts_p = set.count;
    return 0;
}
