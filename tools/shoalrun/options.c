/*
 * shoalrun's command line. Options come first; the first word that is not an
 * option is the program, and everything after it belongs to the program.
 * Each value is checked strictly, and an error names the option as the user
 * spelled it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shoalrun.h"
#include "util/env.h"

#ifndef SHOALRUN_VERSION
#define SHOALRUN_VERSION "(version unknown)"
#endif

#define SR_DEFAULT_NPES 1
#define SR_MAX_TIMEOUT_S 1e9

static void print_usage(FILE *f)
{
    fprintf(f,
            "Usage: shoalrun [options] program [args...]\n"
            "Starts a Shoal OpenSHMEM job of N PEs on this host.\n"
            "\n"
            "  -n, -np, --npes N  number of PEs, 1 to %d (default %d)\n"
            "  -t, --tag-output   prefix every output line with \"[PE n] \"\n"
            "  --timeout S        end the job after S seconds (fractions allowed; 0: no\n"
            "                     limit) and exit with status 124, after every PE still\n"
            "                     in Shoal printed its hang report; the default comes\n"
            "                     from SHOAL_TIMEOUT, else there is no limit\n"
            "  -x VAR[=VALUE]     set VAR for the PEs (without a value: passed as it is;\n"
            "                     the PEs get shoalrun's whole environment anyway)\n"
            "  --bind-to core|none  core: pin PE i to the (i mod n)-th of the n CPUs\n"
            "                     shoalrun may run on; none: no pinning. Default: when\n"
            "                     the PEs fit on the CPUs shoalrun may use that no other\n"
            "                     job holds, PE i is pinned to the i-th of them; else none\n"
            "  --report-bindings  print each PE's CPUs (and why it is not pinned) at start\n"
            "  --oversubscribe, --allow-run-as-root, --map-by X\n"
            "                     accepted for mpirun/oshrun scripts; no effect here\n"
            "  -h, --help         show this help\n"
            "  -V, --version      show the version\n"
            "  --                 end of options\n"
            "\n"
            "PE 0 reads shoalrun's standard input; the other PEs read /dev/null.\n"
            "SIGUSR1 to shoalrun makes every PE print where it is blocked (its hang\n"
            "report, docs/debugging.md); the job goes on.\n"
            "The exit status is 0 when every PE exits with 0; 128+n when a PE was\n"
            "killed by signal n; a failing PE's status; the status given to\n"
            "shmem_global_exit; 124 on timeout; 126 or 127 when the program cannot\n"
            "be run.\n",
            SR_MAX_NPES, SR_DEFAULT_NPES);
}

static int parse_npes(const char *opt, const char *text, int *npes_p)
{
    char *end;
    long v;

    errno = 0;
    v = (text && isdigit((unsigned char)text[0])) ? strtol(text, &end, 10) : -1;
    if (v < 1 || v > SR_MAX_NPES || errno != 0 || *end != '\0') {
        sr_msg("%s expects a number of PEs from 1 to %d, got '%s'", opt, SR_MAX_NPES,
               text ? text : "");
        return -1;
    }
    *npes_p = (int)v;
    return 0;
}

static int parse_seconds(const char *what, const char *text, double *seconds_p)
{
    char *end;
    double v;

    errno = 0;
    v = (text && (isdigit((unsigned char)text[0]) || text[0] == '.')) ? strtod(text, &end) : -1;
    if (!(v >= 0 && v <= SR_MAX_TIMEOUT_S) || errno != 0 || *end != '\0') {
        sr_msg("%s expects a number of seconds (0 for no limit), got '%s'", what, text ? text : "");
        return -1;
    }
    *seconds_p = v;
    return 0;
}

/* Matches "--name VALUE" and "--name=VALUE" (and short spellings, which only
 * take the separate form). Sets *value_p (NULL when the value is missing). */
static bool match_valued(const char *arg, const char *name, char **argv, int argc, int *i,
                         const char **value_p)
{
    size_t len = strlen(name);

    if (strcmp(arg, name) == 0) {
        *value_p = (*i + 1 < argc) ? argv[++*i] : NULL;
        return true;
    }
    if (strncmp(arg, "--", 2) == 0 && strncmp(arg, name, len) == 0 && arg[len] == '=') {
        *value_p = arg + len + 1;
        return true;
    }
    return false;
}

