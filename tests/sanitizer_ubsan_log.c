/*
 * Linked into every program and library of a tree built with ASan and UBSan
 * together (tests/sanitized_build.sh): gives UBSan's runtime the log_path of
 * UBSAN_OPTIONS, which it otherwise never gets.
 *
 * gcc links two sanitizer runtimes there, libasan and libubsan, each with
 * its own copy of the common report code. libubsan's start-up passes its
 * log_path to __sanitizer_set_report_path through the dynamic linker, which
 * binds that name to libasan's copy (libasan comes first), so libubsan keeps
 * writing its reports ("runtime error: ...") to stderr. A test that keeps a
 * PE's output to itself, or expects the job to fail, would then hide a
 * report that scripts/test_sanitized.sh looks for in files. This constructor
 * looks the function up in libubsan itself and calls it with the path.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__attribute__((constructor)) static void sanitizer_ubsan_log_path(void)
{
    const char *opts = getenv("UBSAN_OPTIONS");
    if (opts == NULL)
        return;
    /* The last log_path= wins, as in the runtime's own parser. */
    static char path[4096];
    const char *key = "log_path=";
    for (const char *p = opts; (p = strstr(p, key)) != NULL; p++) {
        if (p != opts && p[-1] != ':' && p[-1] != ' ' && p[-1] != ',')
            continue;
        size_t n = strcspn(p + strlen(key), ": ,");
        if (n < sizeof(path)) {
            memcpy(path, p + strlen(key), n);
            path[n] = '\0';
        }
    }
    if (path[0] == '\0')
        return;
    void *ubsan = dlopen("libubsan.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (ubsan == NULL)
        return;
    void (*set_path)(const char *) =
        (void (*)(const char *))(uintptr_t)dlsym(ubsan, "__sanitizer_set_report_path");
    if (set_path != NULL)
        set_path(path);
    dlclose(ubsan);
}
