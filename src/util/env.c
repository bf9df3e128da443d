/*
 * The settings parser and printer, generated from env_table.h. Secrets
 * (SHOAL_JOB_KEY) are taken out of the environment once read, so that the
 * programs a PE starts do not inherit them.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/env.h"
#include "util/log.h"

shoal_env_t shoal_env;

static shoal_status_t parse_size(const char *s, shoal_env_size_t *out_p)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno != 0)
        return SHOAL_ERR_INVALID;
    unsigned shift = 0;
    switch (tolower((unsigned char)*end)) {
    case '\0':
        break;
    case 'k':
        shift = 10;
        end++;
        break;
    case 'm':
        shift = 20;
        end++;
        break;
    case 'g':
        shift = 30;
        end++;
        break;
    case 't':
        shift = 40;
        end++;
        break;
    default:
        return SHOAL_ERR_INVALID;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || (shift && v > (~0ull >> shift)))
        return SHOAL_ERR_INVALID;
    *out_p = (shoal_env_size_t)(v << shift);
    return SHOAL_OK;
}

static shoal_status_t parse_bool(const char *s, shoal_env_bool_t *out_p)
{
    static const char *const yes[] = {"1", "y", "yes", "true", "on"};
    static const char *const no[] = {"0", "n", "no", "false", "off", ""};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (strcasecmp(s, yes[i]) == 0) {
            *out_p = 1;
            return SHOAL_OK;
        }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (strcasecmp(s, no[i]) == 0) {
            *out_p = 0;
            return SHOAL_OK;
        }
    return SHOAL_ERR_INVALID;
}

static shoal_status_t parse_uint(const char *s, shoal_env_uint_t *out_p)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v > 0xffffffffUL || s[0] == '-')
        return SHOAL_ERR_INVALID;
    *out_p = (shoal_env_uint_t)v;
    return SHOAL_OK;
}

__attribute__((unused)) static shoal_status_t parse_string(const char *s, shoal_env_string_t *out_p)
{
    *out_p = s;
    return SHOAL_OK;
}

__attribute__((unused)) static shoal_status_t parse_secret(const char *s, shoal_env_secret_t *out_p)
{
    *out_p = s;
    return SHOAL_OK;
}

static const char *const type_help[] = {
    [0] = "a byte count with an optional k, m, g or t suffix, e.g. 512m",
};

/* Whether `var` is among `names` (NULL: all are). */
static int env_named(const char *const *names, const char *var)
{
    if (names == NULL)
        return 1;
    for (; *names != NULL; names++)
        if (strcmp(*names, var) == 0)
            return 1;
    return 0;
}

/* ---- secrets ---- */

extern char **environ;

/* The environment block the process started with, the bytes the kernel
 * shows in /proc/PID/environ (fields 50 and 51 of /proc/self/stat,
 * env_start and env_end). 0 when unknown. */
static int env_block(uintptr_t *start_p, uintptr_t *end_p)
{
    char buf[4096], *save = NULL;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name before it may hold spaces */
    if (p == NULL)
        return 0;
    int field = 3;
    for (char *tok = strtok_r(p + 1, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save)) {
        if (field == 50)
            *start_p = (uintptr_t)strtoull(tok, NULL, 10);
        else if (field == 51) {
            *end_p = (uintptr_t)strtoull(tok, NULL, 10);
            return *start_p != 0 && *end_p > *start_p;
        }
        field++;
    }
    return 0;
}

/* Removes `var` from the environment, and wipes its text where it lies in
 * the block the process started with: unsetenv only drops the pointer,
 * and /proc/PID/environ would still show the value to anyone allowed to
 * read it. Text elsewhere (setenv's or putenv's) is left alone: it is not
 * shown there, and putenv's may be read-only. */
static void env_scrub(const char *var)
{
    size_t len = strlen(var);
    char *found[8];
    int n = 0;
    for (char **e = environ; e != NULL && *e != NULL && n < 8; e++)
        if (strncmp(*e, var, len) == 0 && (*e)[len] == '=')
            found[n++] = *e;
    if (n == 0)
        return;
    unsetenv(var);
    uintptr_t start = 0, end = 0;
    if (!env_block(&start, &end))
        return;
    for (int i = 0; i < n; i++) {
        size_t size = strlen(found[i]);
        if ((uintptr_t)found[i] >= start && (uintptr_t)found[i] + size < end)
            explicit_bzero(found[i], size);
    }
}

