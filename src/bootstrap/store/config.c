/*
 * Settings of the config-store bootstrap (see store/config.h): what the API
 * recorded before init (shmemx_init_attr, shmemx_set_conf_store_tls) wins
 * over the environment (the SHOAL_STORE* rows of util/env_table.h). Every
 * problem is reported here, once, naming the variable or call to fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bootstrap/store/config.h"
#include "util/log.h"

#define KEY_FILE_MAX 4096

static pthread_mutex_t config_lock = PTHREAD_MUTEX_INITIALIZER;
static int store_started;
static int tls_off_warned;

/* What shmemx_set_conf_store_tls recorded. */
static struct {
    int set;
    int enable;
    int has_certs;
    shoal_store_certs_t certs;
} tls_api;

/* What shmemx_init_attr recorded. */
static struct {
    int set;
    shoal_store_job_t job;
    char store[SHOAL_STORE_ADDR_TEXT];
    int has_secret;
    uint8_t secret[SHOAL_STORE_SECRET_BYTES];
    int has_uid;
    uint8_t uid[SHOAL_STORE_UNIQUEID_BYTES];
} api_job;

static void warn_tls_off(const char *how)
{
    pthread_mutex_lock(&config_lock);
    int first = !tls_off_warned;
    tls_off_warned = 1;
    pthread_mutex_unlock(&config_lock);
    if (first)
        SHOAL_WARN("config store: TLS is turned off (%s): bootstrap traffic travels in plain "
                   "text, unauthenticated, so an outsider on the network who can reach the "
                   "store can join the job, read what PEs publish, or end the job with any "
                   "exit status and message. Use it only on a network you trust; otherwise "
                   "leave TLS on (the default) with a job key made by `openssl rand -hex 32`",
                   how);
}

void shoal_store_mark_started(void)
{
    pthread_mutex_lock(&config_lock);
    store_started = 1;
    pthread_mutex_unlock(&config_lock);
}

int shoal_store_started(void)
{
    pthread_mutex_lock(&config_lock);
    int started = store_started;
    pthread_mutex_unlock(&config_lock);
    return started;
}

/* ---- texts --------------------------------------------------------------- */

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Why a secret is too easy to guess, or NULL: all zero, fewer than 16 bytes
 * of key material (a pattern shorter than 16 bytes repeated; 1: one byte),
 * or few different byte values. 32 random bytes fail these with a
 * probability below 2^-100. */
static const char *secret_weakness(const uint8_t s[SHOAL_STORE_SECRET_BYTES], char *why,
                                   size_t size)
{
    int zero = 1, seen[256] = {0}, distinct = 0;
    for (size_t i = 0; i < SHOAL_STORE_SECRET_BYTES; i++) {
        zero &= s[i] == 0;
        distinct += !seen[s[i]]++;
    }
    if (zero)
        return "it is all zero";
    for (size_t period = 1; period < 16; period++) {
        size_t i = period;
        while (i < SHOAL_STORE_SECRET_BYTES && s[i] == s[i - period])
            i++;
        if (i == SHOAL_STORE_SECRET_BYTES) {
            if (period == 1)
                snprintf(why, size, "it is one byte, 0x%02x, repeated", s[0]);
            else
                snprintf(why, size,
                         "it is a pattern of %zu bytes repeated, so it holds %zu bytes of key "
                         "material, not 16 or more",
                         period, period);
            return why;
        }
    }
    if (distinct < 8) {
        snprintf(why, size, "it has only %d different byte values of 32 bytes", distinct);
        return why;
    }
    return NULL;
}

