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
#include <sys/stat.h>
#include <unistd.h>

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
            "Starts a Shoal OpenSHMEM job of N PEs on this host, or on the hosts named\n"
            "by --host or --hostfile.\n"
            "\n"
            "  -n, -np, --npes N  number of PEs, 1 to %d (default: %d on this host; one\n"
            "                     per slot with --host or --hostfile)\n"
            "  -N, --npernode N   PEs per host (on this host alone: N PEs)\n"
            "  -H, --host H1[:SLOTS],H2...  run on these hosts (SLOTS PEs each, default 1)\n"
            "  --hostfile FILE    run on the hosts of FILE: 'HOST [slots=N]' a line, '#'\n"
            "                     starts a comment\n"
            "  --launch-agent CMD how to run a command on a host: CMD HOST COMMAND\n"
            "                     (default ssh; also --mca plm_rsh_agent CMD)\n"
            "  --oversubscribe    allow more PEs than slots\n"
            "  -t, --tag-output   prefix every output line with \"[PE n] \"\n"
            "  --timeout S        end the job after S seconds (fractions allowed; 0: no\n"
            "                     limit) and exit with status 124, after every PE still\n"
            "                     in Shoal printed its hang report; the default comes\n"
            "                     from SHOAL_TIMEOUT, else there is no limit\n"
            "  -x VAR[=VALUE]     set VAR for the PEs (without a value: as it is here);\n"
            "                     the PEs on this host get shoalrun's whole environment\n"
            "                     anyway, those on other hosts what -x names\n"
            "  --bind-to core|none  core: pin PE i to the (i mod n)-th of the n CPUs\n"
            "                     shoalrun may run on; none: no pinning. Default: when\n"
            "                     the PEs fit on the CPUs shoalrun may use that no other\n"
            "                     job holds, PE i is pinned to the i-th of them; else none\n"
            "  --report-bindings  print each PE's CPUs (and why it is not pinned) at start\n"
            "  --mps auto|on|off  an MPS daemon for the job, so that PEs sharing a GPU run\n"
            "                     their kernels at once instead of time-sliced (~1 ms a\n"
            "                     hand-off): started with private pipe and log folders\n"
            "                     before the PEs, stopped after them. on: whenever\n"
            "                     nvidia-cuda-mps-control is in PATH (an error if not);\n"
            "                     auto (default): also only when this host has more PEs\n"
            "                     than GPUs; never when a daemon serves already\n"
            "                     (CUDA_MPS_PIPE_DIRECTORY set, or /tmp/nvidia-mps)\n"
            "  --mca KEY VALUE, --allow-run-as-root, --map-by X\n"
            "                     accepted for mpirun/oshrun scripts; no effect here\n"
            "  -h, --help         show this help\n"
            "  -V, --version      show the version\n"
            "  --                 end of options\n"
            "\n"
            "A program name without '/' is looked up in PATH, then in the current folder.\n"
            "On more than one host, PEs are placed block-wise (the first host's slots\n"
            "first), each host runs shoalrun through the agent in the same folder, and\n"
            "the PEs join through the config store (TLS, a fresh job key per job).\n"
            "PE 0 reads shoalrun's standard input (on one host; with --host or\n"
            "--hostfile every PE reads /dev/null); the other PEs read /dev/null.\n"
            "SIGUSR1 to shoalrun makes every PE print where it is blocked (its hang\n"
            "report, docs/debugging.md); the job goes on.\n"
            "The exit status is 0 when every PE exits with 0; 128+n when a PE was\n"
            "killed by signal n; a failing PE's status; the status given to\n"
            "shmem_global_exit; 124 on timeout; 126 or 127 when the program cannot\n"
            "be run; a launch agent's status when it fails to run shoalrun on a host.\n",
            SR_MAX_NPES, SR_DEFAULT_NPES);
}

