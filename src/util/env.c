/*
 * The settings parser and printer, generated from env_table.h.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static int env_loaded; /* shoal_env holds a valid reading */

shoal_status_t shoal_env_load(shoal_env_t *env)
{
    shoal_status_t status = shoal_env_load_only(env, NULL);
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
    fprintf(out, "%s\n", getenv(#var) ? "" : "  (default)");
    SHOAL_ENV_TABLE(SHOAL_ENV_PRINT)
#undef SHOAL_ENV_PRINT
}