shoal_status_t shoal_store_parse_secret(const char *text, size_t len, const char *what,
                                        uint8_t secret[SHOAL_STORE_SECRET_BYTES])
{
    size_t start = 0, end = len;
    while (start < end && is_space((unsigned char)text[start]))
        start++;
    while (end > start && is_space((unsigned char)text[end - 1]))
        end--;
    if (end - start != 2 * SHOAL_STORE_SECRET_BYTES) {
        SHOAL_ERROR("%s: the job secret must be %d hex digits (%d random bytes), but it has "
                    "%zu characters; make one with `openssl rand -hex %d` and give the same to "
                    "every PE",
                    what, 2 * SHOAL_STORE_SECRET_BYTES, SHOAL_STORE_SECRET_BYTES, end - start,
                    SHOAL_STORE_SECRET_BYTES);
        return SHOAL_ERR_INVALID;
    }
    for (size_t i = 0; i < SHOAL_STORE_SECRET_BYTES; i++) {
        int hi = hex_value((unsigned char)text[start + 2 * i]);
        int lo = hex_value((unsigned char)text[start + 2 * i + 1]);
        if (hi < 0 || lo < 0) {
            SHOAL_ERROR("%s: the job secret must be hex digits only (0-9, a-f), as `openssl "
                        "rand -hex %d` prints; character %zu is not",
                        what, SHOAL_STORE_SECRET_BYTES, 2 * i + (hi < 0 ? 1 : 2));
            return SHOAL_ERR_INVALID;
        }
        secret[i] = (uint8_t)(hi << 4 | lo);
    }
    char why[160];
    const char *weak = secret_weakness(secret, why, sizeof(why));
    if (weak != NULL) {
        SHOAL_ERROR("%s: the job secret is too easy to guess: %s. Make a random one with "
                    "`openssl rand -hex %d` and give the same to every PE",
                    what, weak, SHOAL_STORE_SECRET_BYTES);
        memset(secret, 0, SHOAL_STORE_SECRET_BYTES);
        return SHOAL_ERR_INVALID;
    }
    return SHOAL_OK;
}

static shoal_status_t set_path(char *dst, size_t size, const char *val, size_t n, const char *name)
{
    if (n == 0 || n >= size) {
        SHOAL_ERROR("TLS settings: %s= needs a path of 1 to %zu characters", name, size - 1);
        return SHOAL_ERR_INVALID;
    }
    memcpy(dst, val, n);
    dst[n] = '\0';
    return SHOAL_OK;
}

shoal_status_t shoal_store_parse_tls_info(const char *info, size_t len,
                                          shoal_store_certs_t *certs_p, int *has_certs_p)
{
    shoal_store_certs_t c;
    size_t i = 0;

    memset(&c, 0, sizeof(c));
    c.verify_name = 1;
    if (info == NULL)
        len = 0;
    while (i < len && info[i] != '\0') {
        size_t start = i, eq, end;
        while (i < len && info[i] != '\0' && info[i] != ';')
            i++;
        end = i;
        if (i < len && info[i] == ';')
            i++;
        while (start < end && is_space((unsigned char)info[start]))
            start++;
        while (end > start && is_space((unsigned char)info[end - 1]))
            end--;
        if (start == end)
            continue;
        for (eq = start; eq < end && info[eq] != '='; eq++)
            ;
        if (eq == end) {
            SHOAL_ERROR("TLS settings: '%.*s' is not name=value; expected "
                        "cert=PATH;key=PATH;ca=PATH[;crl=PATH][;verify_name=0]",
                        (int)(end - start), info + start);
            return SHOAL_ERR_INVALID;
        }
        const char *name = info + start, *val = info + eq + 1;
        size_t name_len = eq - start, val_len = end - eq - 1;
        shoal_status_t status = SHOAL_OK;
#define NAME_IS(s) (name_len == sizeof(s) - 1 && strncmp(name, s, name_len) == 0)
        if (NAME_IS("cert"))
            status = set_path(c.cert, sizeof(c.cert), val, val_len, "cert");
        else if (NAME_IS("key"))
            status = set_path(c.key, sizeof(c.key), val, val_len, "key");
        else if (NAME_IS("ca"))
            status = set_path(c.ca, sizeof(c.ca), val, val_len, "ca");
        else if (NAME_IS("crl"))
            status = set_path(c.crl, sizeof(c.crl), val, val_len, "crl");
        else if (NAME_IS("verify_name")) {
            if (val_len == 1 && (val[0] == '0' || val[0] == '1'))
                c.verify_name = val[0] == '1';
            else {
                SHOAL_ERROR("TLS settings: verify_name must be 0 or 1");
                return SHOAL_ERR_INVALID;
            }
        } else {
            SHOAL_ERROR("TLS settings: unknown field '%.*s'; the fields are cert, key, ca, crl "
                        "and verify_name",
                        (int)name_len, name);
            return SHOAL_ERR_INVALID;
        }
#undef NAME_IS
        if (status != SHOAL_OK)
            return status;
    }
    int any = c.cert[0] || c.key[0] || c.ca[0] || c.crl[0];
    if (any && !(c.cert[0] && c.key[0] && c.ca[0])) {
        SHOAL_ERROR("TLS settings: certificates need all of cert=, key= and ca= (crl= is "
                    "optional)");
        return SHOAL_ERR_INVALID;
    }
    const char *paths[] = {c.cert, c.key, c.ca, c.crl};
    for (size_t k = 0; k < 4; k++) {
        if (paths[k][0] != '\0' && access(paths[k], R_OK) != 0) {
            SHOAL_ERROR("TLS settings: cannot read '%s': %m", paths[k]);
            return SHOAL_ERR_INVALID;
        }
    }
    *certs_p = c;
    *has_certs_p = any;
    return SHOAL_OK;
}

