/*
 * Loads the UCX transport plugin (libshoal_ucx.so) when a job spans hosts.
 * It is looked up next to libshoal first, so a build tree and an installed
 * library each find their own, then through the usual library search path.
 * RTLD_LOCAL keeps UCX's symbols (libucm's memory hooks among them) out of
 * the program's global scope.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "transport/ucx/ucx.h"
#include "util/env.h"
#include "util/log.h"

static void *ucx_plugin_open(void)
{
    Dl_info info;
    char path[4096];
    if (dladdr((void *)ucx_plugin_open, &info) != 0 && info.dli_fname != NULL) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash != NULL &&
            (size_t)(slash - info.dli_fname) + sizeof(SHOAL_UCX_PLUGIN_FILE) + 1 < sizeof(path)) {
            snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                     SHOAL_UCX_PLUGIN_FILE);
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h != NULL)
                return h;
        }
    }
    return dlopen(SHOAL_UCX_PLUGIN_FILE, RTLD_NOW | RTLD_LOCAL);
}

shoal_status_t shoal_ucx_init(shoal_bootstrap_t *bs, unsigned generation, const uint8_t *mapped,
                              shoal_transport_t **tr_p)
{
    static void *handle;
    static shoal_ucx_plugin_init_fn init;
    if (handle == NULL) {
        handle = ucx_plugin_open();
        if (handle == NULL) {
            SHOAL_ERROR("some PEs are on other hosts, but the UCX transport %s cannot be "
                        "loaded: %s; install it next to libshoal",
                        SHOAL_UCX_PLUGIN_FILE, dlerror());
            return SHOAL_ERR_NOT_FOUND;
        }
        init = (shoal_ucx_plugin_init_fn)dlsym(handle, SHOAL_UCX_PLUGIN_ENTRY);
        if (init == NULL) {
            SHOAL_ERROR("%s has no %s: %s", SHOAL_UCX_PLUGIN_FILE, SHOAL_UCX_PLUGIN_ENTRY,
                        dlerror());
            dlclose(handle);
            handle = NULL;
            return SHOAL_ERR_NOT_FOUND;
        }
    }
    /* The plugin stays loaded: its progress thread and memory hooks must not
     * disappear under a later shmem_init. */
    shoal_ucx_plugin_settings_t set = {shoal_log_level,
                                       shoal_env.debug_subsys,
                                       shoal_env.log_file,
                                       shoal_env.net_timeout,
                                       shoal_env.wait_yield_us,
                                       shoal_env.wait_sleep_us,
                                       !shoal_env.set.wait_sleep_us};
    return init(&set, bs, generation, mapped, tr_p);
}