/* Each secret taken from the environment, so that a later reading (a
 * shmem_init after shmem_finalize) still finds it. Kept for the process's
 * life. */
static struct {
    const char *var;
    char *value;
} taken[4];

static char *taken_value(const char *var)
{
    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
        if (taken[i].var != NULL && strcmp(taken[i].var, var) == 0)
            return taken[i].value;
    return NULL;
}

/* Copies a secret's value out of the environment, then removes it there
 * unless `keep`; a secret no longer in the environment is the copy. */
static void take_secret(const char *var, shoal_env_secret_t *field, unsigned char *set, int keep)
{
    char *copy = taken_value(var);
    if (!*set) {
        if (copy != NULL) {
            *field = copy;
            *set = 1;
        }
        return;
    }
    if (keep)
        return;
    if (copy == NULL || strcmp(copy, *field) != 0) {
        size_t i = 0;
        while (i < sizeof(taken) / sizeof(taken[0]) && taken[i].var != NULL &&
               strcmp(taken[i].var, var) != 0)
            i++;
        if (i == sizeof(taken) / sizeof(taken[0]) || (copy = strdup(*field)) == NULL)
            return; /* left in the environment rather than lost */
        taken[i].var = var;
        taken[i].value = copy; /* a value replaced here stays allocated: *field may be it */
    }
    *field = copy;
    env_scrub(var);
}

#define SHOAL_ENV_TAKE_NOTHING(type)                                                               \
    __attribute__((unused)) static void take_##type(const char *var, shoal_env_##type##_t *field,  \
                                                    unsigned char *set, int keep)                  \
    {                                                                                              \
        (void)var, (void)field, (void)set, (void)keep;                                             \
    }
SHOAL_ENV_TAKE_NOTHING(size)
SHOAL_ENV_TAKE_NOTHING(bool)
SHOAL_ENV_TAKE_NOTHING(uint)
SHOAL_ENV_TAKE_NOTHING(string)
#undef SHOAL_ENV_TAKE_NOTHING

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static int env_loaded; /* shoal_env holds a valid reading */

shoal_status_t shoal_env_load(shoal_env_t *env)
{
    shoal_status_t status = shoal_env_load_only(env, NULL);
#define SHOAL_ENV_TAKE(var, type, field, def, doc)                                                 \
    take_##type(#var, &env->field, &env->set.field, env->job_key_inherit);
    SHOAL_ENV_TABLE(SHOAL_ENV_TAKE)
#undef SHOAL_ENV_TAKE
    if (env == &shoal_env)
        __atomic_store_n(&env_loaded, status == SHOAL_OK, __ATOMIC_RELEASE);
    return status;
}

const shoal_env_t *shoal_env_get(void)
{
    if (__atomic_load_n(&env_loaded, __ATOMIC_ACQUIRE))
        return &shoal_env;
    pthread_mutex_lock(&env_lock);
    shoal_status_t status = env_loaded ? SHOAL_OK : shoal_env_load(&shoal_env);
    pthread_mutex_unlock(&env_lock);
    return status == SHOAL_OK ? &shoal_env : NULL;
}