/* ---- the API's settings -------------------------------------------------- */

shoal_status_t shoal_store_set_tls(int enable, const char *info, size_t len)
{
    shoal_store_certs_t certs;
    int has_certs = 0;

    if (shoal_store_started())
        return SHOAL_ERR_UNSUPPORTED;
    memset(&certs, 0, sizeof(certs));
    if (enable && shoal_store_parse_tls_info(info, len, &certs, &has_certs) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    pthread_mutex_lock(&config_lock);
    tls_api.set = 1;
    tls_api.enable = enable;
    tls_api.has_certs = has_certs;
    tls_api.certs = certs;
    pthread_mutex_unlock(&config_lock);
    if (!enable)
        warn_tls_off("shmemx_set_conf_store_tls");
    return SHOAL_OK;
}

shoal_status_t shoal_store_set_job(const shoal_store_job_t *job)
{
    uint8_t secret[SHOAL_STORE_SECRET_BYTES];
    int has_secret = 0;

    if (job->npes < 1 || job->npes > SHOAL_STORE_MAX_NPES || job->rank < 0 ||
        job->rank >= job->npes) {
        SHOAL_ERROR("shmemx_init_attr: rank %d and npes %d do not describe a PE of a job "
                    "(npes 1 to %d, rank 0 to npes - 1)",
                    job->rank, job->npes, SHOAL_STORE_MAX_NPES);
        return SHOAL_ERR_INVALID;
    }
    if (job->uniqueid != NULL && shoal_store_uniqueid_check(job->uniqueid) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (job->store != NULL) {
        shoal_store_addr_t addr;
        char why[160];
        if (strlen(job->store) >= SHOAL_STORE_ADDR_TEXT ||
            shoal_store_addr_parse(job->store, 1, &addr, why, sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("shmemx_init_attr: store address '%.80s' is not host:port: %s", job->store,
                        strlen(job->store) >= SHOAL_STORE_ADDR_TEXT ? "too long" : why);
            return SHOAL_ERR_INVALID;
        }
    }
    if (job->job_key != NULL) {
        if (shoal_store_parse_secret(job->job_key, strlen(job->job_key),
                                     "shmemx_init_attr (job_key)", secret) != SHOAL_OK)
            return SHOAL_ERR_INVALID;
        has_secret = 1;
    }
    pthread_mutex_lock(&config_lock);
    api_job.set = 1;
    api_job.job = *job;
    api_job.job.store = NULL;
    api_job.job.job_key = NULL;
    api_job.job.uniqueid = NULL;
    api_job.store[0] = '\0';
    if (job->store != NULL)
        snprintf(api_job.store, sizeof(api_job.store), "%s", job->store);
    api_job.has_secret = has_secret;
    memcpy(api_job.secret, secret, sizeof(secret));
    api_job.has_uid = job->uniqueid != NULL;
    if (job->uniqueid != NULL)
        memcpy(api_job.uid, job->uniqueid, SHOAL_STORE_UNIQUEID_BYTES);
    pthread_mutex_unlock(&config_lock);
    memset(secret, 0, sizeof(secret));
    return SHOAL_OK;
}

/* ---- the environment ----------------------------------------------------- */

shoal_status_t shoal_store_config_security(const shoal_env_t *env,
                                           shoal_store_security_t *security_p,
                                           shoal_store_certs_t *certs_p)
{
    int has_certs = 0;

    pthread_mutex_lock(&config_lock);
    int api_set = tls_api.set, api_enable = tls_api.enable;
    has_certs = tls_api.has_certs;
    *certs_p = tls_api.certs;
    pthread_mutex_unlock(&config_lock);

    if (api_set) {
        *security_p = !api_enable ? SHOAL_STORE_SEC_PLAIN
                      : has_certs ? SHOAL_STORE_SEC_CERT
                                  : SHOAL_STORE_SEC_PSK;
        return SHOAL_OK;
    }
    if (!env->store_tls) {
        warn_tls_off("SHOAL_STORE_TLS=0");
        *security_p = SHOAL_STORE_SEC_PLAIN;
        return SHOAL_OK;
    }
    const char *info = env->store_tls_info ? env->store_tls_info : "";
    if (shoal_store_parse_tls_info(info, strlen(info), certs_p, &has_certs) != SHOAL_OK) {
        SHOAL_ERROR("SHOAL_STORE_TLS_INFO='%s' is not usable (see the message above)", info);
        return SHOAL_ERR_INVALID;
    }
    *security_p = has_certs ? SHOAL_STORE_SEC_CERT : SHOAL_STORE_SEC_PSK;
    return SHOAL_OK;
}

static shoal_status_t read_key_file(const char *path, uint8_t secret[SHOAL_STORE_SECRET_BYTES])
{
    char text[KEY_FILE_MAX + 1], what[600];
    struct stat st;
    ssize_t n;
    shoal_status_t status;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        SHOAL_ERROR("SHOAL_JOB_KEY_FILE=%s: cannot open it: %m", path);
        return SHOAL_ERR_INVALID;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        SHOAL_ERROR("SHOAL_JOB_KEY_FILE=%s is not a regular file", path);
        close(fd);
        return SHOAL_ERR_INVALID;
    }
    if ((st.st_mode & 077) != 0) {
        SHOAL_ERROR("SHOAL_JOB_KEY_FILE=%s has mode %04o, so other users may read the job "
                    "secret; refusing it. Make it 0600 or stricter (chmod 600 %s)",
                    path, (unsigned)(st.st_mode & 07777), path);
        close(fd);
        return SHOAL_ERR_INVALID;
    }
    n = read(fd, text, sizeof(text));
    close(fd);
    if (n < 0) {
        SHOAL_ERROR("SHOAL_JOB_KEY_FILE=%s: read failed: %m", path);
        return SHOAL_ERR_INVALID;
    }
    snprintf(what, sizeof(what), "SHOAL_JOB_KEY_FILE=%s", path);
    status = shoal_store_parse_secret(text, (size_t)n, what, secret);
    memset(text, 0, sizeof(text));
    return status;
}

shoal_status_t shoal_store_config_env_secret(const shoal_env_t *env,
                                             uint8_t secret[SHOAL_STORE_SECRET_BYTES])
{
    const char *file = env->job_key_file, *key = env->job_key;
    int have_file = file != NULL && *file != '\0', have_key = key != NULL && *key != '\0';

    if (have_file && have_key) {
        SHOAL_ERROR("both SHOAL_JOB_KEY_FILE and SHOAL_JOB_KEY are set; set only one of them");
        return SHOAL_ERR_INVALID;
    }
    if (have_file)
        return read_key_file(file, secret);
    if (have_key)
        return shoal_store_parse_secret(key, strlen(key), "SHOAL_JOB_KEY", secret);
    return SHOAL_ERR_NOT_FOUND;
}

/* The table's default for SHOAL_STORE, whose port is the default port. */
static uint16_t default_port(void)
{
    shoal_store_addr_t a;
    char why[128];
    const char *def = NULL;
#define SHOAL_STORE_PICK_DEFAULT(var, type, field, d, doc)                                         \
    if (strcmp(#var, "SHOAL_STORE") == 0)                                                          \
        def = d;
    SHOAL_ENV_TABLE(SHOAL_STORE_PICK_DEFAULT)
#undef SHOAL_STORE_PICK_DEFAULT
    if (def == NULL || shoal_store_addr_parse(def, 0, &a, why, sizeof(why)) != SHOAL_OK)
        return 0;
    return a.port;
}

/* Parses a rank or PE count from an environment variable. */
static shoal_status_t env_number(const char *name, const char *text, long max, int *value_p)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno != 0 || v < 0 || v > max) {
        SHOAL_ERROR("%s='%s' is not a number from 0 to %ld", name, text, max);
        return SHOAL_ERR_INVALID;
    }
    *value_p = (int)v;
    return SHOAL_OK;
}

static shoal_status_t load_env_job(const shoal_env_t *env, shoal_store_config_t *cfg)
{
    char why[200];
    int have_rank = env->rank && *env->rank, have_npes = env->npes && *env->npes;

    if (!have_rank || !have_npes) {
        SHOAL_ERROR("SHOAL_STORE is set, but %s%s%s not: a PE started without shoalrun needs "
                    "SHOAL_RANK (0 to SHOAL_NPES - 1) and SHOAL_NPES (the job size)",
                    have_rank ? "" : "SHOAL_RANK", !have_rank && !have_npes ? " and " : "",
                    have_npes ? "" : "SHOAL_NPES");
        return SHOAL_ERR_INVALID;
    }
    if (env_number("SHOAL_NPES", env->npes, SHOAL_STORE_MAX_NPES, &cfg->npes) != SHOAL_OK ||
        env_number("SHOAL_RANK", env->rank, SHOAL_STORE_MAX_NPES, &cfg->rank) != SHOAL_OK)
        return SHOAL_ERR_INVALID;
    if (cfg->npes < 1 || cfg->rank >= cfg->npes) {
        SHOAL_ERROR("SHOAL_RANK=%d is out of range: the job has SHOAL_NPES=%d PE(s), ranks 0 "
                    "to %d",
                    cfg->rank, cfg->npes, cfg->npes - 1);
        return SHOAL_ERR_INVALID;
    }
    if (shoal_store_addr_parse(env->store, default_port(), &cfg->store, why, sizeof(why)) !=
        SHOAL_OK) {
        SHOAL_ERROR("SHOAL_STORE='%s' is not host:port or [IPv6]:port: %s", env->store, why);
        return SHOAL_ERR_INVALID;
    }
    if (cfg->store.port == 0) {
        SHOAL_ERROR("SHOAL_STORE='%s': port 0 (any free port) works only with a unique ID "
                    "(shmemx_get_uniqueid); PEs started by environment need the real port",
                    env->store);
        return SHOAL_ERR_INVALID;
    }
    cfg->origin = "SHOAL_STORE";
    return SHOAL_OK;
}

static shoal_status_t load_api_job(const shoal_env_t *env, shoal_store_config_t *cfg,
                                   int *has_secret_p)
{
    char why[200];

    pthread_mutex_lock(&config_lock);
    shoal_store_job_t job = api_job.job;
    char store[SHOAL_STORE_ADDR_TEXT];
    int has_uid = api_job.has_uid;
    uint8_t uid_bytes[SHOAL_STORE_UNIQUEID_BYTES];
    memcpy(store, api_job.store, sizeof(store));
    memcpy(uid_bytes, api_job.uid, sizeof(uid_bytes));
    *has_secret_p = api_job.has_secret;
    memcpy(cfg->secret, api_job.secret, sizeof(cfg->secret));
    pthread_mutex_unlock(&config_lock);

    cfg->rank = job.rank;
    cfg->npes = job.npes;
    if (job.connect_timeout_ms)
        cfg->connect_timeout_ms = job.connect_timeout_ms;
    if (job.join_timeout_ms)
        cfg->join_timeout_ms = job.join_timeout_ms;
    if (has_uid) {
        shoal_store_uid_t uid;
        if (shoal_store_uid_decode(uid_bytes, &uid, why, sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("shmemx_init_attr: the unique ID is not valid: %s", why);
            return SHOAL_ERR_INVALID;
        }
        shoal_store_sockaddr_split(&uid.addr, &cfg->store);
        memcpy(cfg->secret, uid.secret, sizeof(cfg->secret));
        memset(&uid, 0, sizeof(uid));
        *has_secret_p = 1;
        cfg->origin = "the unique ID";
        return SHOAL_OK;
    }
    const char *text = store[0] ? store : env->store;
    if (shoal_store_addr_parse(text, default_port(), &cfg->store, why, sizeof(why)) != SHOAL_OK ||
        cfg->store.port == 0) {
        SHOAL_ERROR("shmemx_init_attr: store address '%s' is not usable: %s", text,
                    cfg->store.port == 0 ? "port 0 works only with a unique ID" : why);
        return SHOAL_ERR_INVALID;
    }
    cfg->origin = store[0] ? "shmemx_init_attr" : "SHOAL_STORE";
    return SHOAL_OK;
}

/* Where PE 0 listens: the named interface with the store's port, else the
 * store address itself. */
static shoal_status_t choose_listen(const shoal_env_t *env, shoal_store_config_t *cfg)
{
    char why[200];
    const char *iface = env->store_listen_iface;

    if (iface != NULL && *iface != '\0') {
        if (shoal_store_iface_addr(iface, env->store_ipv6, cfg->store.port, &cfg->listen, why,
                                   sizeof(why)) != SHOAL_OK) {
            SHOAL_ERROR("SHOAL_STORE_LISTEN_IFACE=%s: %s", iface, why);
            return SHOAL_ERR_INVALID;
        }
        return SHOAL_OK;
    }
    if (shoal_store_resolve(&cfg->store, &cfg->listen, why, sizeof(why)) != SHOAL_OK) {
        SHOAL_ERROR("config store: PE 0 cannot listen on the store address: %s", why);
        return SHOAL_ERR_INVALID;
    }
    return SHOAL_OK;
}

shoal_status_t shoal_store_config_load(shoal_store_config_t *cfg, int api_only)
{
    int has_secret = 0;
    shoal_status_t status;

    pthread_mutex_lock(&config_lock);
    int api = api_job.set;
    pthread_mutex_unlock(&config_lock);
    const shoal_env_t *env = shoal_env_get();
    if (env == NULL)
        return SHOAL_ERR_INVALID;
    if (!api && (api_only || (!env->set.store && (!env->set.rank || !env->set.npes))))
        return SHOAL_ERR_NOT_FOUND;

    memset(cfg, 0, sizeof(*cfg));
    cfg->connect_timeout_ms = (uint64_t)env->store_connect_timeout * 1000u;
    cfg->join_timeout_ms = (uint64_t)env->store_join_timeout * 1000u;
    status = api ? load_api_job(env, cfg, &has_secret) : load_env_job(env, cfg);
    if (status != SHOAL_OK)
        goto fail;
    shoal_log_set_pe(cfg->rank); /* from here on, messages name this PE */
    if (cfg->connect_timeout_ms == 0)
        cfg->connect_timeout_ms = 1;
    if (cfg->join_timeout_ms == 0)
        cfg->join_timeout_ms = 1;

    /* A unique ID's store runs where the ID was made; otherwise PE 0 hosts it. */
    cfg->host = cfg->rank == 0 && strcmp(cfg->origin, "the unique ID") != 0;
    if (cfg->host && (status = choose_listen(env, cfg)) != SHOAL_OK)
        goto fail;

    status = shoal_store_config_security(env, &cfg->security, &cfg->certs);
    if (status != SHOAL_OK)
        goto fail;
    if (cfg->security == SHOAL_STORE_SEC_PSK && !has_secret) {
        status = shoal_store_config_env_secret(env, cfg->secret);
        if (status == SHOAL_ERR_NOT_FOUND)
            SHOAL_ERROR("config store: TLS is on (the default) but no job secret is given. Set "
                        "SHOAL_JOB_KEY_FILE to a file holding the output of `openssl rand -hex "
                        "32` (mode 0600), the same on every PE, or SHOAL_JOB_KEY to that text; "
                        "or give certificates in SHOAL_STORE_TLS_INFO; or turn TLS off with "
                        "SHOAL_STORE_TLS=0 on every PE (not recommended)");
        if (status != SHOAL_OK) {
            status = SHOAL_ERR_INVALID;
            goto fail;
        }
    }
    return SHOAL_OK;

fail:
    memset(cfg->secret, 0, sizeof(cfg->secret));
    return status;
}
