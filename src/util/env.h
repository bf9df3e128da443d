/*
 * Settings read from the environment (see env_table.h for the rows).
 */
#ifndef SHOAL_UTIL_ENV_H
#define SHOAL_UTIL_ENV_H

#include <stddef.h>
#include <stdio.h>

#include "util/env_table.h"
#include "util/status.h"

typedef size_t shoal_env_size_t;
typedef int shoal_env_bool_t;
typedef unsigned shoal_env_uint_t;
typedef const char *shoal_env_string_t;
typedef const char *shoal_env_secret_t; /* a string never printed */

typedef struct {
#define SHOAL_ENV_FIELD(var, type, field, def, doc) shoal_env_##type##_t field;
    SHOAL_ENV_TABLE(SHOAL_ENV_FIELD)
#undef SHOAL_ENV_FIELD
    /* Whether each variable was set (to a valid value): `env.set.field`. */
    struct {
#define SHOAL_ENV_SET_FLAG(var, type, field, def, doc) unsigned char field;
        SHOAL_ENV_TABLE(SHOAL_ENV_SET_FLAG)
#undef SHOAL_ENV_SET_FLAG
    } set;
} shoal_env_t;

/* The process's settings: read by shmem_init (shoal_env_load(&shoal_env)) and
 * read from there by every part of the library, so the environment is
 * parsed once per init. */
extern shoal_env_t shoal_env;

/* Reads every setting; on a malformed value logs which variable and why.
 * Takes the secrets out of the process's environment (unless
 * SHOAL_JOB_KEY_INHERIT), keeping a copy that later readings return. */
shoal_status_t shoal_env_load(shoal_env_t *env);
/* shoal_env, read first if nothing has read it yet (code that can run before
 * shmem_init, e.g. shmemx_get_uniqueid); NULL if a value is malformed (logged). */
const shoal_env_t *shoal_env_get(void);
/* The same for the variables named in `names` (NULL-terminated) only, for a
 * tool that reads a few rows (shoalrun). */
shoal_status_t shoal_env_load_only(shoal_env_t *env, const char *const *names);
/* Prints the settings as "VAR = value" lines (markdown = 0) or the docs/env.md table. */
void shoal_env_print(FILE *out, const shoal_env_t *env, int markdown);
/* Warns about each SHMEM_* or SHOAL_* variable in the environment that is not
 * a setting but is one or two edits away from one (a likely typo). */
void shoal_env_warn_typos(void);

#endif