shoal_status_t shoal_env_load_only(shoal_env_t *env, const char *const *names)
{
    shoal_status_t status = SHOAL_OK;
#define SHOAL_ENV_LOAD(var, type, field, def, doc)                                                 \
    if (env_named(names, #var)) {                                                                  \
        const char *value = getenv(#var);                                                          \
        parse_##type(def, &env->field);                                                            \
        env->set.field = value != NULL;                                                            \
        if (value != NULL && parse_##type(value, &env->field) != SHOAL_OK) {                       \
            SHOAL_ERROR("environment variable %s='%s' is not a valid " #type                       \
                        " value (%s); unset it or fix it (default: %s)",                           \
                        #var, value,                                                               \
                        strcmp(#type, "size") == 0 ? type_help[0] : "see docs/env.md", def);       \
            parse_##type(def, &env->field);                                                        \
            env->set.field = 0;                                                                    \
            status = SHOAL_ERR_INVALID;                                                            \
        }                                                                                          \
    }
    SHOAL_ENV_TABLE(SHOAL_ENV_LOAD)
#undef SHOAL_ENV_LOAD
    return status;
}

static void print_value_size(FILE *out, shoal_env_size_t v)
{
    fprintf(out, "%zu", v);
}
static void print_value_bool(FILE *out, shoal_env_bool_t v)
{
    fprintf(out, "%d", v);
}
static void print_value_uint(FILE *out, shoal_env_uint_t v)
{
    fprintf(out, "%u", v);
}
__attribute__((unused)) static void print_value_string(FILE *out, shoal_env_string_t v)
{
    fprintf(out, "%s", v ? v : "");
}
__attribute__((unused)) static void print_value_secret(FILE *out, shoal_env_secret_t v)
{
    fprintf(out, "%s", v && *v ? "(set, not shown)" : "");
}

/* Edit distance of a and b, capped: anything above `cap` is cap + 1. */
static unsigned distance(const char *a, const char *b, unsigned cap)
{
    unsigned row[64], la = (unsigned)strlen(a), lb = (unsigned)strlen(b);
    if (la >= 64 || lb >= 64 || (la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    for (unsigned j = 0; j <= lb; j++)
        row[j] = j;
    for (unsigned i = 1; i <= la; i++) {
        unsigned diag = row[0], best = row[0] = i;
        for (unsigned j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = diag + (a[i - 1] != b[j - 1]);
            row[j] = cost < up + 1 ? cost : up + 1;
            if (row[j - 1] + 1 < row[j])
                row[j] = row[j - 1] + 1;
            diag = up;
            if (row[j] < best)
                best = row[j];
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb];
}

void shoal_env_warn_typos(void)
{
    static const char *const known[] = {
#define SHOAL_ENV_NAME(var, type, field, def, doc) #var,
        SHOAL_ENV_TABLE(SHOAL_ENV_NAME)
#undef SHOAL_ENV_NAME
    };
    extern char **environ;
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        if (strncmp(*e, "SHMEM_", 6) != 0 && strncmp(*e, "SHOAL_", 6) != 0)
            continue;
        char name[64];
        size_t len = strcspn(*e, "=");
        if (len >= sizeof(name))
            continue;
        memcpy(name, *e, len);
        name[len] = '\0';
        const char *closest = NULL;
        unsigned best = 3;
        for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
            unsigned d = distance(name, known[k], 2);
            if (d == 0) {
                closest = NULL;
                break;
            }
            if (d < best) {
                best = d;
                closest = known[k];
            }
        }
        if (closest != NULL)
            SHOAL_WARN("environment variable %s is not a setting Shoal knows; did you mean %s? "
                       "(shoal-info lists them all)",
                       name, closest);
    }
}

void shoal_env_print(FILE *out, const shoal_env_t *env, int markdown)
{
    if (markdown) {
        fprintf(out, "# Shoal settings\n\n"
                     "Generated by `shoal-info --env-markdown` from `src/util/env_table.h`; "
                     "do not edit by hand.\n\n"
                     "| variable | type | default | meaning |\n|---|---|---|---|\n");
#define SHOAL_ENV_MD(var, type, field, def, doc)                                                   \
    fprintf(out, "| `%s` | %s | `%s` | %s |\n", #var, #type, def, doc);
        SHOAL_ENV_TABLE(SHOAL_ENV_MD)
#undef SHOAL_ENV_MD
        return;
    }
#define SHOAL_ENV_PRINT(var, type, field, def, doc)                                                \
    fprintf(out, "  %-24s = ", #var);                                                              \
    print_value_##type(out, env->field);                                                           \
    fprintf(out, "%s\n", env->set.field ? "" : "  (default)");
    SHOAL_ENV_TABLE(SHOAL_ENV_PRINT)
#undef SHOAL_ENV_PRINT
}