/* A count of PEs: `what` says which ("PEs", "PEs per host"). */
static int parse_count(const char *opt, const char *what, const char *text, int *count_p)
{
    char *end;
    long v;

    errno = 0;
    v = (text && isdigit((unsigned char)text[0])) ? strtol(text, &end, 10) : -1;
    if (v < 1 || v > SR_MAX_NPES || errno != 0 || *end != '\0') {
        sr_msg("%s expects a number of %s from 1 to %d, got '%s'", opt, what, SR_MAX_NPES,
               text ? text : "");
        return -1;
    }
    *count_p = (int)v;
    return 0;
}

/* --mca KEY VALUE: Open MPI's settings. The one with a Shoal counterpart is
 * mapped; the others are noted and dropped. */
static int parse_mca(sr_options_t *opts, const char *opt, const char *key, const char *value)
{
    if (key == NULL || value == NULL || key[0] == '\0') {
        sr_msg("%s expects a KEY and a VALUE, got '%s'", opt, key ? key : "");
        return -1;
    }
    if (strcmp(key, "plm_rsh_agent") == 0 || strcmp(key, "orte_rsh_agent") == 0) {
        if (value[0] == '\0') {
            sr_msg("%s %s expects a command, got ''", opt, key);
            return -1;
        }
        opts->launch_agent = value;
        return 0;
    }
    sr_msg("note: %s %s %s has no effect (Shoal has no MCA parameters; its settings are the "
           "SHOAL_* variables, see shoal-info)",
           opt, key, value);
    return 0;
}

/* Appends a --host value to the list. */
static void add_hosts(sr_options_t *opts, const char *value)
{
    size_t old = opts->host_list ? strlen(opts->host_list) : 0;
    opts->host_list = sr_xrealloc(opts->host_list, old + strlen(value) + 2);
    snprintf(opts->host_list + old, strlen(value) + 2, "%s%s", old ? "," : "", value);
}

