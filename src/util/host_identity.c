/*
 * The host identity of this process (see host_identity.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/env.h"
#include "util/host_identity.h"

void shoal_host_identity(char *out, size_t size)
{
    char host[64] = "?", boot[48] = "?", netns[48] = "?";
    if (shoal_env.node != NULL && shoal_env.node[0] != '\0') {
        snprintf(out, size, "node:%s", shoal_env.node);
        return;
    }
    if (gethostname(host, sizeof(host) - 1) != 0)
        strcpy(host, "?");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (f != NULL) {
        if (fgets(boot, sizeof(boot), f) == NULL)
            strcpy(boot, "?");
        boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
    ssize_t n = readlink("/proc/self/ns/net", netns, sizeof(netns) - 1);
    netns[n > 0 ? n : 1] = '\0';
    snprintf(out, size, "%s|%s|%s", host, boot, netns);
}

void shoal_host_label(const char *identity, char *out, size_t size)
{
    const char *first = strchr(identity, '|'), *last = strrchr(identity, '|');
    if (first == NULL || first == last)
        snprintf(out, size, "%s", identity);
    else
        snprintf(out, size, "%.*s, %s", (int)(first - identity), identity, last + 1);
}