int sr_options_parse(sr_options_t *opts, int argc, char **argv)
{
    static const char *const npes_names[] = {"-n", "-np", "--npes"};
    const char *env_timeout = shoal_env.timeout; /* loaded by main() */
    bool have_timeout = false;
    const char *value;
    int i;

    *opts = (sr_options_t){.npes = SR_DEFAULT_NPES};
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (arg[0] != '-' || arg[1] == '\0')
            break; /* the program ("-" alone is a name, not an option) */
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            print_usage(stdout);
            return 1;
        }
        if (strcmp(arg, "-V") == 0 || strcmp(arg, "--version") == 0) {
            printf("shoalrun (Shoal) %s\n", SHOALRUN_VERSION);
            return 1;
        }
        if (strcmp(arg, "-t") == 0 || strcmp(arg, "--tag-output") == 0) {
            opts->tag_output = true;
            continue;
        }
        const char *npes_opt = NULL;
        for (size_t k = 0; k < sizeof(npes_names) / sizeof(npes_names[0]); k++)
            if (match_valued(arg, npes_names[k], argv, argc, &i, &value)) {
                npes_opt = npes_names[k];
                break;
            }
        if (npes_opt != NULL) {
            if (parse_npes(npes_opt, value, &opts->npes) != 0)
                return -1;
            continue;
        }
        /* The oshrun/mpirun options that one-host build and test scripts pass. */
        if (strcmp(arg, "--oversubscribe") == 0 || strcmp(arg, "--allow-run-as-root") == 0) {
            sr_msg("note: %s has no effect (every PE runs on this host, as any user)", arg);
            continue;
        }
        if (match_valued(arg, "--map-by", argv, argc, &i, &value)) {
            if (value == NULL) {
                sr_msg("--map-by expects a value such as core or slot");
                return -1;
            }
            sr_msg("note: --map-by %s has no effect (every PE runs on this host)", value);
            continue;
        }
        if (match_valued(arg, "--bind-to", argv, argc, &i, &value)) {
            if (value != NULL && strcmp(value, "core") == 0) {
                opts->bind = SR_BIND_CORE;
            } else if (value != NULL && strcmp(value, "none") == 0) {
                opts->bind = SR_BIND_NONE;
            } else {
                sr_msg("--bind-to expects core or none, got '%s'", value ? value : "");
                return -1;
            }
            continue;
        }
        if (strcmp(arg, "--report-bindings") == 0) {
            opts->report_bindings = true;
            continue;
        }
        if (match_valued(arg, "-x", argv, argc, &i, &value)) {
            const char *eq = value ? strchr(value, '=') : NULL;
            if (value == NULL || value[0] == '\0' || value[0] == '=') {
                sr_msg("-x expects VAR or VAR=VALUE, got '%s'", value ? value : "");
                return -1;
            }
            if (eq != NULL) {
                char *name = sr_xmalloc((size_t)(eq - value) + 1);
                memcpy(name, value, (size_t)(eq - value));
                name[eq - value] = '\0';
                int rc = setenv(name, eq + 1, 1);
                free(name);
                if (rc != 0) {
                    sr_msg("-x %s: cannot set the variable: %s", value, strerror(errno));
                    return -1;
                }
            }
            continue;
        }
        if (match_valued(arg, "--timeout", argv, argc, &i, &value)) {
            if (parse_seconds("--timeout", value, &opts->timeout_s) != 0)
                return -1;
            have_timeout = true;
            continue;
        }
        sr_msg("unknown option '%s'; see shoalrun --help", arg);
        return -1;
    }
    if (i >= argc) {
        sr_msg("no program given; usage: shoalrun -n N [options] program [args...]");
        return -1;
    }
    opts->argv = argv + i;

    if (!have_timeout && env_timeout != NULL && env_timeout[0] != '\0' &&
        parse_seconds("SHOAL_TIMEOUT", env_timeout, &opts->timeout_s) != 0)
        return -1;
    return 0;
}