/* Remembers a -x for the shoalrun of each host of a multi-host job. */
static void add_export(sr_options_t *opts, const char *value)
{
    const char *text = value;
    if (strchr(value, '=') == NULL) {
        const char *v = getenv(value);
        if (v == NULL)
            return; /* unset here: nothing to pass */
        char *both = sr_xmalloc(strlen(value) + strlen(v) + 2);
        sprintf(both, "%s=%s", value, v);
        text = both;
    }
    opts->exports = sr_xrealloc(opts->exports, (size_t)(opts->nexports + 1) * sizeof(char *));
    opts->exports[opts->nexports++] = text;
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

/* One word of a fixed set, for an option that takes one. */
typedef struct {
    const char *name;
    int value;
} sr_choice_t;

/* value's entry among the n choices: its value, or -1 after saying what the
 * option expects. */
static int choose(const char *option, const char *value, const sr_choice_t *choices, int n,
                  const char *expects)
{
    for (int k = 0; value != NULL && k < n; k++)
        if (strcmp(value, choices[k].name) == 0)
            return choices[k].value;
    sr_msg("%s expects %s, got '%s'", option, expects, value ? value : "");
    return -1;
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
            if (parse_count(npes_opt, "PEs", value, &opts->npes) != 0)
                return -1;
            opts->npes_given = true;
            continue;
        }
        if (match_valued(arg, "-N", argv, argc, &i, &value) ||
            match_valued(arg, "--npernode", argv, argc, &i, &value)) {
            if (parse_count(arg[1] == 'N' ? "-N" : "--npernode", "PEs per host", value,
                            &opts->npernode) != 0)
                return -1;
            continue;
        }
        if (match_valued(arg, "-H", argv, argc, &i, &value) ||
            match_valued(arg, "--host", argv, argc, &i, &value)) {
            if (value == NULL || value[0] == '\0') {
                sr_msg("%s expects a list of hosts such as node0,node1:2",
                       arg[1] == 'H' ? "-H" : "--host");
                return -1;
            }
            add_hosts(opts, value);
            continue;
        }
        if (match_valued(arg, "--hostfile", argv, argc, &i, &value)) {
            if (value == NULL || value[0] == '\0') {
                sr_msg("--hostfile expects the name of a file");
                return -1;
            }
            opts->hostfile = value;
            continue;
        }
        if (match_valued(arg, "--launch-agent", argv, argc, &i, &value)) {
            if (value == NULL || value[0] == '\0') {
                sr_msg("--launch-agent expects a command such as ssh, got ''");
                return -1;
            }
            opts->launch_agent = value;
            continue;
        }
        if (strcmp(arg, "--mca") == 0 || strcmp(arg, "-mca") == 0) {
            const char *key = i + 1 < argc ? argv[i + 1] : NULL;
            const char *val = i + 2 < argc ? argv[i + 2] : NULL;
            if (parse_mca(opts, arg, key, val) != 0)
                return -1;
            i += 2;
            continue;
        }
        if (match_valued(arg, SR_HOST_PART_OPTION, argv, argc, &i, &value)) {
            opts->host_part = value ? value : "";
            continue;
        }
        /* The oshrun/mpirun options that one-host build and test scripts pass. */
        if (strcmp(arg, "--oversubscribe") == 0) {
            opts->oversubscribe = true;
            continue;
        }
        if (strcmp(arg, "--allow-run-as-root") == 0) {
            sr_msg("note: %s has no effect (Shoal runs as any user)", arg);
            continue;
        }
        if (match_valued(arg, "--map-by", argv, argc, &i, &value)) {
            if (value == NULL) {
                sr_msg("--map-by expects a value such as core or slot");
                return -1;
            }
            sr_msg("note: --map-by %s has no effect (PEs fill each host's slots in turn)", value);
            continue;
        }
        if (match_valued(arg, "--bind-to", argv, argc, &i, &value)) {
            static const sr_choice_t binds[] = {{"core", SR_BIND_CORE}, {"none", SR_BIND_NONE}};
            int v = choose("--bind-to", value, binds, 2, "core or none");
            if (v < 0)
                return -1;
            opts->bind = (sr_bind_t)v;
            continue;
        }
        if (match_valued(arg, "--mps", argv, argc, &i, &value)) {
            static const sr_choice_t modes[] = {
                {"auto", SR_MPS_AUTO}, {"on", SR_MPS_ON}, {"off", SR_MPS_OFF}};
            int v = choose("--mps", value, modes, 3, "auto, on or off");
            if (v < 0)
                return -1;
            opts->mps = (sr_mps_t)v;
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
            add_export(opts, value);
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

    bool multi = opts->host_list != NULL || opts->hostfile != NULL;
    if (opts->oversubscribe && !multi)
        sr_msg("note: --oversubscribe has no effect (every PE runs on this host)");
    if (opts->host_list != NULL && opts->hostfile != NULL) {
        sr_msg("--host and --hostfile cannot be combined: name the hosts in one of them");
        return -1;
    }
    if (opts->host_part != NULL && multi) {
        sr_msg("%s cannot be combined with --host or --hostfile", SR_HOST_PART_OPTION);
        return -1;
    }
    if (opts->npernode > 0 && !multi) { /* one host: -N is its number of PEs */
        if (!opts->npes_given) {
            opts->npes = opts->npernode;
        } else if (opts->npes > opts->npernode) {
            sr_msg("-n %d is more than -N %d PEs on this one host; name more hosts with --host "
                   "or --hostfile",
                   opts->npes, opts->npernode);
            return -1;
        }
    }

    if (!have_timeout && env_timeout != NULL && env_timeout[0] != '\0' &&
        parse_seconds("SHOAL_TIMEOUT", env_timeout, &opts->timeout_s) != 0)
        return -1;
    return 0;
}

int sr_options_find_program(sr_options_t *opts)
{
    const char *name = opts->argv[0];
    char *first_found = NULL; /* a file that is there but not executable */

    opts->program = name;
    if (strchr(name, '/') != NULL)
        return 0; /* exec tells what is wrong with it */
    if (name[0] != '\0') {
        char *found = sr_which(name, true, &first_found);
        if (found != NULL) {
            opts->program = found;
            return 0;
        }
    }
    if (first_found != NULL) {
        opts->program = first_found; /* exec reports the permission */
        return 0;
    }
    sr_msg("cannot run '%s': not found in PATH or in the current folder", name);
    return 127;
}
