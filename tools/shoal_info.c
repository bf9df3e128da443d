/*
 * shoal-info: prints the library version, what this build holds (the
 * transports and bootstraps compiled in, whether the UCX plugin loads and
 * which UCX it runs on) and every setting with its value in this
 * environment; or (--env-markdown) the docs/env.md table.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <shmem.h>

#include "shoal_build.h"
#include "transport/ucx/ucx.h"
#include "util/env.h"

/* Opens the UCX plugin where the library would find it: next to libshoal,
 * which is the library folder (installed) or .. (build tree) from this
 * program, then
 * through the library search path. The path that worked in `where`. */
static void *open_plugin(char *where, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            static const char *const rel[] = {SHOAL_BUILD_BIN_TO_LIB, ".."};
            for (unsigned i = 0; i < 2; i++) {
                snprintf(where, size, "%s/%s/%s", exe, rel[i], SHOAL_UCX_PLUGIN_FILE);
                void *h = dlopen(where, RTLD_NOW | RTLD_LOCAL);
                if (h != NULL)
                    return h;
            }
        }
    }
    snprintf(where, size, "%s", SHOAL_UCX_PLUGIN_FILE);
    return dlopen(where, RTLD_NOW | RTLD_LOCAL);
}

/* 1 when an executable `name` is in a folder of PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char dir[PATH_MAX];
    while (path != NULL && *path != '\0') {
        const char *end = strchr(path, ':');
        const size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
        if (n > 0 && n + strlen(name) + 2 < sizeof(dir)) {
            snprintf(dir, sizeof(dir), "%.*s/%s", (int)n, path, name);
            if (access(dir, X_OK) == 0)
                return 1;
        }
        path = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

static void print_build(void)
{
    printf("Build: version %s, %s, %s\n", SHOAL_BUILD_VERSION,
           SHOAL_BUILD_TYPE[0] ? SHOAL_BUILD_TYPE : "no build type", SHOAL_BUILD_COMPILER);
    printf("  transports: shared memory (same host)%s\n",
           SHOAL_BUILD_UCX_VERSION[0] ? ", UCX (other hosts; plugin " SHOAL_UCX_PLUGIN_FILE
                                        ", built against UCX " SHOAL_BUILD_UCX_VERSION ")"
                                      : "; no UCX: jobs cannot span hosts");
    printf("  bootstraps: shoalrun, config store (TCP, TLS with OpenSSL %s)%s, single PE\n",
           SHOAL_BUILD_OPENSSL_VERSION,
           SHOAL_BUILD_PMIX_VERSION[0] ? ", PMIx " SHOAL_BUILD_PMIX_VERSION " (mpirun, srun)"
                                       : "; no PMIx: mpirun and srun starts not supported");
    printf("  CUDA: %s; PEs sharing a GPU: %s\n", SHOAL_BUILD_CUDA,
           on_path("nvidia-cuda-mps-control")
               ? "MPS is installed (nvidia-cuda-mps-control): under it their kernels run at once"
               : "no MPS here: the driver time-slices them (~1 ms a slice per hand-off)");
    if (SHOAL_BUILD_UCX_VERSION[0] == '\0')
        return;
    char where[PATH_MAX + 64];
    void *h = open_plugin(where, sizeof(where));
    if (h == NULL) {
        printf("  UCX plugin: does not load (%s); jobs that span hosts will fail\n", dlerror());
        return;
    }
    const char *(*ucx_version)(void) = (const char *(*)(void))dlsym(h, "ucp_get_version_string");
    printf("  UCX plugin: loads from %s%s, entry %s, running on UCX %s\n", where,
           dlsym(h, SHOAL_UCX_PLUGIN_ENTRY) != NULL ? "" : " BUT LACKS ITS ENTRY POINT",
           SHOAL_UCX_PLUGIN_ENTRY, ucx_version != NULL ? ucx_version() : "(unknown)");
}

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
    shoal_env_warn_typos();
    printf("%s, OpenSHMEM %d.%d\n", SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION);
    print_build();
    printf("Settings (from the environment or default):\n");
    shoal_env_print(stdout, &env, 0);
    return rc;
}
