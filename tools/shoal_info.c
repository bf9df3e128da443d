/*
 * shoal-info: prints the library version and every setting with its value
 * in this environment, or (--env-markdown) the docs/env.md table.
 */
#include <stdio.h>
#include <string.h>

#include <shmem.h>

#include "util/env.h"

int main(int argc, char **argv)
{
    shoal_env_t env = {0};
    if (argc > 1 && strcmp(argv[1], "--env-markdown") == 0) {
        shoal_env_print(stdout, &env, 1);
        return 0;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: shoal-info [--env-markdown]\n");
        return 2;
    }
    int rc = shoal_env_load(&env) == SHOAL_OK ? 0 : 1;
    printf("%s, OpenSHMEM %d.%d\nSettings (from the environment or default):\n",
           SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    shoal_env_print(stdout, &env, 0);
    return rc;
}
